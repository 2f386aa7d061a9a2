// TextModel.classify on the ...ForSequenceClassification fixtures (tests/data/hf/*_seqcls*):
// logits against the PyTorch reference (<= 1e-4), labels and scores against the reference's
// text-classification pipeline post-processing (texts.json "classify"), topK, pairs, the
// function each problem type gets, and the error of a checkpoint without the head.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, maxAbsDiff, readTensors } from './helpers.mjs';

const HF = join(DATA, 'hf');
const TOL = 1e-4;
const CASES = ['bert_seqcls', 'roberta_seqcls_multilabel', 'distilbert_seqcls_regression', 'xlmr_seqcls'];
const folder = (name) => join(HF, name);
const texts = (name) => JSON.parse(readFileSync(join(HF, name, 'texts.json'), 'utf8'));
const json = (name, file) => JSON.parse(readFileSync(join(HF, name, file), 'utf8'));

// The same folder with its config.json changed: an in-memory source.
function withConfig(name, change) {
  const config = json(name, 'config.json');
  change(config);
  return {
    config, weights: readFileSync(join(HF, name, 'model.safetensors')),
    tokenizer: json(name, 'tokenizer.json'), tokenizerConfig: json(name, 'tokenizer_config.json'),
  };
}

function assertPredictions(got, want) {
  assert.deepEqual(got.map((p) => p.label), want.map((p) => p.label));
  got.forEach((p, i) => assert.ok(Math.abs(p.score - want[i].score) <= TOL, `${p.label}: ${p.score} vs ${want[i].score}`));
}

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build: classify`, async () => {
    const sf = await init({ simd });

    for (const name of CASES) {
      test(`${name}: logits, labels and scores match the reference pipeline`, async () => {
        const g = readTensors(join(folder(name), 'golden.safetensors'));
        const { batch, classify } = texts(name);
        const model = await sf.loadPretrained(folder(name));
        const L = model.info.num_labels;
        assert.equal(model.info.has_classifier, true);
        assert.equal(L, g.classifier_logits.shape[1]);
        const all = model.classify(batch, { topK: null });
        const top = model.classify(batch);
        assert.equal(all.length, batch.length);
        all.forEach((r, b) => {
          assert.ok(r.logits instanceof Float32Array);
          assert.ok(maxAbsDiff(r.logits, g.classifier_logits.data.slice(b * L, (b + 1) * L)) <= TOL, `row ${b} logits`);
          assertPredictions(r.predictions, classify.rows[b].all);
          assertPredictions(top[b].predictions, classify.rows[b].top1);
          assert.equal(r.truncated, false);
        });
        model.dispose();
      });
    }

    for (const name of CASES) {
      test(`${name}: returnAttention gives the deciding position's rows and the rollout of the reference`, async () => {
        const g = readTensors(join(folder(name), 'golden.safetensors'));
        const { batch, classify, lengths } = texts(name);
        const model = await sf.loadPretrained(folder(name));
        const { n_layers: layers, n_heads: heads } = model.info;
        const n = g.input_ids.shape[1];
        const plain = model.classify(batch);
        assert.equal(plain[0].attention, undefined);
        model.classify(batch, { returnAttention: true }).forEach((r, b) => {
          const len = lengths[b];
          assert.equal(r.attention.position, 0);
          assert.deepEqual(r.tokens, model.encodeText([batch[b]])[0].tokens);
          assert.equal(r.attention.heads.length, layers);
          for (let l = 0; l < layers; l++) {
            const golden = g[`attentions.${l}`].data;  // [B, heads, n, n]
            for (let h = 0; h < heads; h++) {
              const want = golden.subarray(((b * heads + h) * n) * n, ((b * heads + h) * n) * n + len);
              assert.ok(maxAbsDiff(r.attention.heads[l][h], want) <= TOL, `layer ${l} head ${h}`);
            }
          }
          assert.ok(maxAbsDiff(r.attention.rollout, Float32Array.from(classify.rows[b].rollout_token0)) <= TOL, `row ${b} rollout`);
          assert.ok(Math.abs(r.attention.rollout.reduce((a, x) => a + x, 0) - 1) < 1e-5, 'the rollout row sums to 1');
          plain[b].logits.forEach((x, i) => assert.ok(Math.abs(x - r.logits[i]) <= 1e-6, 'the same logits with the maps recorded'));
        });
        assert.throws(() => model.classify('x', { returnAttention: 'mean' }), SimdformerError);
        model.dispose();
      });
    }

    test('bert_seqcls: labels follow id2label, topK, a single text, a pair as an item', async () => {
      const model = await sf.loadPretrained(folder('bert_seqcls'));
      assert.deepEqual(model.info.labels, ['negative', 'neutral', 'positive']);
      const { batch, classify } = texts('bert_seqcls');
      const one = model.classify(batch[0]);
      assert.ok(!Array.isArray(one));
      assert.notEqual(one.predictions[0].label, 'negative');  // the best label is not label 0
      assertPredictions(one.predictions, classify.rows[0].top1);
      assert.equal(model.classify(batch[0], { topK: 2 }).predictions.length, 2);
      assert.equal(model.classify(batch[0], { topK: 10 }).predictions.length, 3);
      const sum = model.classify(batch[0], { topK: null }).predictions.reduce((s, p) => s + p.score, 0);
      assert.ok(Math.abs(sum - 1) < 1e-9);
      // The third item of the batch is a pair; alone it gives the same answer as in the batch.
      assert.deepEqual(batch[2].length, 2);
      const pair = model.classify([batch[2]], { topK: null })[0];
      assertPredictions(pair.predictions, classify.rows[2].all);
      const swapped = model.classify([[batch[2][1], batch[2][0]]])[0];
      assert.notDeepEqual(Array.from(swapped.logits), Array.from(pair.logits));
      // functionToApply overrides the default; logits are the same whatever it is.
      const raw = model.classify(batch[0], { functionToApply: 'none', topK: null });
      assert.deepEqual(raw.predictions.map((p) => p.score).sort(), Array.from(raw.logits, (x) => x).sort());
      for (const bad of [-1, 1.5, '2']) assert.throws(() => model.classify('x', { topK: bad }), SimdformerError);
      assert.deepEqual(model.classify('x', { topK: 0 }).predictions, []);  // the pipeline's scores[:0]
      assert.throws(() => model.classify('x', { functionToApply: 'tanh' }), SimdformerError);
      // Any case, as the pipeline's ClassificationFunction[function_to_apply.upper()].
      for (const fn of ['softmax', 'sigmoid', 'none']) {
        for (const spelled of [fn.toUpperCase(), fn[0].toUpperCase() + fn.slice(1)]) {
          assert.deepEqual(model.classify(batch[0], { functionToApply: spelled, topK: null }), model.classify(batch[0], { functionToApply: fn, topK: null }), spelled);
        }
      }
      assert.throws(() => model.classify('x', { functionToApply: 'SIGMOIDS' }), /functionToApply must be .* \(any case\), got 'SIGMOIDS'/);
      assert.throws(() => model.classify('x', { top_k: 2 }), /unknown option 'top_k'/);
      assert.deepEqual(model.classify([]), []);  // the pipeline runs once per element of a list
      assert.deepEqual(model.embed([]), []);
      assert.throws(() => model.classify([['a']]), SimdformerError);
      model.dispose();
    });

    test('one label: regression is the score as is, without problem_type the pipeline applies sigmoid', async () => {
      const name = 'distilbert_seqcls_regression';
      const regression = await sf.loadPretrained(folder(name));
      assert.equal(regression.info.problem_type, 'regression');
      const text = texts(name).batch[1];
      const r = regression.classify(text);
      assert.deepEqual(r.predictions.map((p) => p.label), ['LABEL_0']);
      assert.equal(r.predictions[0].score, r.logits[0]);
      const plain = await sf.loadPretrained(withConfig(name, (c) => { delete c.problem_type; }));
      const s = plain.classify(text).predictions[0].score;
      assert.ok(Math.abs(s - 1 / (1 + Math.exp(-r.logits[0]))) < 1e-12);
      regression.dispose();
      plain.dispose();
    });

    test('multi-label scores are independent sigmoids; id2label gaps are LABEL_<i>', async () => {
      const name = 'roberta_seqcls_multilabel';
      const multi = await sf.loadPretrained(folder(name));
      const r = multi.classify(texts(name).batch[0], { topK: null });
      for (const p of r.predictions) {
        const i = multi.info.labels.indexOf(p.label);
        assert.ok(Math.abs(p.score - 1 / (1 + Math.exp(-r.logits[i]))) < 1e-12);
      }
      multi.dispose();
      const gap = await sf.loadPretrained(withConfig(name, (c) => { c.id2label = { 0: 'sports', 1: 'politics', 3: 'art', 9: 'x' }; }));
      assert.deepEqual(gap.info.labels, ['sports', 'politics', 'LABEL_2', 'art']);
      gap.dispose();
    });

    test('a checkpoint without the head says what it has', async () => {
      const cases = [['bert', /it has: pooler\b/], ['roberta', /it has: masked-LM head/], ['gpt2', /it has: LM head/]];
      for (const [name, what] of cases) {
        const model = await sf.loadPretrained(folder(name));
        assert.equal(model.info.has_classifier, false);
        assert.throws(() => model.classify('Hello'), (e) => e instanceof SimdformerError && e.code === 'unsupported' &&
          /no classification head/.test(e.message) && what.test(e.message));
        model.dispose();
      }
      const token = await sf.loadPretrained(withConfig('bert_seqcls', (c) => { c.architectures = ['BertForTokenClassification']; }));
      // Under BertForTokenClassification the same `classifier` tensors are a token classifier.
      assert.throws(() => token.classify('Hello'), /it has: pooler, token-classification head.*BertForTokenClassification/);
      token.dispose();
      await assert.rejects(sf.loadPretrained(withConfig('bert_seqcls', (c) => { c.id2label = { 0: 'a', zero: 'b', 2: 'c' }; })),
        (e) => e instanceof SimdformerError && /id2label/.test(e.message));
    });
  });
}
