// Command-line commands for the task heads of Hugging Face folders: classify (text
// classification), ner (token classification), qa (extractive question answering), zero-shot
// (an NLI model) and rerank (a cross-encoder). Each prints a table for people, or with --json the
// library call's result for scripts.
import { UsageError, json, short, table } from './format.mjs';
import { FOLDER, TEXT, countOption, integerOption, requireModel, texts } from './text.mjs';
import { readRegularText } from '../node/files.mjs';

// Loads the folder, runs `work(model)`, disposes the model whatever happens.
async function withModel(sf, a, progress, work) {
  requireModel(a);
  const model = await sf.loadPretrained(a.model, { onProgress: progress });
  try {
    return await work(model);
  } finally {
    model.dispose();
  }
}

const score = (s) => s.toFixed(4);

async function classify(sf, a, { out, progress }) {
  const list = await texts(a);
  return withModel(sf, a, progress, (model) => {
    const topK = a.all ? null : integerOption(a, 'top-k', 1);
    const results = model.classify(list, { topK, maxLength: integerOption(a, 'max-length', model.maxLength) });
    if (a.json) {
      out(json(results.map((r, i) => ({ text: list[i], ...r }))));
      return 0;
    }
    const lines = [];
    results.forEach((r, i) => {
      lines.push(`${JSON.stringify(short(list[i], 72))}${r.truncated ? ` (cut to ${model.maxLength} tokens)` : ''}`);
      lines.push(table(r.predictions.map((p) => [p.label, score(p.score)])));
    });
    out(lines.join('\n'));
    return 0;
  });
}

const AGGREGATIONS = ['none', 'simple', 'first', 'average', 'max'];

async function ner(sf, a, { out, progress }) {
  const list = await texts(a);
  const aggregation = a.aggregation ?? 'simple';
  if (!AGGREGATIONS.includes(aggregation)) throw new UsageError(`--aggregation must be ${AGGREGATIONS.join(', ')}, not '${aggregation}'`);
  return withModel(sf, a, progress, (model) => {
    const results = model.tokenClassify(list, {
      aggregation, maxLength: integerOption(a, 'max-length', model.maxLength), ...(a['all-labels'] ? { ignoreLabels: [] } : {}),
      ...(a.stride !== undefined ? { stride: countOption(a, 'stride') } : {}),
    });
    if (a.json) {
      out(json(results.map((entities, i) => ({ text: list[i], entities }))));
      return 0;
    }
    const lines = [];
    results.forEach((entities, i) => {
      lines.push(JSON.stringify(short(list[i], 72)));
      if (!entities.length) lines.push('  (no entities)');
      else lines.push(table(entities.map((e) => [e.entity ?? e.entityGroup, JSON.stringify(e.word), `${e.start}-${e.end}`, score(e.score)])));
    });
    out(lines.join('\n'));
    return 0;
  });
}

function contextOf(a) {
  if (a.context !== undefined && a['context-file'] !== undefined) throw new UsageError('give --context or --context-file, not both');
  if (a['context-file'] !== undefined) {
    let text;
    try {
      text = readRegularText(a['context-file']);
    } catch (e) {
      throw new UsageError(`cannot read --context-file '${a['context-file']}': ${e.message}`);
    }
    if (text === null) throw new UsageError(`cannot read --context-file '${a['context-file']}': ENOENT`);
    return text;
  }
  if (a.context === undefined) throw new UsageError('give the context with --context "..." or --context-file <file>');
  return a.context;
}

async function qa(sf, a, { out, progress }) {
  if (a.question === undefined) throw new UsageError('give the question with --question "..."');
  const context = contextOf(a);
  return withModel(sf, a, progress, (model) => {
    const options = {
      topK: integerOption(a, 'top-k', 1), maxAnswerLength: integerOption(a, 'max-answer-length', undefined),
      maxSeqLen: integerOption(a, 'max-seq-len', undefined), handleImpossibleAnswer: a['allow-no-answer'] === true,
    };
    if (a['doc-stride'] !== undefined) options.docStride = countOption(a, 'doc-stride');
    for (const k of Object.keys(options)) if (options[k] === undefined) delete options[k];
    const got = model.answer(a.question, context, options);
    const answers = Array.isArray(got) ? got : [got];
    if (a.json) {
      out(json({ question: a.question, answers }));
      return 0;
    }
    out([`Q: ${a.question}`, table(answers.map((x, k) => [`${k + 1}.`, JSON.stringify(x.answer), score(x.score), `chars ${x.start}-${x.end}`]))].join('\n'));
    return 0;
  });
}

async function zeroShot(sf, a, { out, progress }) {
  const list = await texts(a);
  const labels = (a.label ?? []).flatMap((l) => l.split(',')).map((l) => l.trim()).filter((l) => l);
  if (!labels.length) throw new UsageError('give the candidate labels with --label <label> (repeatable, or comma-separated)');
  return withModel(sf, a, progress, (model) => {
    const results = model.zeroShot(list, labels, {
      multiLabel: a['multi-label'] === true, maxLength: integerOption(a, 'max-length', model.maxLength),
      ...(a.template !== undefined ? { hypothesisTemplate: a.template } : {}),
    });
    if (a.json) {
      out(json(results));
      return 0;
    }
    const lines = [];
    for (const r of results) {
      lines.push(JSON.stringify(short(r.sequence, 72)));
      lines.push(table(r.labels.map((l, k) => [l, score(r.scores[k])])));
    }
    out(lines.join('\n'));
    return 0;
  });
}

async function rerank(sf, a, { out, progress }) {
  if (a.query === undefined) throw new UsageError('give the query with --query "..."');
  const documents = await texts(a);
  return withModel(sf, a, progress, (model) => {
    const ranked = model.rerank(a.query, documents, {
      topK: integerOption(a, 'top-k', documents.length), maxLength: integerOption(a, 'max-length', model.maxLength),
    });
    if (a.json) {
      out(json({ query: a.query, ranked: ranked.map((r) => ({ ...r, document: documents[r.index] })) }));
      return 0;
    }
    out([`query: ${JSON.stringify(short(a.query, 72))}`,
      table(ranked.map((r, k) => [`${k + 1}.`, score(r.score), `[${r.index}]`, JSON.stringify(short(documents[r.index], 64))]))].join('\n'));
    return 0;
  });
}

const MAX_LENGTH = { 'max-length': TEXT['max-length'] };

export const taskCommands = {
  classify: {
    summary: 'text classification with a ...ForSequenceClassification folder (labels and scores)',
    usage: ['--model <folder> --text <text> [--text <text> ...] [--top-k 3 | --all]', '--model <folder> --input <texts.txt>'],
    options: { ...FOLDER, ...TEXT,
      'top-k': { type: 'string', help: '--top-k <n>           labels per text, best first (default 1)' },
      all: { type: 'boolean', help: '--all                 every label' } },
    notes: 'Scores as the text-classification pipeline: softmax, or sigmoid for multi-label models and one label.',
    run: classify,
  },
  ner: {
    summary: 'named entities with a ...ForTokenClassification folder',
    usage: ['--model <folder> --text <text> [--aggregation simple|none|first|average|max] [--all-labels] [--stride N]'],
    options: { ...FOLDER, ...TEXT,
      aggregation: { type: 'string', help: '--aggregation <a>     none | simple | first | average | max (default simple)' },
      'all-labels': { type: 'boolean', help: '--all-labels          keep every label, "O" too (default: O left out)' },
      stride: { type: 'string', help: '--stride <n>          read a text longer than --max-length in windows overlapping by n tokens (default: cut it)' } },
    notes: 'Entities as the token-classification pipeline gives them; start-end are character offsets in the text.',
    run: ner,
  },
  qa: {
    summary: 'extractive question answering with a ...ForQuestionAnswering folder',
    usage: ['--model <folder> --question "..." --context "..." [--top-k 3]', '--model <folder> --question "..." --context-file <file>'],
    options: { ...FOLDER,
      question: { type: 'string', help: '--question <text>     the question' },
      context: { type: 'string', help: '--context <text>      the text holding the answer' },
      'context-file': { type: 'string', help: '--context-file <file> read the context from a file' },
      'top-k': { type: 'string', help: '--top-k <n>           answers, best first (default 1)' },
      'max-answer-length': { type: 'string', help: '--max-answer-length <n> longest answer in tokens (default 15)' },
      'max-seq-len': { type: 'string', help: '--max-seq-len <n>     tokens per window (default min(model maximum, 384))' },
      'doc-stride': { type: 'string', help: '--doc-stride <n>      tokens shared by consecutive windows (default min(max-seq-len / 2, 128))' },
      'allow-no-answer': { type: 'boolean', help: '--allow-no-answer     also offer the empty answer' } },
    notes: 'Scores as the question-answering pipeline; a long context is read in overlapping windows.',
    run: qa,
  },
  'zero-shot': {
    summary: 'zero-shot classification with an NLI folder (entailment of "This example is {label}.")',
    usage: ['--model <folder> --text <text> --label sports --label politics [--multi-label] [--template "The topic is {}."]'],
    options: { ...FOLDER, text: TEXT.text, input: TEXT.input, ...MAX_LENGTH,
      label: { type: 'string', multiple: true, help: '--label <label>       a candidate label (repeatable, or comma-separated)' },
      template: { type: 'string', help: '--template <text>     the hypothesis, {} standing for the label (default "This example is {}.")' },
      'multi-label': { type: 'boolean', help: '--multi-label         score each label on its own' } },
    run: zeroShot,
  },
  rerank: {
    summary: 'rank documents for a query with a one-label cross-encoder folder',
    usage: ['--model <folder> --query "..." --text <document> [--text <document> ...] [--top-k 3]', '--model <folder> --query "..." --input <documents.txt>'],
    options: { ...FOLDER, ...TEXT,
      query: { type: 'string', help: '--query <text>        the query' },
      'top-k': { type: 'string', help: '--top-k <n>           documents to show (default all)' } },
    notes: 'Scores are the sigmoid of the cross-encoder\'s logit (sentence-transformers CrossEncoder.rank); --text / --input give the documents.',
    run: rerank,
  },
};
