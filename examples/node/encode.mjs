// Encodes a batch of sequences of different lengths with an encoder and prints, for each
// sequence, which key every query attends to most in the last layer (mean over heads).
//   node examples/node/encode.mjs [model.safetensors config.json]
import { readFile } from 'node:fs/promises';

import { init } from '../../dist/node.mjs';  // in your project: from 'simdformer'

const [modelPath = new URL('../../tests/data/encoder.safetensors', import.meta.url).pathname,
       configPath = new URL('../../tests/data/encoder.json', import.meta.url).pathname] = process.argv.slice(2);
const sf = await init();
const model = await sf.loadModel(modelPath, JSON.parse(await readFile(configPath, 'utf8')));
const d = model.config.d_model;
const sequence = (n, seed) => Float32Array.from({ length: n * d }, (_, i) => Math.sin(seed * 7.1 + i * 0.37));

const t0 = performance.now();
const result = model.encode([sequence(5, 1), sequence(3, 2)], { returnAttention: 'mean' });
console.log(`${model.kind}, d_model=${d}, ${model.parameterCount} parameters, ${sf.simd ? 'SIMD128' : 'scalar'}: ${(performance.now() - t0).toFixed(2)} ms`);
result.sequences.forEach((s, b) => {
  const last = s.attentions.at(-1)[0];
  const [nq, nk] = last.shape;
  const strongest = Array.from({ length: nq }, (_, q) => {
    const row = last.data.subarray(q * nk, (q + 1) * nk);
    return row.indexOf(Math.max(...row));
  });
  console.log(`sequence ${b}: output ${JSON.stringify(s.shape)}, strongest key per query: ${strongest.join(' ')}`);
});
model.dispose();
