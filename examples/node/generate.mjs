// Greedy decoding with an encoder-decoder model; prints the tokens and the cross-attention
// (which source position each generated token looked at).
//   node examples/node/generate.mjs [model.safetensors config.json] [tokens...]
import { readFile } from 'node:fs/promises';

import { init } from '../../dist/node.mjs';  // in your project: from 'simdformer'

const args = process.argv.slice(2);
const files = args.filter((a) => !/^\d+$/.test(a));
const src = args.filter((a) => /^\d+$/.test(a)).map(Number);
const [modelPath = new URL('../../tests/data/seq2seq.safetensors', import.meta.url).pathname,
       configPath = new URL('../../tests/data/seq2seq.json', import.meta.url).pathname] = files;
const sf = await init();
const model = await sf.loadModel(modelPath, JSON.parse(await readFile(configPath, 'utf8')));
const input = src.length ? src : [3, 4, 5, 6, 7, 8];
const r = model.generate(input, { maxLength: 10, returnAttention: 'mean' });
console.log(`source ${input.join(' ')} -> ${Array.from(r.tokens).join(' ')}`);
const cross = r.crossAttentions.at(-1)[0];
const [nq, nk] = cross.shape;
for (let q = 0; q < nq; q++) {
  const row = Array.from(cross.data.subarray(q * nk, (q + 1) * nk));
  console.log(`  step ${q} (token ${r.tokens[q]}) attends to source position ${row.indexOf(Math.max(...row))}`);
}
model.dispose();
