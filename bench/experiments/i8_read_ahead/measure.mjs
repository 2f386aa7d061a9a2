// Times tile.cpp's variants in Node (run.sh builds it): ms per pass over 85 MB, medians of 7
// interleaved rounds, and the same tiles over 40 blocks that stay in cache (the compute alone).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const out = resolve(process.argv[2] ?? '../../../build/i8_read_ahead');
const m = await createRequire(import.meta.url)(`${out}/tile.cjs`)({ wasmBinary: readFileSync(`${out}/tile.wasm`) });
const bytes = 85 << 20, kc2 = 384;  // k = 768: BERT-base's blocks of 6 KiB
const b = m._alloc(bytes), a4 = m._alloc(kc2 * 16), a1 = m._alloc(kc2 * 4), c = m._alloc(256);
if (!b || !a4 || !a1 || !c) throw new Error('out of memory');
const variants = [
  ['the tiles alone', () => m._run(0, b, bytes, kc2, a4, a1, c)],
  ['next block touched first', () => m._run(1, b, bytes, kc2, a4, a1, c)],
  ['a line 2 KB ahead inside the tile', () => m._run(2, b, bytes, kc2, a4, a1, c)],
  ['touching alone', () => m._run(3, b, bytes, kc2, a4, a1, c)],
  // 40 blocks (240 KiB, in L2) run over and over until 85 MB of weights were read: the compute alone
  ['the tiles in cache', () => { for (let i = 0; i < Math.round(bytes / (40 * kc2 * 16)); i++) m._run(0, b, 42 * kc2 * 16 + 2048, kc2, a4, a1, c); }],
];
const times = variants.map(() => []);
for (let r = 0; r < 7; r++) variants.forEach(([, f], i) => { const t0 = performance.now(); f(); times[i].push(performance.now() - t0); });
const median = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
variants.forEach(([name], i) => console.log(`${name.padEnd(36)} ${median(times[i]).toFixed(2)} ms  ${(bytes / median(times[i]) / 1e6).toFixed(1)} GB/s`));
