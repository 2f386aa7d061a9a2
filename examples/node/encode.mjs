// Encodes a batch of token sequences of different lengths (one call, padded and masked inside)
// and prints, for each sequence, which key every query attends to most in the last encoder
// layer (mean over heads). Without arguments it uses the digit-reversal encoder-decoder the
// package ships; any nn.Transformer-format model.safetensors + config.json works.
//   node examples/node/encode.mjs [model.safetensors config.json]
import { readFile } from 'node:fs/promises';

import { bundledModelUrl, init } from 'simdformer';

const reverse = bundledModelUrl('reverse');
const [modelPath = new URL('model.safetensors', reverse), configPath = new URL('config.json', reverse)] = process.argv.slice(2);
const sf = await init();
const model = await sf.loadModel(modelPath, JSON.parse(await readFile(configPath, 'utf8')));
const digits = (text) => Int32Array.from(text, (c) => 3 + Number(c));  // the reverse model's vocabulary: 0-9 -> 3-12

const t0 = performance.now();
const result = model.encode([digits('31415'), digits('271')], { returnAttention: 'mean' });
console.log(`${model.kind}, d_model ${model.config.d_model}, ${model.parameterCount} parameters, ${sf.simd ? 'SIMD128' : 'scalar'}: ${(performance.now() - t0).toFixed(2)} ms`);
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
