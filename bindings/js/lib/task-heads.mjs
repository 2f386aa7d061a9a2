// The task calls of TextModel that run a head and post-process its logits as the Hugging Face
// pipelines do: tokenClassify (token-classification.mjs), answer (question-answering.mjs),
// zeroShot (zero-shot.mjs) and rerank (classification.mjs). Each takes the model's context:
//   { info, tokenizer, maxLength: the maxLength option kind,
//     forward(enc, needs): runs a padded batch (tokenizer.padBatch / encodeBatch),
//     tokenLogits(rows, cols), classifierLogits(rows): copies of the last forward's outputs }
import { crossEncoderActivation, rankDocuments, requireHead, topK } from './classification.mjs';
import { SimdformerError, fail } from './errors.mjs';
import { runInLengthGroups } from './length-groups.mjs';
import { boolean, describe, integer, readOptions } from './options.mjs';
import { answerMask, collectAnswers, windowSpans } from './question-answering.mjs';
import { aggregation, mergeOverlapping, tokenEntities } from './token-classification.mjs';
import { stringList, textItems } from './text-inputs.mjs';
import { candidateLabels, entailmentId, hypothesis, zeroShotScores } from './zero-shot.mjs';

const batchSize = () => integer(1, 4096, 32);

const strings = (fallback) => ({ fallback, read: stringList });

const text = (fallback) => ({
  fallback,
  read: (v, what) => (typeof v === 'string' ? v : fail(`${what} must be a string, got ${describe(v)}`)),
});

// Runs a list in batches of `size`; run(chunk) returns one result per item of the chunk.
function inBatches(list, size, run) {
  const out = [];
  for (let start = 0; start < list.length; start += size) out.push(...run(list.slice(start, start + size), start));
  return out;
}

/** Token classification (NER): per text the pipeline's entities. */
export function tokenClassify(ctx, input, options) {
  const { info, tokenizer } = ctx;
  requireHead(info, 'has_token_classifier', 'token-classification head', 'tokenClassify', 'ForTokenClassification');
  const o = readOptions(options, {
    aggregation: aggregation(), ignoreLabels: strings(['O']), maxLength: ctx.maxLength, batchSize: batchSize(),
    // The pipeline refuses a stride of model_max_length or more, however short the text.
    stride: integer(0, tokenizer.maxLength - 1, undefined),
  }, 'tokenClassify');
  if (o.stride !== undefined && o.aggregation === 'none') {
    fail(`tokenClassify: stride ${o.stride} reads the whole text in overlapping windows, which needs an aggregation other than 'none' (the pipeline's rule): 'simple', 'first', 'average' or 'max'`);
  }
  const { items, batch } = textItems(input, 'tokenClassify', { pairs: false, allowEmpty: true });
  // Without a stride a text longer than maxLength is cut (truncation=True); with one, every
  // window of every text is a row of the batches.
  const windows = items.flatMap((text, t) => (o.stride === undefined
    ? [{ text, t, seq: tokenizer.encodeOne(text, o.maxLength) }]
    : tokenizer.encodeTextWindows(text, o.maxLength, o.stride).map((seq) => ({ text, t, seq }))));
  const L = info.num_labels;
  // A text of no tokens (an empty text, with a tokenizer that adds no special tokens) has no
  // entities, and no row in the batches. The others run in groups of similar lengths
  // (length-groups.mjs).
  const found = windows.map(() => []);
  const run = windows.flatMap((w, i) => (w.seq.length > 0 ? [i] : []));  // indices into windows
  const entities = runInLengthGroups(tokenizer, run.map((i) => windows[i].seq), o.batchSize, (enc, group) => {
    ctx.forward(enc, { needTokenLogits: true });
    const n = enc.nSeq, logits = ctx.tokenLogits(enc.nBatch * n, L);  // [B * n, L]
    return group.map((k, b) => {
      const w = windows[run[k]];
      return tokenEntities(w.text, w.seq, logits.subarray(b * n * L, (b * n + w.seq.length) * L), info.labels, tokenizer, o);
    });
  });
  run.forEach((i, k) => { found[i] = entities[k]; });
  const perText = items.map(() => []);
  windows.forEach((w, i) => perText[w.t].push(found[i]));
  const results = perText.map((lists) => (lists.length > 1 ? mergeOverlapping(lists.flat()) : lists[0]));
  return batch ? results : results[0];
}

/** Extractive question answering over windows of a long context. */
export function answer(ctx, question, context, options) {
  const { info, tokenizer } = ctx;
  requireHead(info, 'has_qa_head', 'question-answering head', 'answer', 'ForQuestionAnswering');
  if (typeof question !== 'string' || typeof context !== 'string') fail(`answer: question and context must be strings, got ${describe(question)} and ${describe(context)}`);
  if (question.trim() === '') fail('answer: the question is empty');
  if (context.trim() === '') fail('answer: the context is empty');
  const o = readOptions(options, {
    // Any count the pipeline takes: a topK or maxAnswerLength beyond the candidates keeps them all.
    topK: integer(1, Number.MAX_SAFE_INTEGER, 1), maxAnswerLength: integer(1, Number.MAX_SAFE_INTEGER, 15),
    maxSeqLen: integer(1, tokenizer.maxLength, Math.min(tokenizer.maxLength, 384)), docStride: integer(0, 1 << 20, undefined),
    handleImpossibleAnswer: boolean(false), batchSize: batchSize(),
  }, 'answer');
  // The pipeline's defaults: windows of min(model_max_length, 384), overlapping by half of that
  // (at most 128 tokens).
  const docStride = o.docStride ?? Math.min(Math.floor(o.maxSeqLen / 2), 128);
  if (docStride > o.maxSeqLen) fail(`answer: docStride ${docStride} is larger than maxSeqLen ${o.maxSeqLen}`);
  const windows = tokenizer.encodeWindows(question, context, o.maxSeqLen, docStride);
  if (!windows.some((w) => w.sequenceIds.includes(1))) fail('answer: the context has no tokens');
  const scored = inBatches(windows, o.batchSize, (chunk) => {
    const enc = tokenizer.padBatch(chunk);
    ctx.forward(enc, { needTokenLogits: true });
    const n = enc.nSeq, logits = ctx.tokenLogits(enc.nBatch * n, 2);  // [B * n, 2]: start, end
    return chunk.map((seq, b) => {
      const start = [], end = [];
      for (let i = 0; i < seq.length; i++) {
        start.push(logits[2 * (b * n + i)]);
        end.push(logits[2 * (b * n + i) + 1]);
      }
      const { spans, nullScore } = windowSpans(start, end, answerMask(seq, tokenizer.clsId), o);
      return { seq, spans, windowNull: nullScore };
    });
  });
  const answers = collectAnswers(context, scored, o);
  return o.topK === 1 ? answers[0] : answers;
}

/** Zero-shot classification with an NLI model: per text {sequence, labels, scores}. */
export function zeroShot(ctx, input, labels, options) {
  const { info, tokenizer } = ctx;
  requireHead(info, 'has_classifier', 'sequence-classification head (an NLI model)', 'zeroShot', 'ForSequenceClassification');
  const entailment = entailmentId(info);
  const candidates = candidateLabels(labels);
  const o = readOptions(options, {
    hypothesisTemplate: text('This example is {}.'), multiLabel: boolean(false), maxLength: ctx.maxLength, batchSize: batchSize(),
  }, 'zeroShot');
  const hypotheses = candidates.map((label) => hypothesis(o.hypothesisTemplate, label));
  const { items, batch } = textItems(input, 'zeroShot', { pairs: false, allowEmpty: true });
  const L = info.num_labels;
  // Every (text, hypothesis) pair of every text, run in groups of similar lengths
  // (length-groups.mjs). The pipeline cuts only the text (truncation only_first), never the
  // hypothesis: one that does not fit is an error naming its label.
  const C = candidates.length;
  const sequences = items.flatMap((sequence) => hypotheses.map((h, k) => {
    try {
      return tokenizer.encodeOne([sequence, h], o.maxLength, 'only_first');
    } catch (e) {
      if (!(e instanceof SimdformerError)) throw e;
      return fail(`zeroShot: the hypothesis for label ${describe(candidates[k])} is too long: ${e.message}`);
    }
  }));
  const rows = runInLengthGroups(tokenizer, sequences, o.batchSize, (enc) => {
    ctx.forward(enc, { needClassifier: true });
    const logits = ctx.classifierLogits(enc.nBatch);
    return enc.sequences.map((_, b) => logits.subarray(b * L, (b + 1) * L));
  });
  const results = items.map((sequence, t) => {
    const logits = new Float32Array(C * L);
    for (let k = 0; k < C; k++) logits.set(rows[t * C + k], k * L);
    return { sequence, ...zeroShotScores(logits, L, candidates, entailment, o.multiLabel) };
  });
  return batch ? results : results[0];
}

/** Cross-encoder reranking: [{index, score}] of the documents, highest first. */
export function rerank(ctx, query, documents, options) {
  const { info, tokenizer } = ctx;
  requireHead(info, 'has_classifier', 'sequence-classification head (a cross-encoder)', 'rerank', 'ForSequenceClassification');
  if (info.num_labels !== 1) fail(`rerank needs a one-label cross-encoder; this classifier has ${info.num_labels} labels (${info.labels.join(', ')})`, 'unsupported');
  const activation = crossEncoderActivation(info.config);
  if (typeof query !== 'string') fail(`rerank: query must be a string, got ${describe(query)}`);
  const docs = stringList(documents, 'rerank: documents');
  if (docs.length === 0) fail('rerank: the array of documents is empty');
  const o = readOptions(options, { topK: topK(Infinity), maxLength: ctx.maxLength, batchSize: batchSize() }, 'rerank');
  // Documents of similar lengths together, each group padded to its own longest (length-groups.mjs).
  const sequences = docs.map((d) => tokenizer.encodeOne([query, d], o.maxLength));
  const logits = runInLengthGroups(tokenizer, sequences, o.batchSize, (enc) => {
    ctx.forward(enc, { needClassifier: true });
    return Array.from(ctx.classifierLogits(enc.nBatch));
  });
  return rankDocuments(Float32Array.from(logits), o.topK, activation);
}
