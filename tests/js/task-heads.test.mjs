// The task heads through the package (SIMD128 and scalar builds) against the from-spec
// references of the Hugging Face pipelines (tests/data/hf/<case>/texts.json, written by
// scripts/fixtures/task_expectations.py with the oracles' offsets):
//   tokenClassify: ids, content offsets, and every aggregation's entities (labels, words, start,
//     end exact; scores <= 1e-4), ignoreLabels; a long text with a stride (its windows' ids, and
//     the entities merged over the overlaps);
//   answer: the windows over long contexts (ids exact) and the answers (text, start, end exact,
//     score <= 1e-4), with topK, maxAnswerLength, docStride, maxSeqLen, handleImpossibleAnswer;
//   zeroShot: the pairs' ids and logits, single- and multi-label scores, the entailment column
//     found by name (first here), custom templates;
//   rerank: the one-label cross-encoder's order and sigmoid scores, topK;
// and the errors: a head asked of a model without it names what it has, no entailment label,
// empty labels / contexts / documents, a question longer than the window.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SimdformerError, bundledModelUrl, init } from '../../dist/node.mjs';
import { DATA } from './helpers.mjs';

const HF = join(DATA, 'hf');
const TOL = 1e-4;
const folder = (name) => join(HF, name);
const texts = (name) => JSON.parse(readFileSync(join(HF, name, 'texts.json'), 'utf8'));
const json = (name, file) => JSON.parse(readFileSync(join(HF, name, file), 'utf8'));

function withConfig(name, change) {
  const config = json(name, 'config.json');
  change(config);
  return {
    config, weights: readFileSync(join(HF, name, 'model.safetensors')),
    tokenizer: json(name, 'tokenizer.json'), tokenizerConfig: json(name, 'tokenizer_config.json'),
  };
}

const isError = (code, re) => (e) => e instanceof SimdformerError && e.code === code && re.test(e.message);
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= TOL, `${what}: ${a} vs ${b}`);

// Entities as the pipeline names their keys (entity_group -> entityGroup), scores within TOL.
function assertEntities(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${JSON.stringify(got.map((e) => e.word))} vs ${JSON.stringify(want.map((e) => e.word))}`);
  want.forEach((w, i) => {
    const g = got[i];
    const label = w.entity_group ?? w.entity;
    assert.equal(g.entity ?? g.entityGroup, label, `${what}[${i}] label`);
    assert.equal('entity_group' in w ? 'entityGroup' in g : 'entity' in g, true, `${what}[${i}] key`);
    assert.equal(g.word, w.word, `${what}[${i}] word`);
    assert.deepEqual([g.start, g.end], [w.start, w.end], `${what}[${i}] offsets`);
    if ('index' in w) assert.equal(g.index, w.index, `${what}[${i}] index`);
    close(g.score, w.score, `${what}[${i}] score`);
  });
}

function assertAnswers(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
  want.forEach((w, i) => {
    assert.equal(got[i].answer, w.answer, `${what}[${i}] answer`);
    assert.deepEqual([got[i].start, got[i].end], [w.start, w.end], `${what}[${i}] offsets`);
    close(got[i].score, w.score, `${what}[${i}] score`);
  });
}

const QA_OPTION_NAMES = { top_k: 'topK', max_answer_len: 'maxAnswerLength', handle_impossible_answer: 'handleImpossibleAnswer', max_seq_len: 'maxSeqLen', doc_stride: 'docStride' };
const qaOptions = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [QA_OPTION_NAMES[k], v]));

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build: task heads`, async () => {
    const sf = await init({ simd });

    for (const name of ['bert_tokcls', 'roberta_tokcls', 'distilbert_tokcls', 'xlmr_tokcls']) {
      test(`${name}: tokens, offsets and every aggregation's entities match the pipeline`, async () => {
        const model = await sf.loadPretrained(folder(name));
        assert.equal(model.info.has_token_classifier, true);
        for (const row of texts(name).ner.filter((r) => !('stride' in r))) {
          const enc = model.tokenizer.encodeOne(row.text, model.maxLength);
          assert.deepEqual(Array.from(enc.ids), row.ids, `${row.text}: ids`);
          assert.deepEqual(enc.offsets.filter((_, i) => enc.sequenceIds[i] !== null), row.offsets, `${row.text}: offsets`);
          for (const agg of ['none', 'simple', 'first', 'average', 'max']) {
            assertEntities(model.tokenClassify(row.text, { aggregation: agg }), row.results[agg], `${row.text} ${agg}`);
          }
          assertEntities(model.tokenClassify(row.text, { ignoreLabels: [] }), row.results.none_ignore_nothing, `${row.text} nothing ignored`);
        }
        // A batch gives each text's entities, as alone.
        const rows = texts(name).ner.filter((r) => !('stride' in r));
        const all = model.tokenClassify(rows.map((r) => r.text), { aggregation: 'simple', batchSize: 2 });
        all.forEach((got, i) => assertEntities(got, rows[i].results.simple, `batch ${i}`));
        model.dispose();
      });
    }

    for (const name of ['bert_tokcls', 'roberta_tokcls', 'distilbert_tokcls', 'xlmr_tokcls']) {
      test(`${name}: a long text read with a stride: the windows and the merged entities match the pipeline`, async () => {
        const model = await sf.loadPretrained(folder(name));
        const row = texts(name).ner.find((r) => 'stride' in r);
        const windows = model.tokenizer.encodeTextWindows(row.text, row.max_length, row.stride);
        assert.deepEqual(windows.map((w) => Array.from(w.ids)), row.windows);
        assert.ok(row.windows.length > 2, 'the text spans several windows');
        for (const [agg, want] of Object.entries(row.stride_results)) {
          const options = { aggregation: agg, maxLength: row.max_length, stride: row.stride };
          assertEntities(model.tokenClassify(row.text, options), want, `stride ${agg}`);
          // In a batch with a short text (windows of both texts share the forward passes).
          const [alone, long] = model.tokenClassify([texts(name).ner[2].text, row.text], { ...options, batchSize: 3 });
          assertEntities(long, want, `stride ${agg} in a batch`);
          assertEntities(alone, model.tokenClassify(texts(name).ner[2].text, options).map((e) => ({ ...e, entity_group: e.entityGroup })), `short text beside it (${agg})`);
        }
        // Without a stride the text is cut at maxLength (truncation=True): only the first window's entities.
        const cut = model.tokenClassify(row.text, { aggregation: 'simple', maxLength: row.max_length });
        assert.ok(cut.every((e) => e.end <= windows[0].offsets.at(-2)[1]));
        assert.throws(() => model.tokenClassify(row.text, { stride: 2 }), isError('invalid_argument', /aggregation other than 'none'/));
        assert.throws(() => model.tokenClassify(row.text, { aggregation: 'simple', maxLength: row.max_length, stride: row.max_length }),
          isError('invalid_argument', /stride 12 must be less than the (9|10) tokens each window holds/));
        assert.throws(() => model.tokenClassify(row.text, { aggregation: 'simple', stride: -1 }), SimdformerError);
        model.dispose();
      });
    }

    test('the bundled fortune-topics classifier: tokens and probabilities as PyTorch gives them on the shipped F16 weights', async () => {
      const model = await sf.loadPretrained(bundledModelUrl('fortune-topics'));
      const metrics = JSON.parse(readFileSync(new URL('metrics.json', bundledModelUrl('fortune-topics')), 'utf8'));
      assert.deepEqual(model.info.labels, metrics.labels);
      assert.ok(metrics.test.accuracy > metrics.test.baseline_majority_label.accuracy + 0.15, 'it learned more than the majority label');
      for (const ex of metrics.examples) {
        assert.deepEqual(Array.from(model.tokenizer.encodeOne(ex.text, model.maxLength).ids), ex.ids, ex.text);
        const [{ predictions }] = model.classify([ex.text], { topK: null });
        for (const p of predictions) close(p.score, ex.probabilities[p.label], `${ex.text}: ${p.label}`);
      }
      model.dispose();
    });

    test('bert_tokcls: entities span several word pieces; options are checked', async () => {
      const model = await sf.loadPretrained(folder('bert_tokcls'));
      const simple = texts('bert_tokcls').ner.flatMap((r) => r.results?.simple ?? []);
      assert.ok(simple.some((e) => e.word.includes('##') || e.end - e.start > 4));
      assert.throws(() => model.tokenClassify('x', { aggregation: 'longest' }), SimdformerError);
      // Any case, as the pipeline's AggregationStrategy[aggregation_strategy.upper()].
      const text = texts('bert_tokcls').ner[0].text;
      for (const agg of ['simple', 'first', 'average', 'max', 'none']) {
        for (const spelled of [agg.toUpperCase(), agg[0].toUpperCase() + agg.slice(1)]) {
          assert.deepEqual(model.tokenClassify(text, { aggregation: spelled }), model.tokenClassify(text, { aggregation: agg }), spelled);
        }
      }
      assert.throws(() => model.tokenClassify('x', { aggregation: 'SIMPLEX' }), isError('invalid_argument', /aggregation must be .* \(any case\), got 'SIMPLEX'/));
      assert.throws(() => model.tokenClassify('x', { ignoreLabels: 'O' }), SimdformerError);
      assert.throws(() => model.tokenClassify([['a', 'b']]), SimdformerError);
      assert.deepEqual(model.tokenClassify([]), []);  // as the pipeline: once per element of a list
      model.dispose();
    });

    for (const name of ['bert_qa', 'roberta_qa', 'distilbert_qa']) {
      test(`${name}: windows and answers match the pipeline`, async () => {
        const model = await sf.loadPretrained(folder(name));
        assert.equal(model.info.has_qa_head, true);
        for (const row of texts(name).qa) {
          const windows = model.tokenizer.encodeWindows(row.question, row.context, row.max_seq_len, row.doc_stride);
          assert.deepEqual(windows.map((w) => Array.from(w.ids)), row.windows, `${row.question}: windows`);
          const o = qaOptions(row.options);
          const got = model.answer(row.question, row.context, o);
          assertAnswers((o.topK ?? 1) === 1 ? [got] : got, row.answers, row.question);
          // The batch size does not change the answers.
          const one = model.answer(row.question, row.context, { ...o, batchSize: 1 });
          assertAnswers((o.topK ?? 1) === 1 ? [one] : one, row.answers, `${row.question} batchSize 1`);
        }
        model.dispose();
      });
    }

    test('answer: errors for empty inputs, long questions, strides and missing heads', async () => {
      const model = await sf.loadPretrained(folder('bert_qa'));
      const { question, context } = texts('bert_qa').qa[0];
      assert.throws(() => model.answer('', context), isError('invalid_argument', /question is empty/));
      assert.throws(() => model.answer(question, '  '), isError('invalid_argument', /context is empty/));
      const long = 'where did the quick brown fox jump over the lazy dog near the river and the old mountain today ?';
      assert.throws(() => model.answer(long + ' ' + long, context), isError('invalid_argument', /question has \d+ tokens.*no room for the context/));
      assert.throws(() => model.answer(question, context, { docStride: 39 }), isError('invalid_argument', /docStride 39 must be less than the \d+ context tokens/));
      assert.throws(() => model.answer(question, context, { docStride: 50, maxSeqLen: 40 }), isError('invalid_argument', /larger than maxSeqLen/));
      assert.throws(() => model.answer(question, context, { maxSeqLen: 41 }), SimdformerError);
      assert.throws(() => model.answer(question, context, { top_k: 2 }), /unknown option 'top_k'/);
      model.dispose();
      const bare = await sf.loadPretrained(folder('bert'));
      assert.throws(() => bare.answer(question, context), isError('unsupported', /no question-answering head; it has: pooler/));
      assert.throws(() => bare.tokenClassify('Hello'), isError('unsupported', /no token-classification head; it has: pooler/));
      assert.throws(() => bare.zeroShot('Hello', ['a']), isError('unsupported', /no sequence-classification head.*it has: pooler/));
      assert.throws(() => bare.rerank('Hello', ['a']), isError('unsupported', /no sequence-classification head.*it has: pooler/));
      bare.dispose();
      const tok = await sf.loadPretrained(folder('bert_tokcls'));
      assert.throws(() => tok.classify('Hello'), isError('unsupported', /no classification head; it has: token-classification head/));
      tok.dispose();
    });

    test('roberta_nli: zero-shot with the entailment column found by name', async () => {
      const model = await sf.loadPretrained(folder('roberta_nli'));
      const { entailment_id: ent, rows } = texts('roberta_nli').nli;
      assert.equal(ent, 0);
      for (const row of rows) {
        const pairs = row.labels.map((l) => [row.text, row.template.replace('{}', l)]);
        const enc = model.tokenizer.encodeBatch(pairs, model.maxLength);
        enc.sequences.forEach((s, k) => assert.deepEqual(Array.from(s.ids), row.pair_ids[k]));
        const logits = model.classify(pairs, { topK: null }).map((r) => Array.from(r.logits));
        logits.forEach((l, k) => l.forEach((x, j) => close(x, row.logits[k][j], `logit ${k},${j}`)));
        for (const [multiLabel, want] of [[false, row.single], [true, row.multi]]) {
          const got = model.zeroShot(row.text, row.labels, { hypothesisTemplate: row.template, multiLabel });
          assert.equal(got.sequence, row.text);
          assert.deepEqual(got.labels, want.labels);
          got.scores.forEach((s, k) => close(s, want.scores[k], `${row.text} ${multiLabel} score ${k}`));
        }
      }
      // Labels as a comma-separated string, as the pipeline parses them; a batch of texts.
      const row = rows[0];
      assert.deepEqual(model.zeroShot(row.text, row.labels.join(' , ')).labels, row.single.labels);
      assert.equal(model.zeroShot([row.text, row.text], row.labels).length, 2);
      assert.deepEqual(model.zeroShot([], row.labels), []);
      assert.throws(() => model.zeroShot(row.text, []), isError('invalid_argument', /at least one candidate label/));
      assert.throws(() => model.zeroShot(row.text, ' , '), isError('invalid_argument', /at least one candidate label/));
      assert.throws(() => model.zeroShot(row.text, ['a'], { hypothesisTemplate: 'no slot' }), isError('invalid_argument', /has no \{\}/));
      model.dispose();
      // The scores are a softmax shifted by its max: logits past 709 (where Math.exp overflows
      // to Infinity, and Infinity / Infinity is NaN) give the right finite scores.
      const { zeroShotScores } = await import('../../dist/lib/zero-shot.mjs');
      const big = Float32Array.of(800, 0, -5, 790, 0, 795);  // 2 candidates x [entailment, neutral, contradiction]
      const single = zeroShotScores(big, 3, ['a', 'b'], 0, false);
      assert.deepEqual(single.labels, ['a', 'b']);
      close(single.scores[0], 1 / (1 + Math.exp(-10)), 'single a');
      close(single.scores[1], Math.exp(-10) / (1 + Math.exp(-10)), 'single b');
      const multi = zeroShotScores(big, 3, ['a', 'b'], 0, true);
      close(multi.scores[0], 1, 'multi a');
      close(multi.scores[1], Math.exp(-5) / (1 + Math.exp(-5)), 'multi b');
      // The same weights with the labels renamed: no entailment label is an error, and a moved
      // entailment label moves the column (not an assumed index).
      const none = await sf.loadPretrained(withConfig('roberta_nli', (c) => {
        c.id2label = { 0: 'yes', 1: 'maybe', 2: 'no' };
        c.label2id = { yes: 0, maybe: 1, no: 2 };
      }));
      assert.throws(() => none.zeroShot(row.text, row.labels), isError('unsupported', /labels \(yes, maybe, no\) have no entailment label/));
      none.dispose();
      const moved = await sf.loadPretrained(withConfig('roberta_nli', (c) => {
        c.id2label = { 0: 'contradiction', 1: 'neutral', 2: 'ENTAILMENT' };
        c.label2id = { contradiction: 0, neutral: 1, ENTAILMENT: 2 };
      }));
      const got = moved.zeroShot(row.text, row.labels, { hypothesisTemplate: row.template, multiLabel: true });
      const e = row.logits.map((l) => Math.exp(l[2]) / (Math.exp(l[2]) + Math.exp(l[0])));
      got.labels.forEach((label, k) => close(got.scores[k], e[row.labels.indexOf(label)], `moved ${label}`));
      moved.dispose();
    });

    test('repeated task calls and their errors leave no memory behind', async () => {
      const run = async (name, call) => {
        const model = await sf.loadPretrained(folder(name));
        call(model);  // the first call sizes the workspace
        const base = sf.mallocBytes;
        for (let i = 0; i < 5; i++) call(model);
        assert.equal(sf.mallocBytes, base, name);
        model.dispose();
      };
      const ner = texts('bert_tokcls').ner.map((r) => r.text);
      await run('bert_tokcls', (m) => { m.tokenClassify(ner, { aggregation: 'average' }); assert.throws(() => m.answer('q', 'c')); });
      const { question, context } = texts('bert_qa').qa[0];
      await run('bert_qa', (m) => { m.answer(question, context, { topK: 3 }); assert.throws(() => m.answer(question, context, { docStride: 39 })); });
      await run('roberta_nli', (m) => { m.zeroShot(['a b', 'c'], ['x', 'y', 'z'], { multiLabel: true }); assert.throws(() => m.zeroShot('a', [])); });
      await run('bert_reranker', (m) => { m.rerank('q', ['a', 'b', 'c']); assert.throws(() => m.rerank('q', [])); });
    });

    test('bert_reranker: the cross-encoder order and sigmoid scores', async () => {
      const model = await sf.loadPretrained(folder('bert_reranker'));
      const r = texts('bert_reranker').rerank;
      const enc = model.tokenizer.encodeBatch(r.documents.map((d) => [r.query, d]), model.maxLength);
      enc.sequences.forEach((s, k) => assert.deepEqual(Array.from(s.ids), r.pair_ids[k]));
      const ranked = model.rerank(r.query, r.documents);
      assert.deepEqual(ranked.map((x) => x.index), r.ranked.map((x) => x.index));
      ranked.forEach((x, k) => close(x.score, r.ranked[k].score, `score ${k}`));
      assert.deepEqual(model.rerank(r.query, r.documents, { topK: 2, batchSize: 2 }).map((x) => x.index), r.top2.map((x) => x.index));
      assert.throws(() => model.rerank(r.query, []), (e) => e instanceof SimdformerError && /documents is empty/.test(e.message));
      assert.throws(() => model.rerank(r.query, 'doc'), SimdformerError);
      model.dispose();
      const multi = await sf.loadPretrained(folder('roberta_nli'));
      assert.throws(() => multi.rerank('q', ['d']), (e) => e.code === 'unsupported' && /one-label cross-encoder.*3 labels/.test(e.message));
      multi.dispose();
    });

    // sentence-transformers' CrossEncoder takes its activation from config.json: the ms-marco
    // rerankers' sbert_ce_default_activation_function Identity gives the raw logits as scores,
    // and v4's sentence_transformers.activation_fn comes first.
    test('bert_reranker: the activation the CrossEncoder config names', async () => {
      const r = texts('bert_reranker').rerank;
      const byLogit = r.logits.map((x, index) => ({ index, x })).sort((a, b) => b.x - a.x);
      const scored = async (change) => {
        const model = await sf.loadPretrained(withConfig('bert_reranker', change));
        try { return model.rerank(r.query, r.documents); } finally { model.dispose(); }
      };
      const identity = await scored((c) => { c.sbert_ce_default_activation_function = 'torch.nn.modules.linear.Identity'; });
      assert.deepEqual(identity.map((x) => x.index), byLogit.map((x) => x.index));
      identity.forEach((x, k) => close(x.score, byLogit[k].x, `identity score ${k}`));
      const v4 = await scored((c) => {
        c.sbert_ce_default_activation_function = 'torch.nn.modules.linear.Identity';
        c.sentence_transformers = { activation_fn: 'torch.nn.modules.activation.Sigmoid', version: '4.0.1' };
      });
      v4.forEach((x, k) => close(x.score, r.ranked[k].score, `v4 sigmoid score ${k}`));
      const tanh = await scored((c) => { c.sentence_transformers = { activation_fn: 'torch.nn.modules.activation.Tanh' }; });
      tanh.forEach((x, k) => close(x.score, Math.tanh(byLogit[k].x), `tanh score ${k}`));
      // The same classes by their short torch.nn paths, which CrossEncoder imports just as well.
      const short = await scored((c) => { c.sbert_ce_default_activation_function = 'torch.nn.Identity'; });
      short.forEach((x, k) => close(x.score, byLogit[k].x, `torch.nn.Identity score ${k}`));
      const shortTanh = await scored((c) => { c.sentence_transformers = { activation_fn: 'torch.nn.Tanh' }; });
      shortTanh.forEach((x, k) => close(x.score, Math.tanh(byLogit[k].x), `torch.nn.Tanh score ${k}`));
      // A class outside torch is what CrossEncoder skips without trust_remote_code: the default.
      const untrusted = await scored((c) => { c.sbert_ce_default_activation_function = 'my_package.Scaled'; });
      untrusted.forEach((x, k) => close(x.score, r.ranked[k].score, `untrusted -> sigmoid score ${k}`));
      await assert.rejects(scored((c) => { c.sbert_ce_default_activation_function = 'torch.nn.modules.activation.Softplus'; }),
        isError('unsupported', /Softplus is not supported/));
    });
  });
}
