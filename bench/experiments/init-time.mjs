// Start-up of one fresh process: the time of `await init()` after importing the package (issue 30's
// goal: <= 20 ms, threads <= 50 ms), and for threads the time until sf.threadsReady. Run it many
// times, alternating builds, and take medians:
//   node bench/experiments/init-time.mjs simd|scalar|threads|native [path/to/dist/node.mjs]
const mode = process.argv[2];
const t0 = performance.now();
const { init } = await import(process.argv[3] ? new URL(process.argv[3], `file://${process.cwd()}/`).href : new URL('../../dist/node.mjs', import.meta.url).href);
const t1 = performance.now();
// The wasm builds by name (in Node init() would otherwise take the native addon where it loads).
const OPTIONS = { simd: { backend: 'wasm' }, scalar: { simd: false }, threads: { backend: 'wasm', threads: 2 }, native: { backend: 'native' } };
if (!OPTIONS[mode]) throw new Error(`mode must be one of ${Object.keys(OPTIONS).join(', ')}`);
const sf = await init(OPTIONS[mode]);
const t2 = performance.now();
await sf.threadsReady;  // threads: the pool started in the background (init() does not wait for it)
const t3 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, initMs: t2 - t1, threadsReadyMs: t3 - t1 }));
sf.dispose?.();
process.exit(0);
