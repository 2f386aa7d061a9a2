// Issue 29's per-shape profile: where one forward pass spends its time, by kernel. V8's sampling
// profiler (node:inspector, 100 µs interval) runs while the SIMD128 build encodes texts of 5, 23,
// 46 and 128 tokens with the MiniLM-L6- and BERT-base-shaped folders of bench/models (one thread,
// the same wasm the page runs, built with its function names kept: --profiling-funcs, which
// changes no code, only adds the name section). Each wasm function's self time is put in a
// category by its name (GEMM, attention's scores / softmax / weights · V, LayerNorm, GELU,
// residual adds, the JavaScript around them; the score and weights · V products are told from the
// projections by the attention functions on the sample's stack); the GEMM's share is also given as GFLOP/s of the
// model's matrix products against the mul + add ceiling measured in the same process
// (bench/ceiling.mjs's loop).
//
//   cmake --preset wasm-release -B build/wasm-prof -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs
//   cmake --build build/wasm-prof --target simdformer_js
//   node bench/profile.mjs [--build build/wasm-prof] [--models minilm-l6,bert-base]
// (the package in dist/ is copied to a temporary folder under build/ with that build's glue and wasm in place
// of its own: the glue and the wasm go together)
//   (PROFILE_MS: sampling time per shape, default 3000)
//   node bench/profile.mjs --browser [...] [--weights int8]
// runs the same in headless Chromium (bench/embed-page, the page's embed(): tokenizer, forward
// pass, pooling), sampled through the DevTools protocol: the engine the goals are measured on,
// with relaxed SIMD's multiply-add where Chromium has it, so the GEMM is also given against the
// relaxed_madd ceiling measured in the same page (bench/experiments/relaxed-madd.mjs's loops).
// Two threads are not profiled here: the sampling profiler sees the main thread only.
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { openEmbedPage } from './embed-page/open.mjs';
import { measure as measureMadd } from './experiments/relaxed-madd.mjs';
import { textOfTokens } from './native.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const BUILD = resolve(arg('--build', join(HERE, '..', 'build', 'wasm-prof')));
const MODELS = arg('--models', 'minilm-l6,bert-base').split(',');
const LENGTHS = [5, 23, 46, 128];
const SAMPLE_MS = Number(process.env.PROFILE_MS ?? 3000);
const BROWSER = process.argv.includes('--browser');
// --weights int8: the int8 path (weights quantized as they load, activations quantized per row);
// its GEMM rate is then 2 x int8 multiply-adds per second, given against no float ceiling.
const WEIGHTS = arg('--weights', 'f32');
if (!['f32', 'int8'].includes(WEIGHTS)) throw new Error(`--weights must be f32 or int8, not '${WEIGHTS}'`);

// A sample's category: from the attention functions on its stack when there is one (the
// score and weights · V products run the same GEMM kernel as the projections), else from the
// function it is in. Names are the C++ functions', demangled.
// The two categories the GEMM's rate is computed from.
const GEMM = 'GEMM: projections + FFN', EPILOGUE = 'epilogue: bias, GELU, residual';
const ATTENTION = [
  ['attention: scores q·k', /head_dot_scores|dot_rows_f32/],
  ['attention: softmax', /softmax|relu_normalize/],
  ['attention: masks', /mask_scores|floor_f32/],
];
const LEAF = [
  // The epilogue of a finished tile (bias, the activation -- the exact GELU's erf --, residual) on
  // its own line: out of line in wasm (epilogue_tile), where it is most of what is not k-loop.
  [EPILOGUE, /epilogue_tile|epilogue_row|finish_panel|activate_rows/],
  [GEMM, /gemm_f32|gemv_|run_tile|tile<|relaxed_kloop|pack_b|pack_a|gemm_qd8|gemm_quads|gemm_cols|dot_block|dot_panels|finish_block/],
  ['int8: quantizing activations', /quantize_row|quantize_a|qd8_row_params/],
  ['GELU / activation', /activate|gelu|erf|tanh|silu/i],
  ['LayerNorm', /layernorm|rms_norm/i],
  ['residual add / bias', /add_f32|bias/],
  ['embedding / pooling', /embed|pool|normalize_rows/i],
  ['memcpy / memset', /memcpy|memset|memmove/],
  // JavaScript frames are bare identifiers or "(file:...mjs)"; C++ names are qualified
  // (simdformer::...), and their "(anonymous namespace)" is not JavaScript's anonymous function.
  ['JavaScript (tokenizer, API)', /^[A-Za-z_$#.][\w$#.]*$|\.mjs|^\(anonymous/],
];
function categoryOf(stack) {  // stack: function names, leaf first
  const inHead = stack.findIndex((f) => /head_attend|head_dot_scores/.test(f));
  if (inHead >= 0) {
    for (const [cat, re] of ATTENTION) if (stack.slice(0, inHead + 1).some((f) => re.test(f))) return cat;
    return 'attention: weights · V';
  }
  // The relaxed-SIMD k-loops run in a module of their own, assembled at init without names
  // (kernels/relaxed_module.cpp; the build's own functions all have theirs): a nameless wasm
  // function is one of them (V8 does not always record the caller across the two modules).
  if (/^wasm-function\[/.test(stack[0])) return GEMM;
  return (LEAF.find(([, re]) => re.test(stack[0])) ?? ['other'])[0];
}


// Time per category and per leaf function from a .cpuprofile: each sample stands for the time
// to the next one.
function sampleTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nameOf = (n) => n.callFrame.functionName || `(${n.callFrame.url || 'anonymous'})`;
  const categories = new Map(), leaves = new Map();
  const deltas = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) stack.push(nameOf(byId.get(at)));
    const dt = (deltas[i + 1] ?? deltas[i]) / 1000;
    const cat = categoryOf(stack);
    categories.set(cat, (categories.get(cat) ?? 0) + dt);
    const leaf = `[${cat}] ${stack[0]}`;
    leaves.set(leaf, (leaves.get(leaf) ?? 0) + dt);
  });
  return { categories, leaves };
}

// The mul + add ceiling of this engine (bench/ceiling.mjs: independent f32x4 multiply-add
// chains in a loop), or null if it cannot run.
async function ceilingGflops() {
  try {
    const { measureCeiling } = await import('./ceiling.mjs');
    return (await measureCeiling()).gflops;
  } catch {
    return null;
  }
}

// The lines of one shape: time per pass, the GEMM's GFLOP/s against the ceilings, each category.
function report(name, info, n, { passes, wall, profile }, ceilings) {
  const { n_layers: layers, d_model: d, d_ff: ff } = info;
  const { categories: cats, leaves } = sampleTimes(profile);
  const total = [...cats.values()].reduce((x, y) => x + y, 0);
  const perPass = wall / passes;
  // The matrix products of one pass: 4 d x d projections and the two FFN ones per layer.
  const flops = 2 * n * layers * (4 * d * d + 2 * d * ff);
  // The GEMM's GFLOP/s over its k-loops and its epilogue together (as before the epilogue had a line).
  const gemmMs = (((cats.get(GEMM) ?? 0) + (cats.get(EPILOGUE) ?? 0)) / total) * perPass;
  const gflops = flops / (gemmMs * 1e6);
  const against = Object.entries(ceilings).filter(([, c]) => c).map(([k, c]) => `${(100 * gflops / c).toFixed(0)} % of the ${k} ceiling`);
  console.log(`\n${name} (${layers} x ${d}, ff ${ff}), ${n} tokens: ${perPass.toFixed(2)} ms per pass (${passes} passes); `
    + `GEMM ${gemmMs.toFixed(2)} ms = ${gflops.toFixed(1)} GFLOP/s${against.length ? ` (${against.join(', ')})` : ''}`);
  for (const [cat, ms] of [...cats].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${cat.padEnd(30)} ${(100 * ms / total).toFixed(1).padStart(5)} %  ${(perPass * ms / total).toFixed(3).padStart(8)} ms`);
  }
  if (process.env.PROFILE_ALL) {
    const top = [...leaves].sort((x, y) => y[1] - x[1]).filter(([, ms]) => ms / total >= 0.001);
    for (const [fn, ms] of top) console.log(`    ${(100 * ms / total).toFixed(1).padStart(5)} %  ${fn.slice(0, 120)}`);
  }
}

// Inside the checkout (build/ is git-ignored), so that the copy finds node_modules as dist/ does.
const dist = mkdtempSync(join(HERE, '..', 'build', 'dist-profile-'));
process.on('exit', () => rmSync(dist, { recursive: true, force: true }));
cpSync(join(HERE, '..', 'dist'), dist, { recursive: true });
for (const f of ['simdformer.mjs', 'simdformer.wasm']) copyFileSync(join(BUILD, 'bindings', f), join(dist, f));

// Node: the package's wasm backend in this process, sampled by node:inspector.
async function profileNode() {
  const { init } = await import(pathToFileURL(join(dist, 'node.mjs')).href);
  const sf = await init({ simd: true, backend: 'wasm' });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const ceiling = await ceilingGflops();
  console.log(`wasm from ${BUILD}; ${sf.arch}; sampling ${SAMPLE_MS} ms per shape; mul + add ceiling ${ceiling ? `${ceiling.toFixed(1)} GFLOP/s` : 'not measured (bench/ceiling.mjs exports no measureCeiling)'}`);
  for (const name of MODELS) {
    const model = await sf.loadPretrained(join(HERE, 'models', name), { weights: WEIGHTS });
    for (const n of LENGTHS) {
      const text = textOfTokens(model, n);
      for (let i = 0; i < 3; i++) model.encodeText(text);  // warm-up: tier-up, workspace
      await session.post('Profiler.start');
      const t0 = performance.now();
      let passes = 0;
      while (performance.now() - t0 < SAMPLE_MS) { model.encodeText(text); passes++; }
      const wall = performance.now() - t0;
      const { profile } = await session.post('Profiler.stop');
      report(name, model.info, n, { passes, wall, profile }, WEIGHTS === 'f32' ? { 'mul + add': ceiling } : {});
    }
    model.dispose();
  }
  await session.post('Profiler.disable');
  session.disconnect();
}

// Chromium: the page of bench/short-texts.mjs with this build as its package, 1 thread, its
// embed() sampled through the DevTools protocol.
async function profileBrowser() {
  const { page, errors, close } = await openEmbedPage('threads=1', { dist });
  try {
    const cdp = await page.context().newCDPSession(page);
    const ceilings = await page.evaluate(`(${measureMadd.toString()})()`);
    const madd = ceilings['relaxed_madd, registers'], mulAdd = ceilings['mul + add, registers'];
    const version = await page.evaluate(() => navigator.userAgent.match(/Chrom\w*\/[\d.]+/)?.[0] ?? navigator.userAgent);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    for (const name of MODELS) {
      const loaded = await page.evaluate(([m, w]) => window.embedBench.load(m, w, { engines: ['simdformer'] }), [name, WEIGHTS]);
      if (name === MODELS[0]) {
        console.log(`wasm from ${BUILD}; ${version}, ${loaded.arch}, ${WEIGHTS} weights, relaxed f32 ${loaded.relaxedF32}, int8 activations ${loaded.int8ActivationBits} bits; sampling ${SAMPLE_MS} ms per shape; `
          + `ceilings in this page: mul + add ${mulAdd.toFixed(1)}, relaxed_madd ${typeof madd === 'number' ? `${madd.toFixed(1)} GFLOP/s` : madd}`);
      }
      for (const n of LENGTHS) {
        const text = await page.evaluate(([m, k]) => window.embedBench.textOfTokens(m, k), [name, n]);
        const loop = (ms) => page.evaluate(async ([m, t, budget]) => {
          const t0 = performance.now();
          let passes = 0;
          while (performance.now() - t0 < budget) { await window.embedBench.run('simdformer', m, [t]); passes++; }
          return { passes, wall: performance.now() - t0 };
        }, [name, text, ms]);
        await loop(300);  // warm-up: tier-up, workspace
        await cdp.send('Profiler.start');
        const { passes, wall } = await loop(SAMPLE_MS);
        const { profile } = await cdp.send('Profiler.stop');
        const ceiling = loaded.relaxedF32 ? { relaxed_madd: typeof madd === 'number' ? madd : null } : { 'mul + add': mulAdd };
        report(name, loaded.info, n, { passes, wall, profile }, WEIGHTS === 'f32' ? ceiling : {});
      }
    }
    await cdp.send('Profiler.disable');
    if (errors.length) throw new Error(`the page reported: ${errors.join('; ')}`);
  } finally {
    await close();
  }
}

await (BROWSER ? profileBrowser() : profileNode());
