// Decoding in headless Chromium (issue 32's prefill goal, issue 29's int8 on relaxed SIMD): the
// decoders of bench/models (bench/export_hf.py: SmolLM2-135M-shaped Llama, GPT-2-small),
// simdformer against onnxruntime-web in one page (bench/embed-page/decode.html), 1 thread,
// interleaved rounds; with --threads 2 each engine alone in its page (two blocks each, alternated). The same measurement as bench/decode.mjs's in Node, where simdformer's int8
// cannot run relaxed SIMD (Node 20 has none): per-step time at contexts 16, 128 and 512, and the
// prefill of a 128-token prompt (simdformer up to its first token against one run of the graph
// with an empty past). With --weights int8 simdformer quantizes as it loads and ORT runs the q8
// graph; --relaxed off keeps simdformer's int8 on its 8-bit k-loop (a page of its own).
// Both engines are checked against PyTorch (bench/models/<name>/check.safetensors) first.
//   node bench/decode-page.mjs [--decoder smollm2-135m,gpt2-small] [--weights f32|int8] [--relaxed auto|off] [--threads N] [--dist DIR] [--quick] [--json out.json]
//   (BENCH_ROUNDS, BENCH_STEPS: rounds, and timed steps per round and context)
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

import { openEmbedPage } from './embed-page/open.mjs';
import { median, quantile } from './stats.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const quick = args.includes('--quick');
const DECODERS = arg('--decoder', 'smollm2-135m,gpt2-small').split(',');
const WEIGHTS = arg('--weights', 'int8');
const RELAXED = arg('--relaxed', 'auto');
const THREADS = Number(arg('--threads', '1'));
// --dist DIR: another build of the package as the pages' /dist/ (A/B of a variant).
const DIST = arg('--dist', null) && resolve(arg('--dist'));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 5));
const STEPS = Number(process.env.BENCH_STEPS ?? 16);
const PREFILL = quick ? 32 : 128;
const CONTEXTS = quick ? [16, 128] : [16, 128, 512];
if (!['f32', 'int8'].includes(WEIGHTS)) throw new Error(`--weights must be f32 or int8, not '${WEIGHTS}'`);
if (!['auto', 'off'].includes(RELAXED)) throw new Error(`--relaxed must be auto or off, not '${RELAXED}'`);
if (!(Number.isInteger(THREADS) && THREADS >= 1)) throw new Error(`--threads must be a whole number >= 1, not '${arg('--threads')}'`);

// A fixed pseudo-random stream (LCG) of token ids.
function randomPrompt(length, seed, vocab) {
  let s = seed >>> 0;
  return Array.from({ length }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return Math.floor((s / 2 ** 32) * (vocab - 1)); });
}

// Loads `name` into the engines of `page` and checks them against PyTorch before anything is timed.
async function loadChecked(page, name, engines) {
  const loaded = await page.evaluate(([n, w, en]) => window.decodeBench.load(n, w, en), [name, WEIGHTS, engines]);
  const { checks } = loaded;
  const parts = [];
  if (engines.includes('simdformer')) parts.push(`simdformer ${loaded.arch}, relaxed SIMD ${loaded.relaxedSimd}, first token ${checks.firstToken}`);
  if (engines.includes('ort')) parts.push(`onnxruntime-web first token ${checks.ortFirstToken}, its logits vs PyTorch max |diff| ${checks.ortVsPytorch.toExponential(2)}, cosine ${checks.ortLogitsCosine.toFixed(5)}`);
  console.log(`  ${THREADS} thread${THREADS > 1 ? 's' : ''}, ${engines.join(' + ')}: ${parts.join('; ')}; PyTorch f32 first token ${checks.pytorchFirstToken}`);
  if (engines.includes('ort')) {
    if (WEIGHTS === 'f32' && !(checks.ortVsPytorch < 1e-3)) throw new Error(`onnxruntime-web differs from PyTorch by ${checks.ortVsPytorch}`);
    if (WEIGHTS === 'int8' && !(checks.ortLogitsCosine > 0.99)) throw new Error(`ORT's q8 logits are far from PyTorch's (cosine ${checks.ortLogitsCosine})`);
  }
  if (engines.includes('simdformer') && WEIGHTS === 'f32' && checks.firstToken !== checks.pytorchFirstToken) throw new Error("simdformer's first token is not PyTorch's");
  return loaded;
}

// `rounds` rounds of every context's steps and two prefills for the engines loaded in `page`
// (both at 1 thread, interleaved; one at 2 threads), appended to times / prefills.
async function timeRounds(page, engines, rounds, prompts, prefillPrompt, times, prefills, load) {
  const steps = (engine, prompt) => page.evaluate(([e, p, s]) => window.decodeBench[e](p, s), [engine, prompt, STEPS]);
  const prefill = (engine) => page.evaluate(([e, p]) => window.decodeBench[`${e}Prefill`](p), [engine, prefillPrompt]);
  for (const engine of engines) {  // warm-up (JIT tier-up, workspace, ORT's arena)
    for (const prompt of prompts) await steps(engine, prompt);
    await prefill(engine);
  }
  // Rounds outside, contexts inside (their order rotating, the engines alternating), as decode.mjs.
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...engines].reverse() : engines;
    for (let k = 0; k < CONTEXTS.length; k++) {
      const i = (k + r) % CONTEXTS.length;
      for (const engine of order) times[i][engine].push(...await steps(engine, prompts[i]));
    }
    for (let j = 0; j < 2; j++) for (const engine of order) prefills[engine].push(await prefill(engine));
    load.push(loadavg()[0]);
  }
}

let versionsShown = false;  // the browser's and ORT's versions, printed from the first page
const pageQuery = () => [THREADS > 1 ? `threads=${THREADS}` : '', RELAXED === 'off' ? 'relaxed=off' : ''].filter(Boolean).join('&');

async function benchDecoder(name) {
  console.log(`${name} (${WEIGHTS === 'int8' ? "int8: simdformer weights: 'int8' against onnxruntime-web's q8 graph" : 'f32'}, `
    + `${THREADS === 1 ? '1 thread, both engines in one page, interleaved' : `${THREADS} threads, each engine alone in its page, alternated`}):`);
  const engines = ['simdformer', 'ort'];
  const times = CONTEXTS.map(() => ({ simdformer: [], ort: [] }));
  const prefills = { simdformer: [], ort: [] };
  const load = [loadavg()[0]];
  let loaded = null, prompts = null, prefillPrompt = null;
  // One page at 1 thread; at 2 threads two blocks per engine, each in a page of its own (two thread
  // pools in one page would steal each other's core), half of the rounds each.
  const blocks = THREADS === 1 ? [engines] : [['simdformer'], ['ort'], ['ort'], ['simdformer']];
  const rounds = THREADS === 1 ? ROUNDS : Math.max(1, Math.ceil(ROUNDS / 2));
  for (const block of blocks) {
    const { page, errors, close } = await openEmbedPage(pageQuery(), { file: 'decode.html', ready: 'decodeBench', ...(DIST ? { dist: DIST } : {}) });
    try {
      if (!versionsShown) console.log(JSON.stringify(await page.evaluate(() => window.decodeBench.versions())));
      versionsShown = true;
      const l = await loadChecked(page, name, block);
      loaded = { ...loaded, ...l, checks: { ...loaded?.checks, ...l.checks }, arch: l.arch || loaded?.arch };
      prompts ??= CONTEXTS.map((c) => randomPrompt(c, c, l.vocab));
      prefillPrompt ??= randomPrompt(PREFILL, 1000 + PREFILL, l.vocab);
      await timeRounds(page, block, rounds, prompts, prefillPrompt, times, prefills, load);
      await page.evaluate(() => window.decodeBench.unload());
    } finally {
      await close();
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('\n')}`);
  }

  const rows = CONTEXTS.map((context, i) => {
    const row = { context };
    for (const engine of engines) {
      const all = times[i][engine];
      row[engine] = { ms: median(all), p10: quantile(all, 0.1), p90: quantile(all, 0.9), tokensPerSecond: 1000 / median(all) };
    }
    row.speedup = row.ort.ms / row.simdformer.ms;
    console.log(`  context ${String(context).padStart(3)}: simdformer ${row.simdformer.ms.toFixed(2)} ms/token (${row.simdformer.tokensPerSecond.toFixed(1)} tok/s), `
      + `onnxruntime-web ${row.ort.ms.toFixed(2)} ms/token: ${row.speedup.toFixed(2)}x its tokens/s`);
    return row;
  });
  const pre = { tokens: PREFILL, simdformerMs: median(prefills.simdformer), ortMs: median(prefills.ort), runs: prefills.simdformer.length };
  pre.ratio = pre.simdformerMs / pre.ortMs;
  console.log(`  prefill of ${PREFILL} tokens: simdformer ${pre.simdformerMs.toFixed(1)} ms, onnxruntime-web ${pre.ortMs.toFixed(1)} ms: `
    + `${pre.ratio.toFixed(2)}x its time (goal <= 0.7x; ${pre.runs} runs each)`);
  console.log(`  load average (1 min) over the rounds: ${load.map((l) => l.toFixed(2)).join(' ')}`);
  return { name, loaded, rows, prefill: pre, load };
}

console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const results = [];
for (const name of DECODERS) results.push(await benchDecoder(name));
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const out = arg('--json');
if (out) writeFileSync(out, JSON.stringify({ weights: WEIGHTS, relaxed: RELAXED, threads: THREADS, steps: STEPS, rounds: ROUNDS, results }, null, 2));
