// Issue 29, the f32 ceiling: tile shapes for a relaxed_madd f32 kernel. tiles.c built by build.sh
// as R rows x P panels, each with SIMD128's mul + add and with relaxed_madd, timed interleaved in
// one Node and one Chromium page on a 128 x 768 x 768 product (rows cut to a multiple of R).
//   bash bench/experiments/relaxed_f32/build.sh
//   node --experimental-wasm-relaxed-simd bench/experiments/relaxed_f32/run.mjs build/relaxed_f32/*.wasm
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { chromium } from 'playwright-core';

function measure(mods, [M0, N, K]) {
  const memory = new WebAssembly.Memory({ initial: 1024 });
  const f = new Float32Array(memory.buffer);
  const aOff = 0, bOff = M0 * K, cOff = bOff + N * K;
  for (let i = 0; i < cOff; i++) f[i] = ((i * 2654435761) % 1000) / 1000 - 0.5;
  const runs = mods.map((m) => ({ ...m, run: new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(m.bytes)), { env: { memory } }).exports.main_tiles }));
  const gemm = (m) => { for (let jp = 0; jp + m.P <= N / 8; jp += m.P) m.run(4 * aOff, M0, K, 4 * (bOff + jp * K * 8), K * 8, 4 * (cOff + jp * 8), N, 8, 1); };
  for (const m of runs) for (const until = performance.now() + 300; performance.now() < until;) gemm(m);
  const times = runs.map(() => []);
  for (let round = 0; round < 31; round++) runs.forEach((m, i) => { const t = performance.now(); gemm(m); times[i].push(performance.now() - t); });
  return runs.map((m, i) => { const t = times[i].sort((x, y) => x - y)[15]; const M = Math.floor(M0 / m.R) * m.R; const Nn = Math.floor(N / 8 / m.P) * m.P * 8; return { name: m.name, ms: t, gflops: (2 * M * Nn * K) / (t * 1e6) }; });
}
const mods = process.argv.slice(2).map((p) => { const [, R, P, madd] = basename(p).match(/tiles_(\d)x(\d)_(\d)/); return { name: `${R}x${P} ${madd === '1' ? 'madd' : 'mul+add'}`, R: +R, P: +P, bytes: Array.from(readFileSync(p)) }; });
const shape = [128, 768, 768];
const show = (where, r) => console.log(`${where}: ` + r.map((x) => `${x.name} ${x.gflops.toFixed(1)}`).join(' | ') + ' GFLOP/s');
show(`Node ${process.version}`, measure(mods, shape));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();
await page.goto('about:blank');
show('Chromium', await page.evaluate(`(${measure.toString()})(${JSON.stringify(mods)}, ${JSON.stringify(shape)})`));
await browser.close();
