// Batches in length groups (bindings/js/lib/length-groups.mjs): embed, classify, tokenClassify,
// zeroShot and rerank run the texts of a batch in groups of similar lengths, each padded to its
// own longest, and each text's result equals the text run alone, bit for bit (SIMD128 and scalar
// builds, f32 and int8 weights; scripts/test-native.sh runs it on the addon); the grouping is the
// cheapest one under its cost model and keeps batchSize.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { CALL_ROWS, lengthGroups } from '../../dist/lib/length-groups.mjs';
import { DATA } from './helpers.mjs';

const folder = (name) => join(DATA, 'hf', name);
// From 2 tokens (the empty text: [CLS] [SEP]) to 40, in no order of length.
const TEXTS = [
  'The quick brown fox jumps over the lazy dog.',
  'Hello, world!',
  'Transformers are walking quickly, aren\'t they? The quick brown fox jumps over the lazy dog, and the lazy dog sleeps on.',
  '',
  'It\'s 2024 and we\'re testing   spaces ',
  'How old are you?',
  'naïve résumé über 東京 and the cat sat on the mat.',
  'The cat sat.',
];
const bits = (a) => Array.from(new Uint32Array(Float32Array.from(a).buffer));

describe('lengthGroups', () => {
  test('cuts the sorted lengths where a cut saves more padded rows than a call costs', () => {
    // bench/native.mjs's eight sentences: one padded batch runs 8 x 46 = 368 rows for 170.
    const lengths = [13, 21, 6, 46, 28, 15, 19, 22];
    const groups = lengthGroups(lengths, 32);
    assert.deepEqual(groups.flat().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7]);
    const rows = (gs) => gs.reduce((sum, g) => sum + g.length * Math.max(...g.map((i) => lengths[i])) + CALL_ROWS, 0);
    // The cheapest cut, by exhaustion over the 2^7 cuts of the sorted order.
    const sorted = [...lengths.keys()].sort((a, b) => lengths[a] - lengths[b]);
    let best = Infinity;
    for (let mask = 0; mask < 128; mask++) {
      const gs = [[sorted[0]]];
      for (let k = 1; k < 8; k++) (mask >> (k - 1)) & 1 ? gs.push([sorted[k]]) : gs.at(-1).push(sorted[k]);
      best = Math.min(best, rows(gs));
    }
    assert.equal(rows(groups), best);
    assert.ok(rows(groups) < 368 + CALL_ROWS, `${rows(groups)} rows`);
    assert.deepEqual(lengthGroups([5, 5, 5, 5], 32), [[0, 1, 2, 3]], 'equal lengths: one call');
  });

  test('keeps batchSize, and never leaves texts of no tokens alone in a group', () => {
    const lengths = Array.from({ length: 100 }, (_, i) => (i * 37) % 50);
    for (const size of [1, 3, 7, 32]) {
      const groups = lengthGroups(lengths, size);
      assert.ok(groups.every((g) => g.length >= 1 && g.length <= size));
      assert.deepEqual(groups.flat().sort((a, b) => a - b), [...lengths.keys()]);
    }
    const groups = lengthGroups([0, 0, 9, 3], 8);
    assert.ok(groups.every((g) => g.some((i) => [9, 3][i - 2] > 0)), JSON.stringify(groups));
    assert.deepEqual(lengthGroups([0, 0], 8), [[0, 1]]);
    assert.deepEqual(lengthGroups([0, 0, 0, 4], 2).flat().sort(), [0, 1, 2, 3]);  // more empty texts than a group holds
    assert.deepEqual(lengthGroups([], 8), []);
  });
});

for (const simd of [true, false]) {
  describe(`${simd ? 'SIMD128' : 'scalar'} build: a batch in length groups equals each text alone, bit for bit`, async () => {
    const sf = await init({ simd });
    for (const weights of ['f32', 'int8']) {
      test(`embed, classify, tokenClassify, zeroShot and rerank (${weights})`, async () => {
        const encoder = await sf.loadPretrained(folder('bert'), { weights });
        const lengths = encoder.encodeText(TEXTS).map((s) => s.length);
        assert.ok(lengthGroups(lengths, 32).length > 1, `the texts (${lengths}) run in more than one group`);
        const together = encoder.embed(TEXTS);
        TEXTS.forEach((t, i) => assert.deepEqual(bits(together[i]), bits(encoder.embed(t)), `embedding ${i}`));
        const small = encoder.embed(TEXTS, { batchSize: 3 });
        TEXTS.forEach((_, i) => assert.deepEqual(bits(small[i]), bits(together[i]), `embedding ${i}, batchSize 3`));
        encoder.dispose();

        const classifier = await sf.loadPretrained(folder('bert_seqcls'), { weights });
        const labels = classifier.classify(TEXTS, { topK: null });
        TEXTS.forEach((t, i) => {
          const alone = classifier.classify(t, { topK: null });
          assert.deepEqual(bits(labels[i].logits), bits(alone.logits), `logits ${i}`);
          assert.deepEqual(labels[i].predictions, alone.predictions);
        });
        classifier.dispose();

        const tagger = await sf.loadPretrained(folder('bert_tokcls'), { weights });
        const entities = tagger.tokenClassify(TEXTS);
        TEXTS.forEach((t, i) => assert.deepEqual(entities[i], tagger.tokenClassify(t), `entities ${i}`));
        tagger.dispose();

        const nli = await sf.loadPretrained(folder('roberta_nli'), { weights });
        const topics = ['animals', 'technology', 'the weather and the seasons of the year'];
        const zeroShot = nli.zeroShot(TEXTS, topics, { multiLabel: true });
        TEXTS.forEach((t, i) => assert.deepEqual(zeroShot[i], nli.zeroShot(t, topics, { multiLabel: true }), `zero-shot ${i}`));
        nli.dispose();

        const reranker = await sf.loadPretrained(folder('bert_reranker'), { weights });
        const ranked = reranker.rerank('How old is the lazy dog?', TEXTS);
        assert.deepEqual(ranked.map((r) => r.index).sort((a, b) => a - b), [...TEXTS.keys()]);
        for (const { index, score } of ranked) {
          assert.equal(score, reranker.rerank('How old is the lazy dog?', [TEXTS[index]])[0].score, `document ${index}`);
        }
        reranker.dispose();
      });
    }
  });
}
