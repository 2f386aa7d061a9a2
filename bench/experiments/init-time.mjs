// Start-up of one fresh process: the time of `await init()` after importing the package (issue 30's
// goal: <= 20 ms, threads <= 50 ms). Run it many times, alternating builds, and take medians:
//   node bench/experiments/init-time.mjs simd|scalar|threads [path/to/dist/node.mjs]
const mode = process.argv[2];
const t0 = performance.now();
const { init } = await import(process.argv[3] ? new URL(process.argv[3], `file://${process.cwd()}/`).href : new URL('../../dist/node.mjs', import.meta.url).href);
const t1 = performance.now();
const sf = await init(mode === 'scalar' ? { simd: false } : mode === 'threads' ? { threads: 2 } : {});
const t2 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, initMs: t2 - t1 }));
sf.dispose?.();
process.exit(0);
