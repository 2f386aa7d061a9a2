// Greedy decoding with an encoder-decoder: the digit-reversal model the package ships writes a
// digit string backwards; the cross-attention shows which source digit each output digit read
// (the anti-diagonal). Any nn.Transformer-format model.safetensors + config.json works too,
// with token ids as the source.
//   node examples/node/generate.mjs [model.safetensors config.json] [digits | token ids...]
import { readFile } from 'node:fs/promises';

import { bundledModelUrl, init } from 'simdformer';

const args = process.argv.slice(2);
const files = args.filter((a) => !/^\d+$/.test(a));
const numbers = args.filter((a) => /^\d+$/.test(a));
const reverse = bundledModelUrl('reverse');
const [modelPath = new URL('model.safetensors', reverse), configPath = new URL('config.json', reverse)] = files;
const bundled = files.length === 0;  // the bundled model's vocabulary: <pad> <bos> <eos> 0-9
const sf = await init();
const model = await sf.loadModel(modelPath, JSON.parse(await readFile(configPath, 'utf8')));

const input = bundled ? Array.from(numbers[0] ?? '20261130', (c) => 3 + Number(c)) : numbers.map(Number);
const r = model.generate(input, { maxLength: input.length + 2, returnAttention: 'mean' });
const show = (ids) => (bundled ? Array.from(ids, (t) => (t >= 3 ? String(t - 3) : ['<pad>', '<bos>', '<eos>'][t])).join(' ') : Array.from(ids).join(' '));
console.log(`source ${show(input)} -> ${show(r.tokens)}`);
const cross = r.crossAttentions.at(-1)[0];  // last layer, mean over heads: [generated, source]
const [nq, nk] = cross.shape;
for (let q = 0; q < nq; q++) {
  const row = Array.from(cross.data.subarray(q * nk, (q + 1) * nk));
  console.log(`  step ${q} (${show([r.tokens[q]])}) attends most to source position ${row.indexOf(Math.max(...row))}`);
}
model.dispose();
