// Text -> sentence embedding in one page, both engines on WebAssembly: simdformer
// (dist/browser.mjs, SIMD128 build) and transformers.js (its browser bundle, feature-extraction,
// fp32 or q8, the ONNX export of the same weights from a local folder, remote models off,
// onnxruntime-web's wasm files served locally instead of its CDN default).
// index.html?threads=N sets both engines' thread count (default 1; N > 1 needs the page to be
// cross-origin isolated, which bench's server is): onnxruntime-web takes it once, at its first session.
// The drivers (bench/embed.mjs, bench/short-texts.mjs) call window.embedBench; every timing is
// taken here, in the page.
import { init } from '/dist/browser.mjs';
import { env, pipeline } from '/bnm/@huggingface/transformers/dist/transformers.js';

const ORT_DIST = '/bnm/@huggingface/transformers/node_modules/onnxruntime-web/dist/';
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '/models/';
env.useBrowserCache = false;
env.useWasmCache = false;
// The same (asyncify) build transformers.js would fetch from its CDN by default, served locally.
env.backends.onnx.wasm.wasmPaths = { mjs: `${ORT_DIST}ort-wasm-simd-threaded.asyncify.mjs`, wasm: `${ORT_DIST}ort-wasm-simd-threaded.asyncify.wasm` };
const THREADS = Number(new URLSearchParams(location.search).get('threads') ?? 1);
// index.html?relaxed=off keeps simdformer's int8 on its 8-bit k-loop and its f32 GEMMs on
// SIMD128's multiply and add (init's relaxedSimd: false); by default it runs relaxed SIMD where
// Chromium does ('auto': int8 dot products, f32 multiply-adds).
const RELAXED = new URLSearchParams(location.search).get('relaxed') === 'off' ? false : 'auto';
env.backends.onnx.wasm.numThreads = THREADS;

const loaded = {};  // name -> { sf, sfModel, tjs }
const POOL = { pooling: 'mean', normalize: true };

function largestTensorBytes(headerBytes) {
  const view = new DataView(headerBytes.buffer, headerBytes.byteOffset);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(headerBytes.subarray(8, 8 + n)));
  return Math.max(...Object.entries(header).filter(([k]) => k !== '__metadata__').map(([, t]) => t.data_offsets[1] - t.data_offsets[0]));
}

// The header of a safetensors file: the first chunks of a streamed fetch, then the rest is cancelled.
async function safetensorsHeader(url) {
  const reader = (await fetch(url)).body.getReader();
  let buf = new Uint8Array(0);
  const need = () => (buf.length < 8 ? 8 : 8 + Number(new DataView(buf.buffer).getBigUint64(0, true)));
  while (buf.length < need()) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${url}: the file ends inside its header`);
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
  }
  await reader.cancel();
  return buf;
}

const PASSAGE = 'Attention lets every word of a sentence look at every other word and decide how much each one matters '
  + 'for its own meaning, and a model stacks many such layers to read whole documents quickly on small devices';

async function loadSimdformer(name, weights, m) {
  const sf = await init({ simd: true, threads: THREADS, relaxedSimd: RELAXED });
  if (await sf.threadsReady !== THREADS) throw new Error(`simdformer runs ${sf.threads} threads, ${THREADS} asked: ${sf.threadsNote}`);
  sf.resetPeakLiveBytes();
  const heap0 = sf.heapBytes, live0 = sf.liveBytes;
  const t = performance.now();
  m.sf = sf;
  m.sfModel = await sf.loadPretrained(`/models/${name}/`, { weights });
  const sfMs = performance.now() - t;
  const memory = { packed: sf.liveBytes - live0, peak: sf.peakLiveBytes - live0, heapGrowth: sf.heapBytes - heap0,
                   largestTensor: largestTensorBytes(await safetensorsHeader(`/models/${name}/model.safetensors`)) };
  return { sfMs, memory, arch: sf.arch, relaxedSimd: sf.relaxedSimd, int8ActivationBits: sf.int8ActivationBits, relaxedF32: sf.relaxedF32,
           info: { weights: m.sfModel.info.weights, parameters: m.sfModel.info.parameters, n_layers: m.sfModel.info.n_layers,
                   d_model: m.sfModel.info.d_model, d_ff: m.sfModel.info.d_ff } };
}

window.embedBench = {
  versions: () => ({ userAgent: navigator.userAgent, transformers: env.version, ort: env.backends.onnx.versions?.web ?? '',
                     crossOriginIsolated: self.crossOriginIsolated }),

  // Loads one model in the engines named (both by default); simdformer in a fresh module so its
  // memory figures are its own. weights: simdformer's ('f32' | 'int8'); dtype: transformers.js's
  // ('fp32' | 'q8': onnx/model_quantized.onnx).
  async load(name, weights = 'f32', { engines = ['simdformer', 'transformers.js'], dtype = 'fp32' } = {}) {
    const out = { sfMs: NaN, tjsMs: NaN, memory: null, arch: '', info: null, threads: THREADS };
    const m = {};
    if (engines.includes('simdformer')) Object.assign(out, await loadSimdformer(name, weights, m));
    if (engines.includes('transformers.js')) {
      const t = performance.now();
      m.tjs = await pipeline('feature-extraction', name, { dtype, device: 'wasm' });
      out.tjsMs = performance.now() - t;
    }
    loaded[name] = m;
    return out;
  },

  // A text of exactly n tokens (special tokens included) for the model's tokenizer: words of a
  // fixed passage, then one-token words to land on n.
  textOfTokens(name, n) {
    const count = (t) => loaded[name].sfModel.encodeText(t).ids.length;
    const words = PASSAGE.split(' ');
    let text = '';
    for (let i = 0; count(text) < n; i = (i + 1) % words.length) {
      const next = text ? `${text} ${words[i]}` : words[i];
      text = count(next) <= n ? next : `${text} a`;
    }
    return text;
  },


  // Token ids of both tokenizers and the embeddings' agreement, before any timing.
  async check(name, texts) {
    const { sfModel, tjs } = loaded[name];
    const a = sfModel.embed(texts, POOL);
    const out = await tjs(texts, POOL);
    const d = out.dims[1];
    let minCos = 1, maxDiff = 0;
    a.forEach((v, i) => {
      const w = out.data.subarray(i * d, (i + 1) * d);
      let ab = 0, aa = 0, bb = 0;
      for (let j = 0; j < d; j++) { ab += v[j] * w[j]; aa += v[j] * v[j]; bb += w[j] * w[j]; maxDiff = Math.max(maxDiff, Math.abs(v[j] - w[j])); }
      minCos = Math.min(minCos, ab / Math.sqrt(aa * bb));
    });
    const sfIds = sfModel.encodeText(texts).map((s) => Array.from(s.ids));
    const tjsIds = texts.map((t) => Array.from(tjs.tokenizer(t).input_ids.data, Number));
    return { minCos, maxDiff, idsEqual: JSON.stringify(sfIds) === JSON.stringify(tjsIds), tokens: sfIds.map((x) => x.length) };
  },

  // One end-to-end call (tokenize, encode, pool, normalise); returns its time in ms.
  async run(engine, name, texts) {
    const m = loaded[name];
    const t = performance.now();
    if (engine === 'simdformer') m.sfModel.embed(texts, POOL);
    else await m.tjs(texts, POOL);
    return performance.now() - t;
  },

  // Both engines' embeddings of the same texts: cosine of each pair (for f32 against int8 / q8, or
  // simdformer against transformers.js, within one page).
  async embeddings(name, texts) {
    const m = loaded[name];
    const sf = m.sfModel ? m.sfModel.embed(texts, POOL).map((v) => Array.from(v)) : null;
    let tjs = null;
    if (m.tjs) {
      const out = await m.tjs(texts, POOL);
      const d = out.dims[1];
      tjs = texts.map((_, i) => Array.from(out.data.subarray(i * d, (i + 1) * d)));
    }
    return { simdformer: sf, 'transformers.js': tjs };
  },

  async unload(name) {
    const m = loaded[name];
    m.sfModel?.dispose();
    await m.tjs?.dispose();
    delete loaded[name];
  },
};
document.getElementById('status').textContent = 'ready';
