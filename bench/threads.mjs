// Threads benchmark: simdformer on one thread, simdformer on N threads (the pthreads build) and
// onnxruntime-web with numThreads = N, in one Node process on the same PyTorch weights. Outputs
// are checked against PyTorch before timing; the three engines run in interleaved rounds with
// alternating order, so machine drift and other processes hit them alike; medians and the
// ratios of medians are printed. Also: the pthreads .wasm size and its instantiation time with
// the pool of workers ready.
//   node bench/threads.mjs [--threads N] [--json out.json]     (needs bench/.cache from run.sh)
// onnxruntime-web fixes its thread count once per process, so one process compares one N.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import * as ort from 'onnxruntime-web';

import { init } from '../dist/node.mjs';
import { readSafetensors } from './safetensors.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const N = Number(opt('--threads', 2));
const jsonOut = opt('--json', join(CACHE, `threads-${N}.json`));
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 4000);  // per engine and workload
const WORKLOADS = ['gemm_128x768x768', 'mha_d768_s128', 'bert_layer_none', 'encoder6'];


const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const maxDiff = (a, b) => { let m = 0; for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return Number.isNaN(m) ? Infinity : m; };

async function simdformerRunner(sf, w, files) {
  const io = files.io.tensors;
  if (w.kind === 'gemm') {
    const W = files.weights.tensors.weight, b = files.weights.tensors.bias;
    const layer = sf.linear(W.data, b.data, w.k, w.n);
    return { run: () => layer.forward(io.x.data), dispose: () => layer.dispose() };
  }
  const config = JSON.parse(readFileSync(join(CACHE, `${w.name}.json`), 'utf8'));
  const model = await sf.loadModel(files.weights.bytes, config);
  return { run: () => model.encode(io.x.data).output, dispose: () => model.dispose() };
}

async function ortRunner(w, files) {
  const session = await ort.InferenceSession.create(readFileSync(join(CACHE, `${w.name}.onnx`)), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const feeds = { x: new ort.Tensor('float32', files.io.tensors.x.data, files.io.tensors.x.shape) };
  const output = session.outputNames[0];
  return { run: async () => (await session.run(feeds))[output].data, dispose: () => session.release() };
}

// Interleaved rounds, order alternating; per round also the ratio of each engine to the first.
async function timeInterleaved(runners) {
  const names = Object.keys(runners);
  const warmUntil = performance.now() + 1500;  // until V8 has optimised every engine's code
  while (performance.now() < warmUntil) for (const n of names) await runners[n].run();
  const first = {};
  for (const n of names) {
    const t = performance.now();
    await runners[n].run();
    first[n] = performance.now() - t;
  }
  const rounds = Math.max(9, Math.min(80, Math.ceil(BUDGET_MS / Math.max(...Object.values(first)))));
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of (r % 2 ? [...names].reverse() : names)) {
      const t = performance.now();
      await runners[n].run();
      times[n].push(performance.now() - t);
    }
  }
  const ratio = (a, b) => median(times[a].map((x, i) => x / times[b][i]));  // same-round ratios
  return { rounds, median: Object.fromEntries(names.map((n) => [n, median(times[n])])), ratio };
}

async function main() {
  if (!Number.isSafeInteger(N) || N < 2) throw new Error(`--threads must be an integer >= 2, got ${opt('--threads')}`);
  const manifest = JSON.parse(readFileSync(join(CACHE, 'manifest.json'), 'utf8'));
  ort.env.wasm.numThreads = N;
  ort.env.logLevel = 'error';
  const one = await init();
  const many = await init({ threads: N });
  await many.threadsReady;
  const os = await import('node:os');
  console.log(`simdformer 1 thread vs ${many.threads} threads vs onnxruntime-web ${ort.env.versions?.web ?? ''} numThreads = ${N}; ` +
    `${os.cpus().length} logical CPUs (${os.cpus()[0].model}), load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const results = [];
  for (const name of WORKLOADS) {
    const w = manifest.workloads.find((x) => x.name === name);
    const files = { weights: readSafetensors(join(CACHE, `${w.name}.safetensors`)), io: readSafetensors(join(CACHE, `${w.name}.io.safetensors`)) };
    const runners = { sf1: await simdformerRunner(one, w, files), sfN: await simdformerRunner(many, w, files), ortN: await ortRunner(w, files) };
    const expected = files.io.tensors.expected.data;
    const outputs = {};
    for (const [n, r] of Object.entries(runners)) {
      outputs[n] = await r.run();
      const d = maxDiff(outputs[n], expected);
      if (!(d < 2e-3)) throw new Error(`${w.name}: ${n} differs from PyTorch by ${d}`);
    }
    if (maxDiff(outputs.sf1, outputs.sfN) !== 0) throw new Error(`${w.name}: ${N} threads differ from one thread`);
    const t = await timeInterleaved(runners);
    const row = { name: w.name, rounds: t.rounds, ms: t.median, speedup: t.ratio('sf1', 'sfN'), vsOrt: t.ratio('sfN', 'ortN'),
                  gflops: w.flops / (t.median.sfN * 1e6) };
    results.push(row);
    for (const r of Object.values(runners)) await r.dispose();
    const ms = (x) => x.toFixed(2).padStart(8);
    console.log(`${w.name.padEnd(18)} sf 1 thread ${ms(t.median.sf1)} ms | sf ${N} threads ${ms(t.median.sfN)} ms (x${row.speedup.toFixed(2)}) | ` +
      `ort ${N} threads ${ms(t.median.ortN)} ms | sf/ort ${row.vsOrt.toFixed(2)} | ${t.rounds} rounds`);
  }
  many.dispose();

  // The pthreads build: size; init() (resolves once the main module is ready) and threadsReady
  // (its N - 1 workers loaded and the pool sized), both from the call.
  const wasm = readFileSync(join(HERE, '..', 'dist', 'simdformer-threads.wasm'));
  const inits = [], readies = [];
  for (let i = 0; i < 9; i++) {
    const t = performance.now();
    const sf = await init({ threads: N });
    inits.push(performance.now() - t);
    await sf.threadsReady;
    readies.push(performance.now() - t);
    sf.dispose();
  }
  const size = { wasmBytes: wasm.length, wasmGzip: gzipSync(wasm, { level: 9 }).length, instantiateMs: median(inits), threadsReadyMs: median(readies) };
  console.log(`\nsimdformer-threads.wasm ${size.wasmBytes} B (${size.wasmGzip} B gzip); init({ threads: ${N} }) ${size.instantiateMs.toFixed(1)} ms, ` +
    `threadsReady ${size.threadsReadyMs.toFixed(1)} ms (medians of 9)`);
  writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), threads: N, loadavg: os.loadavg(), size, results }, null, 1));
  console.log(`results: ${jsonOut}`);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
