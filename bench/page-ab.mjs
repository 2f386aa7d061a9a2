// A/B of two builds of the package in headless Chromium, one thread, where relaxed SIMD runs (Node
// 20 has none: bench/runners-ab.mjs's A/B there can miss what only V8 in the page does): the
// page of bench/short-texts.mjs twice, one per build (their own processes, one thread each, run
// one at a time), text -> embedding of texts of 5 / 23 / 46 / 128 tokens on bench/models' MiniLM-L6
// and BERT-base folders, rounds alternated (A B B A ...); medians, B / A and the paired median of
// B / A per round. Run an A/A first (the same build copied) to see the spread between two pages:
// +-2 % measured on an idle Xeon (where each page's memory lands).
//   node bench/page-ab.mjs <dist A> <dist B> [--models minilm-l6,bert-base] [--weights f32|int8] [--relaxed off]
// --relaxed off: both pages with relaxedSimd: false (the 8-bit int8 k-loop, SIMD128's multiply and
// add), what engines without relaxed SIMD or without VNNI run.
import { resolve } from 'node:path';

import { openEmbedPage } from './embed-page/open.mjs';
import { median } from './stats.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : args.splice(i, 2)[1]; };
const MODELS = opt('--models', 'minilm-l6,bert-base').split(',');
const WEIGHTS = opt('--weights', 'f32');  // or int8: simdformer's weights: 'int8'
const QUERY = opt('--relaxed', 'on') === 'off' ? 'threads=1&relaxed=off' : 'threads=1';
const [a, b] = args.map((d) => resolve(d));
if (!a || !b) throw new Error('usage: node bench/page-ab.mjs <dist A> <dist B> [--models minilm-l6,bert-base] [--weights f32|int8] [--relaxed off]');
// Calls per timed sample: ~200 ms of work (the page's clock ticks in 0.1 ms).
const MS_PER_TOKEN = { 'minilm-l6': 0.7, 'bert-base': 5 };
const pages = [await openEmbedPage(QUERY, { dist: a }), await openEmbedPage(QUERY, { dist: b })];
try {
  for (const name of MODELS) {
    for (const p of pages) await p.page.evaluate(([m, w]) => window.embedBench.load(m, w, { engines: ['simdformer'] }), [name, WEIGHTS]);
    for (const n of [5, 23, 46, 128]) {
      const text = await pages[0].page.evaluate(([m, k]) => window.embedBench.textOfTokens(m, k), [name, n]);
      const run = (i, reps) => pages[i].page.evaluate(async ([m, t, r]) => { const s = performance.now(); for (let j = 0; j < r; j++) await window.embedBench.run('simdformer', m, [t]); return (performance.now() - s) / r; }, [name, text, reps]);
      const reps = Math.max(1, Math.round(200 / ((MS_PER_TOKEN[name] ?? 5) * n)));
      for (const i of [0, 1]) await run(i, reps);  // warm-up: tier-up, workspace
      const t = [[], []];
      for (let r = 0; r < 15; r++) for (const i of r % 2 ? [1, 0] : [0, 1]) t[i].push(await run(i, reps));
      const paired = median(t[1].map((v, r) => v / t[0][r]));
      console.log(`${name} ${n} tok: A ${median(t[0]).toFixed(2)} ms, B ${median(t[1]).toFixed(2)} ms, B/A ${(median(t[1]) / median(t[0])).toFixed(3)} (paired ${paired.toFixed(3)})`);
    }
  }
} finally {
  for (const p of pages) await p.close();
}
