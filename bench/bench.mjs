// Side-by-side benchmark: simdformer (wasm SIMD128 and scalar) against onnxruntime-web (wasm,
// 1 thread) and TF.js (wasm backend, 1 thread) in one Node process on the same PyTorch weights.
// Outputs are checked against PyTorch before timing; engines run in interleaved rounds so machine
// drift hits all of them alike; medians, p10-p90, GFLOP/s and ratios are printed.
//   node bench/bench.mjs [--quick] [--json out.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import * as ort from 'onnxruntime-web';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount } from '@tensorflow/tfjs-backend-wasm';

import { init } from '../dist/node.mjs';
import { ceilingModule, measureCeiling } from './ceiling.mjs';
import { makeGraphs } from './tfjs-graph.mjs';
import { readSafetensors } from './safetensors.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : join(CACHE, 'results.json');
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 2500);  // timing budget per engine and workload


const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

function maxDiff(a, b, rows, rowLen, skipRows = new Set()) {
  let m = 0;
  for (let r = 0; r < rows; r++) {
    if (skipRows.has(r)) continue;
    for (let i = r * rowLen; i < (r + 1) * rowLen; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  }
  return Number.isNaN(m) ? Infinity : m;
}

// ---- engines -------------------------------------------------------------------------------------
async function simdformerRunner(sf, w, files, extra = {}) {
  const io = files.io.tensors;
  if (w.kind === 'gemm') {
    const W = files.weights.tensors.weight, b = files.weights.tensors.bias;
    const layer = sf.linear(W.data, b.data, w.k, w.n);
    const x = io.x.data;
    return { run: () => layer.forward(x), dispose: () => layer.dispose() };
  }
  const config = JSON.parse(readFileSync(join(CACHE, `${w.name}.json`), 'utf8'));
  const model = await sf.loadModel(files.weights.bytes, config);
  const d = config.d_model ?? config.embed_dim;
  const returnAttention = extra.returnAttention ?? false;
  if (w.kind === 'transformer') {
    const src = io.src.data, tgt = io.tgt.data;
    return { model, run: () => model.forward(src, tgt, { returnAttention }).output, dispose: () => model.dispose() };
  }
  const x = io.x.data;
  const options = { returnAttention };
  if (w.mask === 'causal') options.causal = true;
  if (w.mask === 'padding') options.paddingMask = Array.from(io.padding.data, (v) => v !== 0);
  void d;
  return { model, run: () => model.encode(x, options).output, dispose: () => model.dispose() };
}

async function ortRunner(w, files) {
  const session = await ort.InferenceSession.create(readFileSync(join(CACHE, `${w.name}.onnx`)), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const io = files.io.tensors;
  const feeds = {};
  for (const name of w.inputs) {
    const t = io[name];
    feeds[name] = name === 'padding'
      ? new ort.Tensor('bool', Uint8Array.from(t.data, (v) => (v ? 1 : 0)), t.shape)
      : new ort.Tensor('float32', t.data, t.shape);
  }
  const output = session.outputNames[0];
  return { run: async () => (await session.run(feeds))[output].data, dispose: () => session.release() };
}

function tfjsRunner(w, files) {
  const build = makeGraphs(tf);
  const weights = {};
  for (const [name, t] of Object.entries(files.weights.tensors)) weights[name] = tf.keep(tf.tensor(t.data, t.shape));
  const t = (name) => {
    if (!(name in weights)) throw new Error(`tfjs graph: no tensor ${name}`);
    return weights[name];
  };
  const config = w.kind === 'gemm' ? {} : JSON.parse(readFileSync(join(CACHE, `${w.name}.json`), 'utf8'));
  const graph = build(w, t, config);
  const io = files.io.tensors;
  const inputs = {};
  for (const name of w.inputs) {
    const shape = io[name].shape.slice(1);  // drop the batch dimension of 1
    inputs[name] = tf.keep(tf.tensor(io[name].data, shape));
  }
  return {
    run: () => tf.tidy(() => graph(inputs)).dataSync(),
    dispose: () => { for (const x of [...Object.values(weights), ...Object.values(inputs)]) x.dispose(); },
  };
}

// Wasm memory of the BERT-base layer in a fresh module: after instantiation, after loading (the
// file's bytes are copied in while the weights are packed, then freed), after one encode.
async function measureMemory(w, files) {
  const sf = await init({ simd: true });
  const start = sf.heapBytes;
  const config = JSON.parse(readFileSync(join(CACHE, `${w.name}.json`), 'utf8'));
  const model = await sf.loadModel(files.weights.bytes, config);
  const afterLoad = { heap: sf.heapBytes, live: sf.liveBytes };
  model.encode(files.io.tensors.x.data);
  const afterRun = { heap: sf.heapBytes, live: sf.liveBytes };
  const m = { startHeap: start, afterLoad, afterRun, fileBytes: files.weights.bytes.length, weightBytes: model.parameterCount * 4,
              workspaceBytes: model.workspaceBytes, activationBytes: w.seq * config.d_model * 4,
              hiddenBytes: w.seq * config.dim_feedforward * 4 };
  model.dispose();
  return m;
}

// ---- timing --------------------------------------------------------------------------------------
async function timeInterleaved(runners) {
  const names = Object.keys(runners);
  for (const n of names) for (let i = 0; i < 3; i++) await runners[n].run();  // warm-up (JIT, tier-up, caches)
  const first = {};
  for (const n of names) {
    const t = performance.now();
    await runners[n].run();
    first[n] = performance.now() - t;
  }
  const slowest = Math.max(...Object.values(first));
  const rounds = Math.max(7, Math.min(60, Math.ceil(BUDGET_MS / Math.max(slowest, 0.01))));
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of (r % 2 ? [...names].reverse() : names)) {  // alternate the order too
      const t = performance.now();
      await runners[n].run();
      times[n].push(performance.now() - t);
    }
  }
  return Object.fromEntries(names.map((n) => [n, { median: median(times[n]), p10: quantile(times[n], 0.1), p90: quantile(times[n], 0.9), rounds }]));
}

// ---- main ----------------------------------------------------------------------------------------
async function main() {
  const manifest = JSON.parse(readFileSync(join(CACHE, 'manifest.json'), 'utf8'));
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const [simd, scalar] = await Promise.all([init({ simd: true }), init({ simd: false })]);
  const ceiling = await measureCeiling();
  writeFileSync(join(CACHE, 'ceiling.wasm'), ceilingModule());  // bench/run.sh disassembles it
  console.log(`wasm SIMD128 mul+add ceiling: ${ceiling.gflops.toFixed(1)} GFLOP/s (${ceiling.chains} independent f32x4 chains)`);
  console.log(`machine: ${process.arch}, ${(await import('node:os')).cpus()[0].model}, Node ${process.version}; simdformer ${simd.arch} vs ${scalar.arch}; onnxruntime-web ${ort.env.versions?.web ?? ''}; tfjs ${tf.version_core}\n`);

  const results = [];
  for (const w of manifest.workloads) {
    const files = { weights: readSafetensors(join(CACHE, `${w.name}.safetensors`)), io: readSafetensors(join(CACHE, `${w.name}.io.safetensors`)) };
    const runners = {
      simdformer: await simdformerRunner(simd, w, files),
      ort: await ortRunner(w, files),
      tfjs: tfjsRunner(w, files),
      scalar: await simdformerRunner(scalar, w, files),
    };
    if (w.kind !== 'gemm') runners.weights = await simdformerRunner(simd, w, files, { returnAttention: true });
    // Cross-check every engine against PyTorch before timing.
    const expected = files.io.tensors.expected;
    const [rows, rowLen] = [expected.shape.at(-2), expected.shape.at(-1)];
    const skip = new Set();
    if (w.mask === 'padding') files.io.tensors.padding.data.forEach((v, i) => { if (v) skip.add(i); });  // PyTorch zeroes padded rows
    const check = {};
    for (const [name, r] of Object.entries(runners)) {
      check[name] = maxDiff(await r.run(), expected.data, rows, rowLen, skip);
      if (!(check[name] < 2e-3)) throw new Error(`${w.name}: ${name} differs from PyTorch by ${check[name]}`);
    }
    const t = await timeInterleaved(runners);
    const gflops = (ms) => w.flops / (ms * 1e6);
    const row = {
      name: w.name, flops: w.flops, check, times: t,
      vsOrt: t.simdformer.median / t.ort.median, vsTfjs: t.simdformer.median / t.tfjs.median,
      simdSpeedup: t.scalar.median / t.simdformer.median,
      weightsCost: t.weights ? t.weights.median / t.simdformer.median - 1 : null,
      gflops: gflops(t.simdformer.median), ortGflops: gflops(t.ort.median), efficiency: gflops(t.simdformer.median) / ceiling.gflops,
    };
    if (w.name === 'bert_layer_none') row.memory = await measureMemory(w, files);
    results.push(row);
    for (const r of Object.values(runners)) await r.dispose();
    const ms = (x) => x.median.toFixed(3).padStart(8);
    console.log(`${w.name.padEnd(20)} sf ${ms(t.simdformer)} ms (${row.gflops.toFixed(1)} GFLOP/s, ${(100 * row.efficiency).toFixed(0)}% of ceiling) | ` +
      `ort ${ms(t.ort)} | tfjs ${ms(t.tfjs)} | sf/ort ${row.vsOrt.toFixed(2)} | sf/tfjs ${row.vsTfjs.toFixed(2)} | ` +
      `scalar ${ms(t.scalar)} (x${row.simdSpeedup.toFixed(1)})` + (row.weightsCost !== null ? ` | +weights ${(100 * row.weightsCost).toFixed(1)}%` : ''));
  }

  // Package size and instantiation time.
  const wasm = readFileSync(join(HERE, '..', 'dist', 'simdformer.wasm'));
  const glue = await import('../dist/simdformer.mjs');
  const inits = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    await glue.default({ wasmBinary: wasm });
    inits.push(performance.now() - t);
  }
  const size = { wasmBytes: wasm.length, wasmGzip: gzipSync(wasm, { level: 9 }).length,
                 glueGzip: gzipSync(readFileSync(join(HERE, '..', 'dist', 'simdformer.mjs')), { level: 9 }).length,
                 instantiateMs: median(inits) };
  console.log(`\nsimdformer.wasm ${size.wasmBytes} B (${size.wasmGzip} B gzip), glue ${size.glueGzip} B gzip; instantiation ${size.instantiateMs.toFixed(1)} ms (median of 15)`);
  const mem = results.find((r) => r.memory)?.memory;
  if (mem) {
    const mib = (x) => (x / 2 ** 20).toFixed(1);
    console.log(`BERT-base layer memory (fresh module): heap ${mib(mem.startHeap)} MiB at start, ${mib(mem.afterLoad.heap)} MiB after load, ` +
      `${mib(mem.afterRun.heap)} MiB after encode; live buffers ${mib(mem.afterRun.live)} MiB = weights ${mib(mem.weightBytes)} MiB + ` +
      `workspace ${mib(mem.workspaceBytes)} MiB (one [128, 768] activation ${mib(mem.activationBytes)} MiB, FFN hidden ${mib(mem.hiddenBytes)} MiB)`);
  }
  writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), ceiling, size, results }, null, 1));
  const f = (x, digits = 2) => x.toFixed(digits);
  const span = (t) => `${f(t.median)} (${f(t.p10)}–${f(t.p90)})`;
  const table = ['| workload | simdformer ms (p10–p90) | GFLOP/s (% of ceiling) | onnxruntime-web ms | TF.js wasm ms | sf / ort | sf / tfjs | scalar ms (SIMD speed-up) | + all weights |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...results.map((r) => `| ${r.name} | ${span(r.times.simdformer)} | ${f(r.gflops, 1)} (${f(100 * r.efficiency, 0)}%) | ${span(r.times.ort)} | ` +
      `${span(r.times.tfjs)} | ${f(r.vsOrt)} | ${f(r.vsTfjs)} | ${f(r.times.scalar.median)} (×${f(r.simdSpeedup, 1)}) | ` +
      `${r.weightsCost === null ? '–' : `${r.weightsCost >= 0 ? '+' : ''}${f(100 * r.weightsCost, 1)}%`} |`)];
  writeFileSync(jsonOut.replace(/\.json$/, '.md'), table.join('\n') + '\n');
  console.log(`results: ${jsonOut}`);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
