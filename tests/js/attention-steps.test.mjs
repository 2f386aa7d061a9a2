// TextModel.attentionSteps (the demo's step-by-step view): the engine's q, k, v, weights and
// per-head output for one layer and head equal the PyTorch reference
// (tests/data/attention-steps/<case>.safetensors, made by scripts/fixtures/make_attention_steps.py; GPT-2
// with its causal mask)
// within 1e-4, in the SIMD and the scalar build; the scores it derives give back the weights.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, maxAbsDiff, readTensors } from './helpers.mjs';

const TOL = 1e-4;
const CASES = ['bert', 'distilbert', 'roberta', 'gpt2'];

// Columns head*dh .. (head+1)*dh of a [n, d] reference tensor.
function headColumns(t, head, dh) {
  const [n, d] = t.shape;
  const out = new Float32Array(n * dh);
  for (let i = 0; i < n; i++) out.set(t.data.subarray(i * d + head * dh, i * d + (head + 1) * dh), i * dh);
  return out;
}

const headBlock = (t, head) => {
  const [, n] = t.shape;
  return t.data.slice(head * n * n, (head + 1) * n * n);
};

for (const simd of [true, false]) {
  describe(`attentionSteps (${simd ? 'SIMD128' : 'scalar'})`, () => {
    let sf;
    before(async () => { sf = await init({ simd }); });

    for (const name of CASES) {
      test(`${name}: every layer and head equals the PyTorch reference`, async () => {
        const model = await sf.loadPretrained(join(DATA, 'hf', name));
        try {
          const golden = readTensors(join(DATA, 'attention-steps', `${name}.safetensors`));
          const text = JSON.parse(readFileSync(join(DATA, 'hf', name, 'texts.json'), 'utf8')).tokenizer.single[0].text;
          const { n_layers: layers, n_heads: heads, d_model: d } = model.info;
          const dh = d / heads;
          for (let layer = 0; layer < layers; layer++) {
            for (let head = 0; head < heads; head++) {
              const s = model.attentionSteps(text, { layer, head });
              assert.deepEqual(Array.from(s.ids), golden.input_ids.data, 'the text tokenizes as the reference did');
              const n = s.ids.length;
              assert.equal(s.dHead, dh);
              for (const key of ['q', 'k', 'v', 'context']) {
                const diff = maxAbsDiff(s[key], headColumns(golden[`${key}.${layer}`], head, dh));
                assert.ok(diff <= TOL, `${name} layer ${layer} head ${head} ${key}: max |diff| ${diff}`);
              }
              const diff = maxAbsDiff(s.weights, headBlock(golden[`weights.${layer}`], head));
              assert.ok(diff <= TOL, `${name} layer ${layer} head ${head} weights: max |diff| ${diff}`);
              // softmax of the derived scores is the engine's weights; Σ α v is its output.
              for (let i = 0; i < n; i++) {
                const row = Array.from(s.scores.subarray(i * n, (i + 1) * n));
                const m = Math.max(...row);
                const e = row.map((x) => Math.exp(x - m));
                const z = e.reduce((a, b) => a + b, 0);
                e.forEach((x, j) => assert.ok(Math.abs(x / z - s.weights[i * n + j]) < 1e-5, `softmax(scores) row ${i} col ${j}`));
                for (let c = 0; c < dh; c++) {
                  let sum = 0;
                  for (let j = 0; j < n; j++) sum += s.weights[i * n + j] * s.v[j * dh + c];
                  assert.ok(Math.abs(sum - s.context[i * dh + c]) < 1e-4, `Σ α v row ${i} col ${c}`);
                }
              }
              for (let i = 0; i < n; i++) {
                for (let j = 0; j < n; j++) {
                  const visible = name !== 'gpt2' || j <= i;  // GPT-2 is causal; encoders see every key
                  assert.equal(s.mask[i * n + j], visible ? 1 : 0);
                  if (!visible) assert.equal(s.scores[i * n + j], -Infinity);
                }
              }
            }
          }
        } finally {
          model.dispose();
        }
      });
    }

    test('options are checked', async () => {
      const model = await sf.loadPretrained(join(DATA, 'hf', 'bert'));
      try {
        assert.throws(() => model.attentionSteps('hi', { layer: 2 }), (e) => e instanceof SimdformerError && /layer must be an integer in \[0, 1\]/.test(e.message));
        assert.throws(() => model.attentionSteps('hi', { head: -1 }), /head must be an integer in \[0, 3\]/);
        assert.throws(() => model.attentionSteps(['a', 'b']), /one text/);
        assert.throws(() => model.attentionSteps('hi', { query: 1 }), /unknown option 'query'/);
        // Plain encodes after a probed one are unaffected (the probe is per call).
        const a = model.encodeText('hello world', { returnAttention: true });
        model.attentionSteps('hello world', { layer: 1, head: 2 });
        const b = model.encodeText('hello world', { returnAttention: true });
        assert.deepEqual(b.lastHiddenState, a.lastHiddenState);
      } finally {
        model.dispose();
      }
    });
  });
}

