// Issue 31: text -> normalised embedding in Node.js, simdformer's native addon against
// transformers.js on onnxruntime-node (its default native CPU backend and threads), in one
// process, interleaved rounds; simdformer's wasm build (one thread) beside them for reference.
// Workloads as issue 31's table: texts of exactly 5, 23, 46 and 128 tokens and a batch of 8
// sentences, on the MiniLM-L6- and BERT-base-shaped folders of bench/models/ (bench/export_hf.py).
// The embeddings of both engines must agree (cosine >= 0.9999) before anything is timed.
// Goals (issue 31): native <= 1.0x transformers.js on every workload, <= 0.8x at 128 tokens and
// for the batch.
//
// The machine is shared: the run refuses to time (exit 2) when the 1-minute load average is 1.0
// or more at the start, and prints the load at the end so a run that got loaded can be discarded.
//   node bench/native.mjs [--models minilm-l6,bert-base] [--threads 1|2] [--force]
//   (NATIVE_BUDGET_MS: timing budget per engine and workload, default 4000)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { interleave } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const BUDGET_MS = Number(process.env.NATIVE_BUDGET_MS ?? 4000);
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const MODELS = arg('--models', 'minilm-l6,bert-base').split(',');
const THREADS = Number(arg('--threads', '2'));
const LENGTHS = [5, 23, 46, 128];
const MIN_COSINE = 0.9999;
const POOL = { pooling: 'mean', normalize: true };
const PASSAGE = 'Attention lets every word of a sentence look at every other word and decide how much each one matters '
  + 'for its own meaning, and a model stacks many such layers to read whole documents quickly on small devices';
const BATCH = [
  'The quick brown fox jumps over the lazy dog.',
  'Attention is what the model uses to read every word in the light of the others.',
  'Hello, world!',
  'A sentence embedding is the mean of the last hidden states over the real tokens, normalised to unit length.',
  'WebAssembly runs the same code in every browser.',
  'Small models answer quickly; large models answer well.',
  'The lazy dog did not move when the fox jumped over it again and again.',
  'Every weight of every head can be shown as a heatmap.',
];

// A text of exactly n tokens (special tokens included) for this tokenizer.
function textOfTokens(model, n) {
  const count = (t) => model.encodeText(t).ids.length;
  const words = PASSAGE.split(' ');
  let text = '';
  for (let i = 0; count(text) < n; i = (i + 1) % words.length) {
    const next = text ? `${text} ${words[i]}` : words[i];
    text = count(next) <= n ? next : `${text} a`;
  }
  return text;
}

function minCosine(a, b) {
  const d = b.dims[1];
  let m = 1;
  a.forEach((v, i) => {
    let ab = 0, aa = 0, bb = 0;
    for (let j = 0; j < d; j++) { const w = b.data[i * d + j]; ab += v[j] * w; aa += v[j] * v[j]; bb += w * w; }
    m = Math.min(m, ab / Math.sqrt(aa * bb));
  });
  return m;
}

async function main() {
  const start = loadavg()[0];
  console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}; load average ${start.toFixed(2)} at the start`);
  if (start >= 1.0 && !process.argv.includes('--force')) {
    console.log('the machine is loaded (1-minute load average >= 1.0): not timing (pass --force to time anyway)');
    process.exitCode = 2;
    return;
  }
  for (const name of MODELS) {
    if (!existsSync(join(HERE, 'models', name))) throw new Error(`bench/models/${name} is missing: run bench/export_hf.py (npm run bench does)`);
  }
  const { pipeline, env } = await import('@huggingface/transformers');
  const { init } = await import('../dist/node.mjs');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = join(HERE, 'models') + '/';
  const native = await init({ backend: 'native', threads: THREADS });
  const wasm = await init({ backend: 'wasm' });
  console.log(`simdformer native: ${native.arch}, ${native.lanes} lanes, ${native.threads} threads; wasm: ${wasm.arch}, 1 thread`);
  const results = [];
  for (const name of MODELS) {
    const nm = await native.loadPretrained(join(HERE, 'models', name));
    const wm = await wasm.loadPretrained(join(HERE, 'models', name));
    const tjs = await pipeline('feature-extraction', name, { dtype: 'fp32' });  // onnxruntime-node, its default threads
    const workloads = [...LENGTHS.map((n) => ({ name: `${n} tokens`, texts: [textOfTokens(nm, n)] })), { name: 'batch of 8', texts: BATCH }];
    for (const w of workloads) {
      const cos = Math.min(minCosine(nm.embed(w.texts, POOL), await tjs(w.texts, POOL)), minCosine(wm.embed(w.texts, POOL), await tjs(w.texts, POOL)));
      if (!(cos >= MIN_COSINE)) throw new Error(`${name} ${w.name}: simdformer and transformers.js disagree (cosine ${cos})`);
      const t = await interleave(['native', 'transformers.js', 'wasm'], async (engine) => {
        const t0 = performance.now();
        if (engine === 'native') nm.embed(w.texts, POOL);
        else if (engine === 'wasm') wm.embed(w.texts, POOL);
        else await tjs(w.texts, POOL);
        return performance.now() - t0;
      }, BUDGET_MS);
      const ratio = t.native.median / t['transformers.js'].median;
      results.push({ model: name, workload: w.name, cosine: cos, ...t, nativeOverTjs: ratio });
      console.log(`  ${name.padEnd(10)} ${w.name.padEnd(11)} native ${t.native.median.toFixed(1)} ms | transformers.js ${t['transformers.js'].median.toFixed(1)} ms | ` +
        `wasm ${t.wasm.median.toFixed(1)} ms | native / transformers.js ${ratio.toFixed(2)} (${t.rounds} rounds)`);
    }
    nm.dispose();
    wm.dispose();
    await tjs.dispose();
  }
  const end = loadavg()[0];
  console.log(`load average (1 min) at the start / at the end: ${start.toFixed(2)} / ${end.toFixed(2)}${end >= 1.0 ? ' -- LOADED: discard this run' : ''}`);
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, 'native.json'), JSON.stringify({ date: new Date().toISOString(), loadavg: [start, end], threads: THREADS,
    arch: native.arch, results }, null, 1));
  console.log(`results: ${join(CACHE, 'native.json')}`);
  native.dispose();
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
