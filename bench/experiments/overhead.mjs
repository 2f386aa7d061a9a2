// Splits the tiny encoder-decoder's call time between the C++ forward pass (the Embind handle
// called directly, inputs already in wasm memory) and the JS API (validation, copies).
// Needs bench/.cache from `npm run bench`.   node bench/experiments/overhead.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { init } from '../../dist/node.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bytes = readFileSync(join(here, '..', '.cache', 'encdec_d64.safetensors'));
const config = readFileSync(join(here, '..', '.cache', 'encdec_d64.json'), 'utf8');
const time = (f, n = 2000) => {
  for (let i = 0; i < 200; i++) f();
  const t = performance.now();
  for (let i = 0; i < n; i++) f();
  return (performance.now() - t) / n;
};

const glue = await import('../../dist/simdformer.mjs');
const M = await glue.default({ wasmBinary: readFileSync(join(here, '..', '..', 'dist', 'simdformer.wasm')) });
const handle = new M.ModelHandle();
const file = M._malloc(bytes.length);
M.HEAPU8.set(bytes, file);
const error = handle.load(file, bytes.length, config);
if (error) throw new Error(error);
const n = 16, d = 64;
const src = M._malloc(n * d * 4), tgt = M._malloc(n * d * 4);
M.HEAPF32.fill(0.1, src >> 2, (src >> 2) + n * d);
M.HEAPF32.fill(0.2, tgt >> 2, (tgt >> 2) + n * d);
handle.reserve(1, n, n, false);
const seq = (ptr, causal) => ({ nSeq: n, embeddings: ptr, tokens: 0, keyPadding: 0, attnMask: 0, causal });
const args = { nBatch: 1, src: seq(src, false), tgt: seq(tgt, true), key: 0, value: 0, nSeqK: 0, keyPaddingK: 0,
               memory: 0, nSeqMemory: 0, memoryKeyPadding: 0, score: 'scaled-dot', normalize: 'softmax', needWeights: false, encoderOnly: false };
const cpp = time(() => handle.forward(args));

const sf = await init();
const model = await sf.loadModel(bytes, JSON.parse(config));
const s = new Float32Array(n * d).fill(0.1), t = new Float32Array(n * d).fill(0.2);
const js = time(() => model.forward(s, t));
console.log(`C++ forward via Embind: ${cpp.toFixed(4)} ms; model.forward(): ${js.toFixed(4)} ms; JS share ${(100 * (1 - cpp / js)).toFixed(1)}%`);
