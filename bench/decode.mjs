// Token-by-token decoding benchmarks (one thread: both engines interleaved in one Node process):
//
// 1. The decoders of bench/models (bench/export_hf.py): GPT-2-small (12 x 768, vocab 50257) and a
//    SmolLM2-135M-shaped Llama (30 x 576, 9 query heads over 3 key/value heads, vocab 49152):
//    simdformer (wasm SIMD128, model.generateText, the time between consecutive onToken calls)
//    against onnxruntime-web (wasm, numThreads 1) running onnx/decoder_with_past.onnx the way a
//    JavaScript decoding loop does (present -> past, argmax of the logits in JS, each run
//    awaited). Per-step time at contexts 16, 128 and 512 (the step whose query sees that many
//    keys and the STEPS - 1 after it), interleaved rounds, medians; then the line t(c) = a + b·c
//    through the end points, the middle point's residual from it (overall and per round), the
//    weight-streaming share a / t(c) and the per-context-token cost b.
//    With --weights int8, simdformer quantizes as it loads (weights: 'int8') and onnxruntime-web
//    runs the q8 graph transformers.js would load (onnx/decoder_with_past_quantized.onnx: dynamic
//    MatMulInteger, bench/export_hf.py). Then the prompt (prefill) time of 128 tokens: simdformer's
//    generateText up to its first token against one run of the graph with an empty past (which,
//    as in transformers.js's generate, computes the logits of every prompt position).
//    --threads 2: each engine ALONE in its own process (two thread pools on two cores steal each
//    other's core), alternated simdformer, ORT, ORT, simdformer; the rounds are pooled.
//    With --backend native (issue 31's "GPT-2-small decoding >= 1.5x onnxruntime-node with-past
//    tokens/s"): simdformer's Node-API addon (init({ backend: 'native' }), the level the loader
//    picks for this CPU) against onnxruntime-node (the package transformers.js pulls in; its CPU
//    execution provider, intraOpNumThreads = --threads, sequential execution) running the same
//    decoder_with_past.onnx in the same JavaScript loop, interleaved in this one process.
// 2. The nn.Transformer encoder-decoder Model.generate (d 512, 8 heads, 6 + 6 layers, random
//    weights written here, source 128 tokens), ms per generated token for 32 and 64 tokens and
//    per decoding step (their difference); with --before <dist> also the package built from an
//    earlier commit, interleaved with this one, and whether both generate the same tokens.
//
//   node bench/decode.mjs [--quick] [--backend wasm|native] [--threads N] [--weights f32|int8] [--gpt2-only | --encdec-only]
//                         [--decoder gpt2-small|smollm2-135m] [--models DIR] [--before /path/to/old/dist] [--json out.json]
//   (--backend: simdformer's wasm build against onnxruntime-web (default), or the native addon
//    against onnxruntime-node; --gpt2-only: the decoders only, each exported one of them unless
//    --decoder names one; --models: the folder bench/export_hf.py wrote, default bench/models)
//   (BENCH_ROUNDS, BENCH_STEPS: rounds, and timed steps per round and context)
//   issue 31's figure: node bench/decode.mjs --backend native --gpt2-only --decoder gpt2-small
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { init } from '../dist/node.mjs';
import { withPastFeeds } from './embed-page/with-past-feeds.mjs';
import { readSafetensors } from './safetensors.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const arg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const MODELS = resolve(arg('--models') ?? join(HERE, 'models'));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 5));
const STEPS = Number(process.env.BENCH_STEPS ?? 16);  // timed steps per round and context
const WEIGHTS = arg('--weights') ?? 'f32';
const PREFILL = quick ? 32 : 128;  // prompt tokens of the prefill timing
const ALONE = arg('--alone');  // 'simdformer' | 'ort': this process times that engine only (the 2-thread runs)
const THREADS = Number(arg('--threads') ?? 1);
const BACKEND = arg('--backend') ?? 'wasm';
if (!['wasm', 'native'].includes(BACKEND)) throw new Error(`--backend must be wasm or native, not '${BACKEND}'`);
// The ONNX Runtime that matches the backend: onnxruntime-web (wasm) beside simdformer's wasm
// build, onnxruntime-node (native CPU) beside the addon. Only that one is imported: both register
// a 'cpu' backend with onnxruntime-common.
const ORT_NAME = BACKEND === 'native' ? 'onnxruntime-node' : 'onnxruntime-web';
const ortModule = await import(ORT_NAME);
const ort = 'InferenceSession' in ortModule ? ortModule : ortModule.default;  // onnxruntime-node is CommonJS
const ortSession = (dir, file) => (BACKEND === 'native'
  // One process, THREADS intra-op threads (ORT's own pool, default spinning), no inter-op pool:
  // the with-past graph is a chain, as a JavaScript decoding loop runs it.
  ? ort.InferenceSession.create(join(dir, file), { executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    intraOpNumThreads: THREADS, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 })
  : ort.InferenceSession.create(readFileSync(join(dir, file)), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
// CPU time of this process in ms (user + system). Both engines run their steps on this thread
// (one wasm thread each), so a step's CPU time is its compute without the time other jobs on
// the loaded machine held the core; wall time is what a user waits.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const cosine = (a, b) => { let ab = 0, aa = 0, bb = 0; for (let i = 0; i < a.length; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; } return ab / Math.sqrt(aa * bb); };
const argmax = (x) => { let best = 0; for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i; return best; };

// A fixed pseudo-random stream (LCG) for token ids and weights.
function lcg(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}


// ---- 1. decoders (GPT-2-small, the Llama stand-in): simdformer against ONNX Runtime ----------

const DECODERS = ['gpt2-small', 'smollm2-135m'];
const manifestOf = (name) => JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8')).models.find((m) => m.name === name);

async function decoderEngines(sf, name) {
  const dir = join(MODELS, name);
  const manifest = manifestOf(name);
  const int8 = WEIGHTS === 'int8';
  if (int8 && !manifest.onnx_q8) throw new Error(`${name} has no q8 graph: re-run bench/export_hf.py`);
  const model = await sf.loadPretrained(dir, int8 ? { weights: 'int8' } : {});
  const session = await ortSession(dir, int8 ? manifest.onnx_q8 : manifest.onnx);
  const feeds = withPastFeeds(ort, manifest);
  // Both engines against the PyTorch reference before anything is timed.
  const check = readSafetensors(join(dir, 'check.safetensors')).tensors;
  const promptIds = Array.from(check.prompt_ids.data, Number);
  const first = await session.run(feeds(promptIds, null, promptIds.length));
  const vocab = manifest.vocab_size;
  let ortDiff = 0;
  for (let i = 0; i < first.logits.data.length; i++) ortDiff = Math.max(ortDiff, Math.abs(first.logits.data[i] - check.prompt_logits.data[i]));
  const lastRow = check.prompt_logits.data.subarray(check.prompt_logits.data.length - vocab);
  const sfFirst = await model.generateText(promptIds, { maxNewTokens: 1, stop: [] });
  // f32: both engines equal PyTorch. int8 rounds every weight, so both are compared with PyTorch's
  // float logits by cosine (each engine's quantization error), and their first tokens reported.
  let ortCosine = null;
  if (int8) {
    ortCosine = cosine(first.logits.data, check.prompt_logits.data);
    if (!(ortCosine > 0.99)) throw new Error(`${ORT_NAME}'s q8 logits are far from PyTorch's (cosine ${ortCosine})`);
  } else {
    if (!(ortDiff < 1e-3)) throw new Error(`${ORT_NAME} differs from PyTorch by ${ortDiff}`);
    if (sfFirst.ids[0] !== argmax(lastRow)) throw new Error(`simdformer's first token ${sfFirst.ids[0]} is not PyTorch's ${argmax(lastRow)}`);
  }

  return {
    model, session, vocab, manifest, parameterCount: model.parameterCount,
    // Step times (ms) of STEPS + 1 steps after a prompt of `context` tokens: simdformer's first
    // step consumes the prompt's last token, so step s sees context + s keys; intervals between
    // consecutive onToken calls are the steps 1 .. STEPS.
    simdformer: async (prompt) => {
      const stamps = [];
      const cpu = [];
      await model.generateText(prompt, { maxNewTokens: STEPS + 1, stop: [], onToken: () => { stamps.push(performance.now()); cpu.push(cpuMs()); } });
      return { wall: stamps.slice(1).map((t, i) => t - stamps[i]), cpu: cpu.slice(1).map((t, i) => t - cpu[i]) };
    },
    // The same for ORT: the prompt but its last token as the first run (untimed), then one token
    // per run with the growing past, each run awaited and its logits' argmax taken in JS.
    ort: async (prompt) => {
      let out = await session.run(feeds(prompt.slice(0, -1), null, prompt.length - 1));
      let token = prompt[prompt.length - 1];
      const wall = [];
      const cpu = [];
      for (let s = 0; s <= STEPS; s++) {
        const total = prompt.length + s;
        const t0 = performance.now();
        const c0 = cpuMs();
        out = await session.run(feeds([token], out, total));
        token = argmax(out.logits.data);
        if (s > 0) { wall.push(performance.now() - t0); cpu.push(cpuMs() - c0); }  // step 0 matches simdformer's untimed first step
      }
      return { wall, cpu };
    },
    // The prompt alone: simdformer up to its first token; ORT's one run with an empty past.
    simdformerPrefill: async (prompt) => {
      const t0 = performance.now();
      await model.generateText(prompt, { maxNewTokens: 1, stop: [] });
      return performance.now() - t0;
    },
    ortPrefill: async (prompt) => {
      const t0 = performance.now();
      const out = await session.run(feeds(prompt, null, prompt.length));
      argmax(out.logits.data.subarray(out.logits.data.length - vocab));
      return performance.now() - t0;
    },
    checks: { weights: WEIGHTS, ortVsPytorch: ortDiff, ortLogitsCosine: ortCosine, firstToken: sfFirst.ids[0], pytorchFirstToken: argmax(lastRow),
      ortFirstToken: argmax(first.logits.data.subarray(first.logits.data.length - vocab)) },
    dispose: async () => { model.dispose(); await session.release(); },
  };
}

// Step time against context: t(c) = a + b·c through the end points (the first and last context),
// and the middle point's residual relative to that line. x is the mean number of keys the timed
// steps see (context + 1 .. context + STEPS), so a is the step time with no context at all: the
// weights streamed once per token, the LM head, the embedding and the JS loop; b is the cost of
// one more context token (q·k and α·v over the KV cache of every layer).
function linearity(contexts, ms) {
  const x = contexts.map((c) => c + (STEPS + 1) / 2);
  const [x0, x1, x2] = [x[0], x[1], x.at(-1)];
  const [t0, t1, t2] = [ms[0], ms[1], ms.at(-1)];
  const b = (t2 - t0) / (x2 - x0);
  const a = t0 - b * x0;
  const predicted = a + b * x1;
  return { a, b, predicted, residual: (t1 - predicted) / predicted };
}

// The timed part of one decoder: step times at each context and prefill times of a PREFILL-token
// prompt, for the engines named (both interleaved, or one alone), after both engines' checks.
async function measureDecoder(sf, name, engines) {
  const e = await decoderEngines(sf, name);
  if (engines.length === 1) {  // alone: release the other engine (ORT's pool must not spin here)
    if (engines[0] === 'simdformer') await e.session.release(); else e.model.dispose();
  }
  const contexts = quick ? [16, 128] : [16, 128, 512];
  const randomPrompt = (length, seed) => { const next = lcg(seed); return Array.from({ length }, () => Math.floor(next() * (e.vocab - 1))); };
  const prompts = contexts.map((context) => randomPrompt(context, context));
  const prefillPrompt = randomPrompt(PREFILL, 1000 + PREFILL);
  for (const engine of engines) {  // warm-up (JIT tier-up, workspace, ORT's arena)
    for (const prompt of prompts) await e[engine](prompt);
    await e[`${engine}Prefill`](prefillPrompt);
  }
  // Rounds outside, contexts inside (their order rotating, the engines alternating), so every
  // round holds all the points of both engines measured close together in time: a change of
  // load between rounds moves a whole round, not one point of the line.
  const times = contexts.map(() => Object.fromEntries(engines.map((n) => [n, []])));  // [context][engine][round] -> step wall ms
  const cpuTimes = contexts.map(() => Object.fromEntries(engines.map((n) => [n, []])));  // the same, CPU ms
  const prefill = Object.fromEntries(engines.map((n) => [n, []]));  // [engine] -> ms, two per round
  const load = [os.loadavg()[0]];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...engines].reverse() : engines;
    for (let k = 0; k < contexts.length; k++) {
      const i = (k + r) % contexts.length;
      for (const engine of order) {
        const { wall, cpu } = await e[engine](prompts[i]);
        times[i][engine].push(wall);
        cpuTimes[i][engine].push(cpu);
      }
    }
    for (let j = 0; j < 2; j++) for (const engine of order) prefill[engine].push(await e[`${engine}Prefill`](prefillPrompt));
    load.push(os.loadavg()[0]);
  }
  const out = { contexts, times, cpuTimes, prefill, load, checks: e.checks, manifest: e.manifest, parameterCount: e.parameterCount };
  if (engines.length === 1) { if (engines[0] === 'simdformer') e.model.dispose(); else await e.session.release(); } else await e.dispose();
  return out;
}

// Two threads: each engine alone in its own process (this script with --alone), alternated
// simdformer, ORT, ORT, simdformer; their rounds pooled as if measured in one.
function measureDecoderAlone(name) {
  let pooled = null;
  for (const engine of ['simdformer', 'ort', 'ort', 'simdformer']) {
    const argv = [fileURLToPath(import.meta.url), '--alone', engine, '--decoder', name, '--threads', String(THREADS), '--weights', WEIGHTS,
      '--backend', BACKEND, '--models', MODELS, ...(quick ? ['--quick'] : [])];
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 256 << 20 });
    if (r.status !== 0) throw new Error(`the ${engine} process failed:\n${r.stdout}\n${r.stderr}`);
    const m = JSON.parse(r.stdout.slice(r.stdout.indexOf('{"alone"'))).alone;
    if (!pooled) pooled = { ...m, times: m.contexts.map(() => ({ simdformer: [], ort: [] })), cpuTimes: m.contexts.map(() => ({ simdformer: [], ort: [] })), prefill: { simdformer: [], ort: [] }, load: [] };
    m.contexts.forEach((_, i) => { pooled.times[i][engine].push(...m.times[i][engine]); pooled.cpuTimes[i][engine].push(...m.cpuTimes[i][engine]); });
    pooled.prefill[engine].push(...m.prefill[engine]);
    pooled.load.push(...m.load);
  }
  return pooled;
}

async function benchDecoder(sf, name) {
  console.log(`${name} (${WEIGHTS === 'int8' ? `int8: simdformer weights: 'int8' against ${ORT_NAME}'s q8 graph` : 'f32'}):`);
  const m = THREADS > 1 ? measureDecoderAlone(name) : await measureDecoder(sf, name, ['simdformer', 'ort']);
  const { contexts, times, cpuTimes, load } = m;
  const e = { manifest: m.manifest, model: { parameterCount: m.parameterCount }, checks: m.checks };
  if (m.checks.ortLogitsCosine !== null) {
    console.log(`  checks: first token simdformer ${m.checks.firstToken}, ${ORT_NAME} ${m.checks.ortFirstToken}, PyTorch f32 ${m.checks.pytorchFirstToken}; `
      + `ORT q8 logits' cosine to PyTorch f32 ${m.checks.ortLogitsCosine.toFixed(5)}`);
  }
  const rows = contexts.map((context, i) => {
    const row = { context, keysSeen: [context + 1, context + STEPS], steps: times[i].simdformer.flat().length };
    for (const name of ['simdformer', 'ort']) {
      const all = times[i][name].flat();
      row[name] = { ms: median(all), p10: quantile(all, 0.1), p90: quantile(all, 0.9), tokensPerSecond: 1000 / median(all), cpuMs: median(cpuTimes[i][name].flat()) };
    }
    row.speedup = row.ort.ms / row.simdformer.ms;
    // The same ratio within each round, then its median (load moves both engines of a round;
    // alone, round r of one process is paired with round r of the other).
    row.speedupSameRound = median(times[i].simdformer.map((s, r) => median(times[i].ort[r]) / median(s)));
    row.speedupCpu = row.ort.cpuMs / row.simdformer.cpuMs;
    console.log(`context ${String(context).padStart(3)}: simdformer ${row.simdformer.ms.toFixed(2)} ms/token (${row.simdformer.tokensPerSecond.toFixed(1)} tok/s, p10-p90 ${row.simdformer.p10.toFixed(1)}-${row.simdformer.p90.toFixed(1)}), `
      + `${ORT_NAME} ${row.ort.ms.toFixed(2)} ms/token (${row.ort.tokensPerSecond.toFixed(1)} tok/s): ${row.speedup.toFixed(2)}x (same-round median ${row.speedupSameRound.toFixed(2)}x); `
      + `CPU time per step ${row.simdformer.cpuMs.toFixed(2)} vs ${row.ort.cpuMs.toFixed(2)} ms: ${row.speedupCpu.toFixed(2)}x`);
    return row;
  });
  const prefill = { tokens: PREFILL, simdformerMs: median(m.prefill.simdformer), ortMs: median(m.prefill.ort), rounds: m.prefill.simdformer.length };
  prefill.ratio = prefill.simdformerMs / prefill.ortMs;
  console.log(`prefill of ${PREFILL} tokens: simdformer ${prefill.simdformerMs.toFixed(1)} ms (to its first token), ${ORT_NAME} ${prefill.ortMs.toFixed(1)} ms (one run, empty past): `
    + `${prefill.ratio.toFixed(2)}x its time (goal <= 0.7x; ${prefill.rounds} runs each)`);
  let fit = null;
  if (contexts.length >= 3) {
    // Bytes one step must read: every weight once (the tied LM head is the embedding table), plus
    // K and V of every layer for each context token (the key/value heads only).
    const { layers, d_model: d } = e.manifest;
    const kvWidth = (e.manifest.kv_heads ?? e.manifest.heads) * (e.manifest.head_dim ?? d / e.manifest.heads);
    const bytes = { weights: e.model.parameterCount * 4, cachePerContextToken: 2 * layers * kvWidth * 4 };
    // CPU time first: it leaves out the time other jobs held the core, which on this machine is
    // larger than the whole context term; the wall-clock line is printed too.
    fit = { bytes, loadavg: load, cpu: stepLine('CPU time', contexts, cpuTimes, bytes), wall: stepLine('wall time', contexts, times, bytes) };
  }
  console.log(`load average (1 min) over the rounds: ${load.map((l) => l.toFixed(1)).join(' ')}`);
  return { checks: e.checks, rows, prefill, fit };
}

// The line through the end points for one kind of step time, overall (median of every step) and
// inside every round (the spread of its residuals is the noise), with simdformer's weight share
// a / t(c) and the bandwidths a and b imply; ORT's line for comparison.
function stepLine(label, contexts, times, bytes) {
  const xs = contexts.map((c) => c + (STEPS + 1) / 2);
  const ms = (name) => times.map((t) => median(t[name].flat()));
  const all = linearity(contexts, ms('simdformer'));
  const ort = linearity(contexts, ms('ort'));
  const residuals = times[0].simdformer.map((_, r) => linearity(contexts, times.map((t) => median(t.simdformer[r]))).residual);
  const line = {
    ms: ms('simdformer'), ortMs: ms('ort'), simdformer: all, ort,
    residualPerRound: { median: median(residuals), min: Math.min(...residuals), max: Math.max(...residuals) },
    weightShare: xs.map((x, i) => ({ context: contexts[i], share: all.a / (all.a + all.b * x) })),
    bandwidthGBs: { weights: bytes.weights / all.a / 1e6, cache: bytes.cachePerContextToken / all.b / 1e6 },
  };
  console.log(`step ${label} vs context (simdformer), median per context ${line.ms.map((t) => t.toFixed(2)).join(' / ')} ms: t(c) = a + b*c through c = ${contexts[0]} and ${contexts.at(-1)} `
    + `(c = keys seen, mean of the timed steps): a = ${all.a.toFixed(2)} ms, b = ${(all.b * 1000).toFixed(2)} us per context token`);
  console.log(`  middle point c = ${contexts[1]}: measured ${line.ms[1].toFixed(2)} ms, line ${all.predicted.toFixed(2)} ms, residual ${(100 * all.residual).toFixed(1)} % `
    + `(per round: median ${(100 * line.residualPerRound.median).toFixed(1)} %, range ${(100 * line.residualPerRound.min).toFixed(1)} .. ${(100 * line.residualPerRound.max).toFixed(1)} %)`);
  console.log(`  weight-streaming share a/t(c): ${line.weightShare.map((w) => `${w.context}: ${(100 * w.share).toFixed(0)} %`).join(', ')}; `
    + `implied bandwidth: weights ${(bytes.weights / 1e6).toFixed(0)} MB / a = ${line.bandwidthGBs.weights.toFixed(1)} GB/s, `
    + `K/V ${bytes.cachePerContextToken} B per context token / b = ${line.bandwidthGBs.cache.toFixed(1)} GB/s`);
  console.log(`  ${ORT_NAME} (${line.ortMs.map((t) => t.toFixed(2)).join(' / ')} ms): a = ${ort.a.toFixed(2)} ms, b = ${(ort.b * 1000).toFixed(2)} us per context token, middle residual ${(100 * ort.residual).toFixed(1)} %`);
  console.log(`  (super-linear growth, t = a + b*c + q*c^2, puts the middle point below the line by q*${Math.round(quadraticGap(xs))} ms: `
    + `a negative residual beyond the per-round range; linear growth leaves it within that range of 0)`);
  return line;
}

// How far the chord of c^2 through the end points lies above c^2 at the middle point.
function quadraticGap([x0, x1, x2]) {
  return x0 * x0 + ((x2 * x2 - x0 * x0) * (x1 - x0)) / (x2 - x0) - x1 * x1;
}

// ---- 2. the encoder-decoder generate --------------------------------------------------------

// An nn.Transformer-dialect checkpoint with random weights (the tensor names of arch/torch.cpp).
function randomTransformer({ d, heads, ff, layers, vocab, maxLen }) {
  const next = lcg(7);
  const tensors = [];
  const add = (name, shape, kind = 'weight') => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const scale = kind === 'weight' ? 1 / Math.sqrt(shape.at(-1)) : 0.02;
    if (kind === 'ones') data.fill(1);
    else if (kind !== 'zeros') for (let i = 0; i < n; i++) data[i] = (next() * 2 - 1) * scale;
    tensors.push({ name, shape, data });
  };
  const attention = (p) => {
    add(`${p}in_proj_weight`, [3 * d, d]); add(`${p}in_proj_bias`, [3 * d], 'bias');
    add(`${p}out_proj.weight`, [d, d]); add(`${p}out_proj.bias`, [d], 'bias');
  };
  const norm = (p) => { add(`${p}weight`, [d], 'ones'); add(`${p}bias`, [d], 'zeros'); };
  const feedForward = (p) => {
    add(`${p}linear1.weight`, [ff, d]); add(`${p}linear1.bias`, [ff], 'bias');
    add(`${p}linear2.weight`, [d, ff]); add(`${p}linear2.bias`, [d], 'bias');
  };
  for (let i = 0; i < layers; i++) {
    const p = `encoder.layers.${i}.`;
    attention(`${p}self_attn.`); feedForward(p); norm(`${p}norm1.`); norm(`${p}norm2.`);
  }
  for (let i = 0; i < layers; i++) {
    const p = `decoder.layers.${i}.`;
    attention(`${p}self_attn.`); attention(`${p}multihead_attn.`); feedForward(p);
    norm(`${p}norm1.`); norm(`${p}norm2.`); norm(`${p}norm3.`);
  }
  norm('encoder.norm.'); norm('decoder.norm.');
  add('src_embedding.weight', [vocab, d]); add('tgt_embedding.weight', [vocab, d]);
  add('generator.weight', [vocab, d]); add('generator.bias', [vocab], 'bias');
  // safetensors: header, then the data in order.
  let offset = 0;
  const header = {};
  for (const t of tensors) { header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] }; offset += t.data.byteLength; }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const t of tensors) { bytes.set(new Uint8Array(t.data.buffer), at); at += t.data.byteLength; }
  const config = { model_type: 'transformer', d_model: d, nhead: heads, dim_feedforward: ff, num_encoder_layers: layers,
    num_decoder_layers: layers, vocab_size: vocab, max_len: maxLen, positional: 'sinusoidal', scale_embedding: true, bos_token: 1 };
  return { bytes, config };
}

// nn.Transformer-sized (the base model of "Attention is all you need": d 512, 8 heads, 6 + 6
// layers), a 128-token source, 32 and 64 generated tokens, no attention maps recorded. With
// `before` (the package built from an earlier commit) both run the same checkpoint, interleaved.
async function benchEncoderDecoder(sf, before) {
  const shape = { d: 512, heads: 8, ff: 2048, layers: 6, vocab: 8000, maxLen: 512 };
  const srcLength = 128;
  const generated = quick ? [32] : [32, 64];
  const { bytes, config } = randomTransformer(shape);
  const engines = { after: sf.loadModelSync(bytes, config) };
  if (before) engines.before = before.loadModelSync(bytes, config);
  const names = Object.keys(engines);
  const next = lcg(3);
  const src = Array.from({ length: srcLength }, () => 3 + Math.floor(next() * (shape.vocab - 3)));
  const run = (name, n) => Array.from(engines[name].generate(src, { maxLength: n + 1, returnAttention: false }).tokens);
  // Warm-up, and the correctness check: both builds must pick the same tokens.
  const tokens = {};
  for (const name of names) tokens[name] = run(name, Math.max(...generated));
  const sameTokens = before ? tokens.before.join() === tokens.after.join() : null;
  let firstDifference = -1;
  if (before && !sameTokens) firstDifference = tokens.after.findIndex((t, i) => t !== tokens.before[i]);
  if (tokens.after.length !== Math.max(...generated) + 1) throw new Error(`generate stopped early: ${tokens.after.length - 1} tokens`);
  // times[name][n][round] -> ms for the whole generate call (source encoding included).
  const times = Object.fromEntries(names.map((k) => [k, Object.fromEntries(generated.map((n) => [n, []]))]));
  const cpuTimes = Object.fromEntries(names.map((k) => [k, Object.fromEntries(generated.map((n) => [n, []]))]));  // the same, CPU ms
  const load = [os.loadavg()[0]];
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of r % 2 ? [...generated].reverse() : generated) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const t0 = performance.now();
        const c0 = cpuMs();
        run(name, n);
        times[name][n].push(performance.now() - t0);
        cpuTimes[name][n].push(cpuMs() - c0);
      }
    }
    load.push(os.loadavg()[0]);
  }
  const rows = generated.map((n) => {
    const row = { srcLength, generated: n };
    for (const name of names) {
      const perToken = times[name][n].map((t) => t / n);
      row[name] = { msPerToken: median(perToken), p10: quantile(perToken, 0.1), p90: quantile(perToken, 0.9), cpuMsPerToken: median(cpuTimes[name][n]) / n };
    }
    if (before) row.speedup = median(times.before[n].map((t, r) => t / times.after[n][r]));  // same-round ratios
    if (before) row.speedupCpu = median(cpuTimes.before[n].map((t, r) => t / cpuTimes.after[n][r]));
    console.log(`encoder-decoder d=${shape.d}, ${shape.layers}+${shape.layers} layers, source ${srcLength}, ${n} tokens: `
      + names.map((k) => `${k} ${row[k].msPerToken.toFixed(2)} ms/token (whole generate / ${n})`).join(', ')
      + (before ? `; before/after ${row.speedup.toFixed(2)}x (median of same-round ratios)` : '')
      + `; CPU ms/token ${names.map((k) => `${k} ${row[k].cpuMsPerToken.toFixed(2)}`).join(', ')}` + (before ? ` (${row.speedupCpu.toFixed(2)}x)` : ''));
    return row;
  });
  // The decoding step alone: the extra time of 64 over 32 tokens (the encoder's share cancels).
  let step = null;
  if (generated.length === 2) {
    const [n0, n1] = generated;
    const marginal = (t, name, r) => (t[name][n1][r] - t[name][n0][r]) / (n1 - n0);
    step = {};
    for (const name of names) {
      step[name] = { msPerToken: median(times[name][n1].map((_, r) => marginal(times, name, r))),
        cpuMsPerToken: median(times[name][n1].map((_, r) => marginal(cpuTimes, name, r))) };
    }
    if (before) {
      step.speedup = median(times.before[n1].map((_, r) => marginal(times, 'before', r) / marginal(times, 'after', r)));
      step.speedupCpu = median(times.before[n1].map((_, r) => marginal(cpuTimes, 'before', r) / marginal(cpuTimes, 'after', r)));
    }
    console.log(`  per decoding step (tokens ${n0 + 1}..${n1}, (t(${n1}) - t(${n0})) / ${n1 - n0} per round): `
      + names.map((k) => `${k} ${step[k].msPerToken.toFixed(2)} ms`).join(', ') + (before ? `; before/after ${step.speedup.toFixed(2)}x` : '')
      + `; CPU ${names.map((k) => `${k} ${step[k].cpuMsPerToken.toFixed(2)} ms`).join(', ')}` + (before ? ` (${step.speedupCpu.toFixed(2)}x)` : ''));
  }
  if (before) console.log(`  tokens: ${sameTokens ? `the same ${tokens.after.length - 1} generated tokens from both builds` : `differ from position ${firstDifference}`}`);
  console.log(`  load average (1 min) over the rounds: ${load.map((l) => l.toFixed(1)).join(' ')}`);
  for (const m of Object.values(engines)) m.dispose();
  return { shape, srcLength, rows, step, sameTokens, firstDifference, tokens: tokens.after, loadavg: load };
}

// The package built from an earlier commit, on the same backend as this one (an old dist's
// 'auto' would pick its addon where it has prebuilds); a dist from before issue 31 has no
// `backend` option and only wasm.
async function initBefore(pkg) {
  try {
    return await pkg.init(BACKEND === 'native' ? { backend: 'native' } : { simd: true, backend: 'wasm' });
  } catch (e) {
    if (BACKEND === 'native' || !/backend/.test(e.message)) throw e;
    return pkg.init({ simd: true });
  }
}

async function main() {
  // --threads N: both engines on N threads (wasm: simdformer's pthreads build and ORT's
  // numThreads; native: the addon's std::thread pool and ORT's intraOpNumThreads). The decoders
  // then run each engine alone in a child process (--alone); this parent keeps no pool of its own
  // unless it times the encoder-decoder (--encdec-only) itself.
  const threads = THREADS;
  if (BACKEND === 'wasm') ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  // wasm: the SIMD128 build, as onnxruntime-web is wasm; native: the addon at the level the
  // loader picks for this CPU (SIMDFORMER_NATIVE_LEVEL forces one), as onnxruntime-node is native.
  const ownPool = threads > 1 && (ALONE || args.includes('--encdec-only'));
  const sfThreads = ownPool ? threads : 1;
  const sf = BACKEND === 'native'
    ? await init({ backend: 'native', threads: sfThreads })
    : await init(sfThreads > 1 ? { simd: true, threads: sfThreads, backend: 'wasm' } : { simd: true, backend: 'wasm' });
  await sf.threadsReady;  // the wasm threads build starts its pool in the background
  const beforeDir = arg('--before');
  const before = beforeDir ? await initBefore(await import(pathToFileURL(join(resolve(beforeDir), 'node.mjs')).href)) : null;
  const ortVersion = ort.env.versions?.[BACKEND === 'native' ? 'node' : 'web'] ?? '';
  console.log(`machine: ${process.arch}, ${os.cpus()[0].model}, Node ${process.version}; simdformer ${sf.backend ?? 'wasm'} ${sf.arch} (${sf.lanes} lanes); `
    + `${ORT_NAME} ${ortVersion} (${BACKEND === 'native' ? 'cpu' : 'wasm'}, ${threads} thread${threads > 1 ? 's' : ''}); ${ROUNDS} rounds x ${STEPS} steps per context; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (ALONE) {  // one engine alone (see measureDecoderAlone): its raw times to the parent
    const m = await measureDecoder(sf, arg('--decoder'), [ALONE]);
    process.stdout.write(JSON.stringify({ alone: m }));
    return;
  }
  const result = { backend: BACKEND, ort: `${ORT_NAME} ${ortVersion}`, arch: sf.arch, rounds: ROUNDS, steps: STEPS, threads, weights: WEIGHTS };
  if (!args.includes('--encdec-only')) {
    const names = arg('--decoder') ? [arg('--decoder')] : DECODERS.filter((n) => manifestOf(n));
    result.decoders = {};
    for (const name of names) result.decoders[name] = await benchDecoder(sf, name);
    result.gpt2 = result.decoders['gpt2-small'];
  }
  if (!args.includes('--gpt2-only')) result.encoderDecoder = await benchEncoderDecoder(sf, before);
  mkdirSync(join(HERE, '.cache'), { recursive: true });
  const out = arg('--json') ?? join(HERE, '.cache', BACKEND === 'native' ? 'decode-native.json' : 'decode.json');
  writeFileSync(out, JSON.stringify(result, null, 1));
  console.log(`results: ${out}`);
}

await main();
