// Times loops.cpp's k-loops (built by loops.sh into build/gemm_ab/loops.cjs) interleaved with the
// SIMD128 mul + add ceiling loop, medians of 31 rounds:   node bench/experiments/gemm_ab/loops.mjs [kc]
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ceilingModule } from '../../ceiling.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const m = createRequire(import.meta.url)(join(ROOT, 'build', 'gemm_ab', 'loops.cjs'))();
const { instance } = await WebAssembly.instantiate(ceilingModule());
const ceiling = instance.exports.run;
ceiling(1e6);
const kc = Number(process.argv[2] ?? 256);
if (!m._setup(kc)) throw new Error('setup failed');
const loops = ['tile4x1', 'no_a_loads', 'a_prebcast', 'a_shuffle', 'tile2x2'];
// 8 multiply-adds of 4 lanes (64 flops) per k-step; tile2x2 runs kc / 2 steps over its two panels.
const flops = (name) => 64 * (name === 'tile2x2' ? Math.floor(kc / 2) : kc);
const reps = Math.max(1, Math.round(2e7 / (64 * kc))), rounds = 31, times = Object.fromEntries(loops.map((l) => [l, []])), ceil = [];
for (const l of loops) m[`_${l}`](kc, reps);
for (let r = 0; r < rounds; r++) {
  let t = performance.now();
  ceiling(2e6);
  ceil.push(performance.now() - t);
  for (const l of loops) {
    t = performance.now();
    m[`_${l}`](kc, reps);
    times[l].push(performance.now() - t);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ceilingGflops = (2e6 * 12 * 8) / (median(ceil) * 1e6);
console.log(`kc ${kc}, ${reps} reps per call; ceiling ${ceilingGflops.toFixed(1)} GFLOP/s`);
for (const l of loops) {
  const gflops = (flops(l) * reps) / (median(times[l]) * 1e6);
  console.log(`  ${l.padEnd(11)} ${gflops.toFixed(1).padStart(5)} GFLOP/s  ${((100 * gflops) / ceilingGflops).toFixed(0).padStart(3)}% of the ceiling`);
}
