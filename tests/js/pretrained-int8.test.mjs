// loadPretrained(..., { weights: 'int8' }): the C++ loader's int8 weights reached from JS (the
// demo's f32 / int8 toggle). The model reports int8, holds fewer bytes, and its attention and
// hidden states stay close to the f32 model's (not equal: weights are rounded to 8 bits).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { DATA, maxAbsDiff } from './helpers.mjs';

test('int8 weights load through loadPretrained and stay close to f32', async () => {
  const sf = await init();
  const folder = join(DATA, 'hf', 'bert_mlm_f16');
  const text = 'The quick brown fox jumps over the lazy dog.';
  const base = sf.liveBytes;
  const f32 = await sf.loadPretrained(folder);
  const f32Bytes = sf.liveBytes - base;
  const int8 = await sf.loadPretrained(folder, { weights: 'int8' });
  const int8Bytes = sf.liveBytes - base - f32Bytes;
  try {
    assert.equal(f32.info.weights, 'f32');
    assert.equal(int8.info.weights, 'int8');
    assert.ok(int8Bytes < f32Bytes, `int8 holds ${int8Bytes} bytes, f32 ${f32Bytes}`);
    const a = f32.encodeText(text, { returnAttention: true });
    const b = int8.encodeText(text, { returnAttention: true });
    let attention = 0;
    a.attentions.forEach((heads, l) => heads.forEach((h, i) => { attention = Math.max(attention, maxAbsDiff(h.data, b.attentions[l][i].data)); }));
    assert.ok(attention > 0, 'int8 rounding changes the weights somewhat');
    assert.ok(attention < 0.05, `max attention difference ${attention}`);
    assert.ok(maxAbsDiff(a.lastHiddenState, b.lastHiddenState) < 0.25);
    await assert.rejects(sf.loadPretrained(folder, { weights: 'int4' }), /weights must be 'f32' or 'int8', got 'int4'/);
  } finally {
    f32.dispose();
    int8.dispose();
  }
});
