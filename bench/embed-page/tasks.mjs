// Text classification and cross-encoder reranking in one page, both engines on WebAssembly:
// simdformer (dist/browser.mjs: classify, rerank) and transformers.js (text-classification
// pipeline; AutoTokenizer + AutoModelForSequenceClassification on [query, document] pairs with a
// sigmoid, as its cross-encoder examples do), the same weights (bench/models/minilm-l6-cls,
// minilm-l6-rerank, written by bench/export_hf.py). Loaded by index.html next to page.mjs;
// bench/tasks.mjs drives window.taskBench. Every timing is taken here, in the page.
import { init } from '/dist/browser.mjs';
import { AutoModelForSequenceClassification, AutoTokenizer, env, pipeline } from '/bnm/@huggingface/transformers/dist/transformers.js';

const THREADS = Number(new URLSearchParams(location.search).get('threads') ?? 1);
const loaded = {};  // name -> { sfModel, tjs: pipeline | { tokenizer, model } }
const sigmoid = (x) => 1 / (1 + Math.exp(-x));

// transformers.js on a cross-encoder: the pairs' logits, each through a sigmoid, in document order.
async function tjsRerank({ tokenizer, model }, query, documents) {
  const inputs = tokenizer(documents.map(() => query), { text_pair: documents, padding: true, truncation: true });
  const { logits } = await model(inputs);
  return Array.from(logits.data, sigmoid);
}

window.taskBench = {
  // task: 'classify' | 'rerank'. env (paths, threads) is set by page.mjs, which loads first.
  async load(name, task) {
    const sf = await init({ simd: true, threads: THREADS });
    if (await sf.threadsReady !== THREADS) throw new Error(`simdformer runs ${sf.threads} threads, ${THREADS} asked: ${sf.threadsNote}`);
    const m = {};
    let t = performance.now();
    m.sfModel = await sf.loadPretrained(`/models/${name}/`);
    const sfMs = performance.now() - t;
    t = performance.now();
    m.tjs = task === 'classify'
      ? await pipeline('text-classification', name, { dtype: 'fp32', device: 'wasm' })
      : { tokenizer: await AutoTokenizer.from_pretrained(name),
          model: await AutoModelForSequenceClassification.from_pretrained(name, { dtype: 'fp32', device: 'wasm' }) };
    const tjsMs = performance.now() - t;
    loaded[name] = m;
    return { sfMs, tjsMs, threads: THREADS, transformers: env.version };
  },

  // Both engines' answers on the same inputs, before any timing: classify -> the labels and
  // scores of every text (top_k all); rerank -> every document's score.
  async check(name, task, input) {
    const { sfModel, tjs } = loaded[name];
    if (task === 'classify') {
      const sf = sfModel.classify(input, { topK: null }).map((r) => r.predictions);
      const tj = await tjs(input, { top_k: null });
      const lists = Array.isArray(tj[0]) ? tj : [tj];
      let maxDiff = 0, labelsEqual = true;
      sf.forEach((preds, i) => preds.forEach((p, k) => {
        labelsEqual &&= p.label === lists[i][k].label;
        maxDiff = Math.max(maxDiff, Math.abs(p.score - lists[i][k].score));
      }));
      return { labelsEqual, maxDiff };
    }
    const sf = sfModel.rerank(input.query, input.documents);
    const scores = await tjsRerank(tjs, input.query, input.documents);
    const order = scores.map((s, i) => [s, i]).sort((a, b) => b[0] - a[0]).map(([, i]) => i);
    const maxDiff = Math.max(...sf.map((r) => Math.abs(r.score - scores[r.index])));
    return { labelsEqual: JSON.stringify(order) === JSON.stringify(sf.map((r) => r.index)), maxDiff };
  },

  // One end-to-end call (tokenize, encode, head, scores); its time in ms.
  async run(engine, name, task, input) {
    const { sfModel, tjs } = loaded[name];
    const t = performance.now();
    if (task === 'classify') {
      if (engine === 'simdformer') sfModel.classify(input);
      else await tjs(input);
    } else if (engine === 'simdformer') sfModel.rerank(input.query, input.documents);
    else await tjsRerank(tjs, input.query, input.documents);
    return performance.now() - t;
  },

  async unload(name) {
    const m = loaded[name];
    m.sfModel.dispose();
    if (m.tjs.dispose) await m.tjs.dispose();
    else await m.tjs.model.dispose();
    delete loaded[name];
  },
};
