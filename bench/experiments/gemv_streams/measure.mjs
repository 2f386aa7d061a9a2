// GB/s of weights read by each pattern of streams.cpp, interleaved rounds, ~400 MB per round
// (beyond any cache), in Node: run.sh builds streams.cpp and calls `node measure.mjs <build dir>`.
export const VARIANTS = ['one_panel', 'two_neighbours', 'four_neighbours', 'two_far', 'four_far', 'sum_stream'];
export const SHAPES = [[49152, 576], [1536, 576], [576, 1536], [2304, 768], [768, 3072]];  // n x k

export function measure(m, rounds = 9) {
  const lines = [];
  const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  for (const [n, k] of SHAPES) {
    const count = Math.max(1, Math.round(4e8 / (n * k * 4)));
    const mats = Array.from({ length: count }, () => m._alloc_filled(n * k));
    if (mats.includes(0)) throw new Error('out of memory');
    const x = m._alloc_filled(k), y = m._alloc_filled(n);
    const t = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      for (const v of VARIANTS) {
        const t0 = performance.now();
        for (const b of mats) v === 'sum_stream' ? m._sum_stream(b, n * k) : m[`_${v}`](x, b, n, k, y);
        t[v].push(performance.now() - t0);
      }
    }
    const bytes = count * n * k * 4;
    lines.push(`${n} x ${k}: ` + VARIANTS.map((v) => `${v} ${(bytes / median(t[v]) / 1e6).toFixed(1)}`).join('  ') + ' GB/s');
    for (const b of mats) m._free(b);
    m._free(x); m._free(y);
  }
  return lines;
}

if (typeof process === 'object' && import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const { resolve } = await import('node:path');
  const out = resolve(process.argv[2] ?? '../../../build/gemv_streams');
  const factory = createRequire(import.meta.url)(`${out}/streams.cjs`);
  const m = await factory({ wasmBinary: readFileSync(`${out}/streams.wasm`) });
  console.log(measure(m).join('\n'));
}
