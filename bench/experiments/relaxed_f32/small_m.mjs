// Issue 29, session 22: GEMMs of 5 rows against weights streamed from memory (302 MB, the size of
// BERT-base's), the tile plans of small_m.c timed in one Chromium page (relaxed_madd k-loops).
// S0 is gemm.cpp's relaxed path (1 x 4 tiles stream each group of 6 panels for the last row, 2 x 3
// tiles compute the other four from cache): the memory pass (S6 alone: 26-27 GB/s, the machine's
// streaming speed) and the compute pass run one after the other. S2 (pairs of panels: 3 x 2 tiles
// stream a pair for three rows, 2 x 2 tiles the other two) took 0.91-0.93x S0's time here, S3
// (the same tiles over groups of 6) 1.00-1.02x; S3 in gemm.cpp gave the 5-token texts nothing
// end to end (BENCHMARKS.md "Session 22"), and S2's 2 x 2 main tile loses 1.4x wherever there are
// more rows, so neither landed. The rest are what else was tried: one tall
// 5 x 1 tile (S1, S4: spills), the main tiles touching the next group as they go (S10, S11: a
// software prefetch with loads, slower), a tile that streams one row of the next group while
// computing two from cache (S13, S14: slower), S0's tiles with the first 2 x 3 row pair streaming
// (S15: the same as S0; S16 is its streaming pass alone). S6-S9 stream alone (one row): the memory speed.
//   bash bench/experiments/relaxed_f32/small_m.sh && node bench/experiments/relaxed_f32/small_m.mjs
// (results must agree bit for bit: 'DIFFERENT' marks a plan that does not)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
function measure(bytes, K, panels, strategies) {
  const M = 5, N = panels * 8;
  const need = (K * N + 20 * K + M * N) * 4 + 65536;
  const memory = new WebAssembly.Memory({ initial: Math.ceil(need / 65536) + 1, maximum: 32768 });
  const ex = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(bytes)), { env: { memory } }).exports;
  const f = new Float32Array(memory.buffer);
  let off = 16;  // floats
  const alloc = (n) => { const p = off; off += n + 16; return p; };
  const A = Array.from({ length: M * K }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
  const pack = (rows) => { const p = alloc(rows.length * K); for (let k = 0; k < K; k++) rows.forEach((r, j) => { f[p + k * rows.length + j] = A[r * K + k]; }); return p; };
  const a1 = pack([4]), a2 = pack([0, 1]), a23 = pack([2, 3]), a34 = pack([3, 4]), a3 = pack([0, 1, 2]), a5 = pack([0, 1, 2, 3, 4]);
  const b = alloc(K * N); for (let i = 0; i < K * N; i++) f[b + i] = ((i * 2654435761) % 1000) / 1000 - 0.5;
  const c = alloc(M * N);
  const go = (s) => ex.run(s, 4 * a1, 4 * a2, 4 * a3, 4 * a5, 4 * ([0, 10, 11, 12, 13, 14, 15, 16].includes(s) ? a23 : a34), 4 * b, K, panels, 4 * c);
  const ref = []; const same = {};
  for (const s of strategies) { f.fill(0, c, c + M * N); go(s); const out = f.slice(c, c + M * N); if (!ref.length) ref.push(out); same[s] = [6, 7, 8, 9, 11, 12, 16].includes(s) || out.every((v, i) => v === ref[0][i]); }
  for (const s of strategies) for (let r = 0; r < 2; r++) go(s);
  const times = strategies.map(() => []);
  for (let round = 0; round < 15; round++) strategies.forEach((s, i) => { const t = performance.now(); go(s); times[i].push(performance.now() - t); });
  return strategies.map((s, i) => { const t = times[i].sort((x, y) => x - y)[7]; return `S${s} ${t.toFixed(2)} ms ${(K * N * 4 / t / 1e6).toFixed(1)} GB/s ${(2 * M * N * K / t / 1e6).toFixed(1)} GFLOP/s${same[s] ? '' : ' DIFFERENT'}`; });
}
const bytes = Array.from(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../build/relaxed_f32/small_m.wasm')));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
await page.goto('about:blank');
for (const [K, panels] of [[768, 6 * 2048], [3072, 6 * 512]]) {
  const r = await page.evaluate(`(${measure.toString()})(${JSON.stringify(bytes)}, ${K}, ${panels}, [0, 15, 2, 3, 1, 10, 13, 14, 6, 8, 16])`);
  console.log(`K ${K} panels ${panels} (${(K * panels * 32 / 1e6).toFixed(0)} MB):\n  ` + r.join('\n  '));
}
await browser.close();
