// Text -> sentence embedding end to end (tokenize, encode, mean-pool, L2-normalise) on the
// BERT-base-shaped (12 x 768) and MiniLM-L6-shaped (6 x 384) folders of bench/models/ (written by
// bench/export_hf.py): simdformer against transformers.js (feature-extraction, fp32, the same
// weights exported to ONNX, local folder, remote models off).
//  1. Browser: ONE headless Chromium page on 127.0.0.1 (bench/embed-page/), both engines on
//     WebAssembly with one thread, interleaved rounds, in-page timings.
//  2. Node (reported, no goal): transformers.js on its default native backend (onnxruntime-node,
//     its default threads) next to simdformer's wasm build (one thread), interleaved.
// Token ids and embeddings are compared (cosine) before anything is timed.
//   node bench/embed.mjs [--quick]     (EMBED_BUDGET_MS: timing budget per engine and workload)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openEmbedPage } from './embed-page/open.mjs';
import { interleave } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const BUDGET_MS = Number(process.env.EMBED_BUDGET_MS ?? 6000);
const MODELS = ['bert-base', 'minilm-l6'];
const TEXTS = [
  'The quick brown fox jumps over the lazy dog.',
  'Attention is what the model uses to read every word in the light of the others.',
  'Hello, world!',
  'A sentence embedding is the mean of the last hidden states over the real tokens, normalised to unit length.',
  'WebAssembly runs the same code in every browser.',
  'Small models answer quickly; large models answer well.',
  'The lazy dog did not move when the fox jumped over it again and again.',
  'Every weight of every head can be shown as a heatmap.',
];
const WORKLOADS = [{ name: '1 sentence', texts: [TEXTS[1]] }, { name: '8 sentences', texts: TEXTS }];
const MIN_COSINE = 0.9999;

async function browserPart() {
  const { page, errors, notFound, close } = await openEmbedPage();
  try {
    const versions = await page.evaluate(() => window.embedBench.versions());
    console.log(`browser: ${versions.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? versions.userAgent}; transformers.js ${versions.transformers}, onnxruntime-web ${versions.ort}; crossOriginIsolated ${versions.crossOriginIsolated}`);
    const results = [];
    for (const name of MODELS) {
      const load = await page.evaluate((n) => window.embedBench.load(n), name);
      const mib = (x) => (x / 2 ** 20).toFixed(1);
      const bound = (load.memory.packed + load.memory.largestTensor) * 1.1;
      console.log(`${name}: loaded (simdformer ${load.sfMs.toFixed(0)} ms, transformers.js ${load.tjsMs.toFixed(0)} ms); simdformer load peak ${mib(load.memory.peak)} MiB ` +
        `(packed ${mib(load.memory.packed)} + largest tensor ${mib(load.memory.largestTensor)} + 10% = ${mib(bound)}; heap growth ${mib(load.memory.heapGrowth)} MiB)`);
      const check = await page.evaluate(([n, t]) => window.embedBench.check(n, t), [name, TEXTS]);
      console.log(`${name}: token ids ${check.idsEqual ? 'equal' : 'DIFFER'} (${check.tokens.join(', ')} tokens); embeddings min cosine ${check.minCos.toFixed(7)}, max |diff| ${check.maxDiff.toExponential(2)}`);
      if (!check.idsEqual || !(check.minCos >= MIN_COSINE)) throw new Error(`${name}: simdformer and transformers.js disagree`);
      const row = { model: name, load, check, workloads: [] };
      for (const w of WORKLOADS) {
        const t = await interleave(['simdformer', 'transformers.js'],
          (engine) => page.evaluate(([e, n, texts]) => window.embedBench.run(e, n, texts), [engine, name, w.texts]), BUDGET_MS);
        row.workloads.push({ name: w.name, ...t });
        console.log(`  ${w.name.padEnd(12)} simdformer ${t.simdformer.median.toFixed(1)} ms | transformers.js ${t['transformers.js'].median.toFixed(1)} ms | ` +
          `ratio ${t.ratio.toFixed(2)} (median of ${t.rounds} rounds)`);
      }
      await page.evaluate((n) => window.embedBench.unload(n), name);
      results.push(row);
    }
    if (notFound.size) console.log(`not found (asked for by the page, optional): ${[...notFound].join(', ')}`);
    if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
    return { versions, results };
  } finally {
    await close();
  }
}

async function nodePart() {
  const { pipeline, env } = await import('@huggingface/transformers');
  const { init } = await import('../dist/node.mjs');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = join(HERE, 'models') + '/';
  const sf = await init({ simd: true });
  const pool = { pooling: 'mean', normalize: true };
  const results = [];
  for (const name of MODELS) {
    const model = await sf.loadPretrained(join(HERE, 'models', name));
    const tjs = await pipeline('feature-extraction', name, { dtype: 'fp32' });  // default device: native CPU
    const a = model.embed(TEXTS, pool), b = await tjs(TEXTS, pool);
    const d = b.dims[1];
    let minCos = 1;
    a.forEach((v, i) => { let ab = 0; for (let j = 0; j < d; j++) ab += v[j] * b.data[i * d + j]; minCos = Math.min(minCos, ab); });
    if (!(minCos >= MIN_COSINE)) throw new Error(`${name} (Node): simdformer and transformers.js disagree, cosine ${minCos}`);
    const row = { model: name, minCos, workloads: [] };
    for (const w of WORKLOADS) {
      const t = await interleave(['simdformer', 'transformers.js'], async (engine) => {
        const t0 = performance.now();
        if (engine === 'simdformer') model.embed(w.texts, pool);
        else await tjs(w.texts, pool);
        return performance.now() - t0;
      }, BUDGET_MS);
      row.workloads.push({ name: w.name, ...t });
      console.log(`  node ${name} ${w.name.padEnd(12)} simdformer (wasm, 1 thread) ${t.simdformer.median.toFixed(1)} ms | transformers.js (onnxruntime-node) ` +
        `${t['transformers.js'].median.toFixed(1)} ms | ratio ${t.ratio.toFixed(2)} (${t.rounds} rounds)`);
    }
    model.dispose();
    await tjs.dispose();
    results.push(row);
  }
  return { results };
}

async function main() {
  const load = [loadavg()[0]];
  console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}; load average ${load[0].toFixed(1)} at the start`);
  const browser = await browserPart();
  load.push(loadavg()[0]);
  const node = await nodePart();
  load.push(loadavg()[0]);
  console.log(`load average (1 min) at start / after the browser part / at the end: ${load.map((x) => x.toFixed(1)).join(' / ')}`);
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, 'embed.json'), JSON.stringify({ date: new Date().toISOString(), loadavg: load, texts: TEXTS, browser, node }, null, 1));
  const f = (x) => x.toFixed(1);
  const span = (t) => `${f(t.median)} (${f(t.p10)}–${f(t.p90)})`;
  const lines = ['| model | texts (tokens) | simdformer ms (p10–p90) | transformers.js ms (p10–p90) | ratio of medians | median of per-round ratios | rounds |',
    '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of browser.results) for (const w of r.workloads) {
    const tokens = w.name === '1 sentence' ? r.check.tokens[1] : r.check.tokens.reduce((a, b) => a + b, 0);
    lines.push(`| ${r.model} | ${w.name} (${tokens}) | ${span(w.simdformer)} | ${span(w['transformers.js'])} | ${(w.simdformer.median / w['transformers.js'].median).toFixed(2)} | ${w.ratio.toFixed(2)} | ${w.rounds} |`);
  }
  lines.push('', '| model (Node) | texts | simdformer wasm ms | transformers.js onnxruntime-node ms | ratio of medians | median of per-round ratios | rounds |',
    '| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of node.results) for (const w of r.workloads) {
    lines.push(`| ${r.model} | ${w.name} | ${span(w.simdformer)} | ${span(w['transformers.js'])} | ${(w.simdformer.median / w['transformers.js'].median).toFixed(2)} | ${w.ratio.toFixed(2)} | ${w.rounds} |`);
  }
  writeFileSync(join(CACHE, 'embed.md'), lines.join('\n') + '\n');
  console.log(`results: ${join(CACHE, 'embed.json')}, ${join(CACHE, 'embed.md')}`);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
