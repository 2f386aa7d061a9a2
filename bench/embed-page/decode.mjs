// Token-by-token decoding in one Chromium page, both engines on WebAssembly: simdformer
// (dist/browser.mjs, SIMD128 build; its int8 runs relaxed SIMD's dot product where Chromium has
// it) and onnxruntime-web (its wasm build, the package bench/decode.mjs runs in Node) running
// the same bench/models decoder's decoder_with_past.onnx (or its q8 graph) the way a JavaScript
// decoding loop does. The Node bench cannot show the relaxed-SIMD path: Node 20 has none.
// decode.html?threads=N sets both engines' thread count (default 1; the driver then loads one
// engine per page, so that two thread pools never share the two cores); ?relaxed=off keeps
// simdformer's int8 on its 8-bit k-loop. The driver (bench/decode-page.mjs) calls
// window.decodeBench; every timing is taken here, in the page.
import { init } from '/dist/browser.mjs';
import * as ort from '/bnm/onnxruntime-web/dist/ort.wasm.bundle.min.mjs';

import { withPastFeeds } from './with-past-feeds.mjs';

const params = new URLSearchParams(location.search);
const THREADS = Number(params.get('threads') ?? 1);
const RELAXED = params.get('relaxed') === 'off' ? false : 'auto';
ort.env.wasm.numThreads = THREADS;
ort.env.wasm.wasmPaths = '/bnm/onnxruntime-web/dist/';

const argmax = (x) => { let best = 0; for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i; return best; };
const cosine = (a, b) => { let ab = 0, aa = 0, bb = 0; for (let i = 0; i < a.length; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; } return ab / Math.sqrt(aa * bb); };

// The F32 and I64 tensors of a safetensors file (the PyTorch check file of bench/export_hf.py).
async function fetchSafetensors(url) {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const tensors = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const raw = bytes.slice(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]).buffer;
    tensors[name] = t.dtype === 'I64' ? new BigInt64Array(raw) : new Float32Array(raw);
  }
  return tensors;
}

let e = null;  // the loaded decoder: { model, session, manifest, feeds }

window.decodeBench = {
  versions: () => ({ userAgent: navigator.userAgent, ort: ort.env.versions?.web ?? '', crossOriginIsolated: self.crossOriginIsolated }),

  // Loads a bench/models decoder in both engines, or only those of `engines` (2 threads: each
  // engine alone in its page), weights 'f32' | 'int8' (simdformer quantizes as it loads, ORT runs
  // the q8 graph), and checks each loaded engine against PyTorch before anything is timed.
  async load(name, weights, engines = ['simdformer', 'ort']) {
    const manifest = (await (await fetch('/models/manifest.json')).json()).models.find((m) => m.name === name);
    const int8 = weights === 'int8';
    e = { manifest, vocab: manifest.vocab_size, model: null, session: null, feeds: withPastFeeds(ort, manifest) };
    const check = await fetchSafetensors(`/models/${name}/check.safetensors`);
    const promptIds = Array.from(check.prompt_ids, Number);
    const pytorchLast = check.prompt_logits.subarray(check.prompt_logits.length - e.vocab);
    const checks = { weights, pytorchFirstToken: argmax(pytorchLast) };
    let arch = '', relaxedSimd = '', parameterCount = 0;
    if (engines.includes('simdformer')) {
      const sf = await init({ simd: true, threads: THREADS, relaxedSimd: RELAXED });
      if (await sf.threadsReady !== THREADS) throw new Error(`simdformer runs ${sf.threads} threads, ${THREADS} asked: ${sf.threadsNote}`);
      e.model = await sf.loadPretrained(`/models/${name}/`, int8 ? { weights: 'int8' } : {});
      ({ arch, relaxedSimd } = sf);
      parameterCount = e.model.parameterCount;
      checks.firstToken = (await e.model.generateText(promptIds, { maxNewTokens: 1, stop: [] })).ids[0];
    }
    if (engines.includes('ort')) {
      const graph = new Uint8Array(await (await fetch(`/models/${name}/${int8 ? manifest.onnx_q8 : manifest.onnx}`)).arrayBuffer());
      e.session = await ort.InferenceSession.create(graph, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const first = await e.session.run(e.feeds(promptIds, null, promptIds.length));
      let ortDiff = 0;
      for (let i = 0; i < first.logits.data.length; i++) ortDiff = Math.max(ortDiff, Math.abs(first.logits.data[i] - check.prompt_logits[i]));
      checks.ortVsPytorch = ortDiff;
      checks.ortLogitsCosine = cosine(first.logits.data, check.prompt_logits);
      checks.ortFirstToken = argmax(first.logits.data.subarray(first.logits.data.length - e.vocab));
    }
    return { arch, relaxedSimd, threads: THREADS, parameterCount, vocab: e.vocab, checks };
  },

  // Step times (ms) of `steps` steps after a prompt: simdformer's first step consumes the prompt's
  // last token (untimed), the intervals between consecutive onToken calls are the steps.
  async simdformer(prompt, steps) {
    const stamps = [];
    await e.model.generateText(prompt, { maxNewTokens: steps + 1, stop: [], onToken: () => { stamps.push(performance.now()); } });
    return stamps.slice(1).map((t, i) => t - stamps[i]);
  },
  // The same for ORT: the prompt but its last token as the first run (untimed), then one token per
  // run with the growing past, each run awaited and its logits' argmax taken in JS.
  async ort(prompt, steps) {
    let out = await e.session.run(e.feeds(prompt.slice(0, -1), null, prompt.length - 1));
    let token = prompt[prompt.length - 1];
    const wall = [];
    for (let s = 0; s <= steps; s++) {
      const t0 = performance.now();
      out = await e.session.run(e.feeds([token], out, prompt.length + s));
      token = argmax(out.logits.data);
      if (s > 0) wall.push(performance.now() - t0);  // step 0 matches simdformer's untimed first step
    }
    return wall;
  },
  // The prompt alone: simdformer up to its first token; ORT's one run with an empty past (as
  // transformers.js's generate does, logits of every prompt position).
  async simdformerPrefill(prompt) {
    const t0 = performance.now();
    await e.model.generateText(prompt, { maxNewTokens: 1, stop: [] });
    return performance.now() - t0;
  },
  async ortPrefill(prompt) {
    const t0 = performance.now();
    const out = await e.session.run(e.feeds(prompt, null, prompt.length));
    argmax(out.logits.data.subarray(out.logits.data.length - e.vocab));
    return performance.now() - t0;
  },

  async unload() {
    e.model?.dispose();
    await e.session?.release();
    e = null;
  },
};
document.getElementById('status').textContent = 'ready';
