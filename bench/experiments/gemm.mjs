// Quick GEMM throughput of the built package (sf.linear), for micro-kernel experiments:
// median of 15 calls per shape after 5 warm-up calls.   node bench/experiments/gemm.mjs
import { init } from '../../dist/node.mjs';

const sf = await init();
for (const [m, k, n] of [[128, 768, 768], [128, 768, 3072], [128, 3072, 768]]) {
  const w = Float32Array.from({ length: k * n }, (_, i) => Math.sin(i) * 0.01);
  const x = Float32Array.from({ length: m * k }, (_, i) => Math.cos(i));
  const layer = sf.linear(w, null, k, n);
  for (let i = 0; i < 5; i++) layer.forward(x);
  const times = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    layer.forward(x);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const ms = times[7];
  console.log(`${m}x${k}x${n}: ${ms.toFixed(2)} ms, ${((2 * m * k * n) / (ms * 1e6)).toFixed(1)} GFLOP/s`);
  layer.dispose();
}
