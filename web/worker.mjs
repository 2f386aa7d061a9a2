// Runs simdformer off the main thread: the page stays responsive while models load and run.
// Messages: {id, type, ...} -> {id, ok: true, ...} or {id, ok: false, error, code}; while a model
// loads, {id, progress: {stage, loaded, total, file?}} messages come first.
// index.html starts this worker before the page's own modules load (worker.mjs?simd=off#model=bert:
// the query says only whether to use SIMD; the first model is in the fragment, never sent) and the
// engine starts at once, not when 'init' arrives: every round of requests before the wasm compiles
// delays the first picture.
import { fetchKept, keptSettled } from './model-store.mjs';

// Paths relative to this worker, which sits at the page's root: the page works served from a
// sub-path (https://host/some/path/) too.
const here = (path) => new URL(path, import.meta.url).href;
const TOKENIZERS = here('node_modules/@huggingface/tokenizers/dist/tokenizers.mjs');
const JINJA = here('node_modules/@huggingface/jinja/dist/index.js');  // chat templates, on first use

// The package's browser entry as one file (scripts/build-package.sh: one request, not ~25 in
// 4-5 rounds), requested together with the SIMD128 build's glue and bytes, which nearly every
// browser runs: only the scalar fallback waits for the entry's SIMD check. The glue is the module
// the entry imports itself (same URL), so it is fetched once.
const library = import(here('dist/browser.bundle.mjs'));
async function startEngine(simd) {
  if (simd) import(here('dist/simdformer.mjs')).catch(() => {});  // a failure shows in init's own import
  const simdBytes = simd ? fetch(here('dist/simdformer.wasm')).then((r) => (r.ok ? r.arrayBuffer() : undefined), () => undefined) : null;
  const { init, wasmSimdSupported } = await library;
  // Import maps do not reach module workers: say where the tokenizer and template libraries are served.
  const tokenizers = () => import(TOKENIZERS), jinja = () => import(JINJA);
  if (!simd || !wasmSimdSupported()) return init({ simd: false, tokenizers, jinja });
  const wasmBinary = await simdBytes;
  return init({ simd: true, tokenizers, jinja, ...(wasmBinary ? { wasmBinary } : {}) });
}
const query = new URL(self.location.href).searchParams;
const linked = new URLSearchParams(new URL(self.location.href).hash.slice(1));
const engine = startEngine(query.get('simd') !== 'off');
engine.catch(() => {});  // reported by the replies that wait for it
let sf = null;
let model = null;   // the current Model (torch dialect) or TextModel (Hugging Face folder)
let textSource = null;  // what the current TextModel was loaded from (for the f32 / int8 comparison)

function replace(next) {
  model?.dispose();
  model = next;
}

// One load at a time: a newer load aborts the one in flight (a user clicking through models) and
// starts once it has settled, so the model that stays is always the newest one asked for, and
// whatever the older one loaded is disposed, never left in the wasm heap.
let loading = { controller: null, settled: Promise.resolve() };
function superseded() {
  return Object.assign(new Error('a newer load replaced this one'), { name: 'AbortError', code: 'aborted' });
}
function oneLoadAtATime(run) {
  loading.controller?.abort(superseded());
  const controller = new AbortController();
  const result = loading.settled.then(() => {
    controller.signal.throwIfAborted();
    return run(controller.signal);
  });
  loading = { controller, settled: result.catch(() => {}) };
  return result;
}
// The model a load made, unless a newer load aborted it meanwhile (then it is disposed).
function keepUnlessAborted(next, signal) {
  if (!signal.aborted) return next;
  next.dispose();
  return signal.throwIfAborted();
}

// A torch-dialect safetensors file (the digit reversal, the playground, a user's file).
async function loadTorch(source, signal) {
  let bytes, config;
  if (source.kind === 'url') {
    bytes = new Uint8Array(await (await fetchKept(source.url)).arrayBuffer());
    config = source.config;
  } else if (source.kind === 'bytes') {
    bytes = source.bytes;
    config = source.config;
  } else {
    const { randomTransformer } = await import('./random-model.mjs');
    ({ bytes, config } = randomTransformer(source));
  }
  signal.throwIfAborted();
  replace(keepUnlessAborted(await sf.loadModel(bytes, config), signal));
  await keptSettled();  // the page lists the kept models next
  return { kind: 'torch', config: model.config, parameterCount: model.parameterCount };
}

// The files of a bundled folder, fetched at once (and the tokenizer library imported) while the
// engine compiles; loadPretrained then reads them as objects, through the same loader.
const folderUrl = (url) => new URL(url.endsWith('/') ? url : `${url}/`, self.location.href);
async function prefetchFolder(url) {
  const base = folderUrl(url);
  const get = async (name, bytes) => {
    const r = await fetchKept(new URL(name, base));
    if (r.status === 404) return undefined;
    if (!r.ok) throw new Error(`cannot fetch ${name} from ${base}: HTTP ${r.status}`);
    return bytes ? new Uint8Array(await r.arrayBuffer()) : r.text();
  };
  const [config, weights, tokenizer, tokenizerConfig] = await Promise.all([
    get('config.json'), get('model.safetensors', true), get('tokenizer.json'), get('tokenizer_config.json'), import(TOKENIZERS)]);
  return { config, weights, tokenizer, tokenizerConfig };
}

// The model the page opens on (GPT-2, checked in index.html, unless #model= names another
// bundled one) is fetched from the start too, and loaded as soon as the engine and its files are
// here: main.mjs asks for it only once its own modules have loaded. {url, files, loaded} (loaded:
// {model, ms} with the default weights), or null.
let firstFolder = import('./catalogue.mjs').then(({ bundledModel }) => {
  const m = bundledModel(linked.get('model') ?? 'gpt2');
  if (!m) return null;
  const files = prefetchFolder(m.url);
  const loaded = Promise.all([engine, files]).then(async ([s, from]) => {
    const started = performance.now();
    const model = await s.loadPretrained(from);
    return { model, ms: performance.now() - started };
  });
  files.catch(() => {});  // both reported by the load that uses them
  loaded.catch(() => {});
  return { url: folderUrl(m.url).href, files, loaded };
}, () => null);

// Every load first settles the start-up one. A bundled folder (url) gets {files} (promised),
// plus {loaded} when start-up already loads what it asks for (the first folder, default
// weights); any other load frees that early model once it is loaded, and a bundled folder is
// then fetched now, while the engine may still compile. Other loads (url null) get null.
async function bundledFolder(url, weights) {
  const first = await firstFolder;
  firstFolder = null;
  const same = first !== null && url !== null && first.url === folderUrl(url).href;
  if (same && !weights) return first;
  first?.loaded.then(({ model }) => model.dispose(), () => {});
  if (url === null) return null;
  return { files: same ? first.files : prefetchFolder(url) };
}

// A Hugging Face folder: a URL of the page's bundled models, or the user's files. Dropped
// files arrive as {path, file}: the folder-relative path is restored for loadPretrained.
async function loadText(source, progress, signal) {
  const bundled = source.kind === 'hf-url' ? await source.prefetched : null;
  const from = bundled ? await bundled.files : source.files.map(({ path, file }) => {
    if (path) Object.defineProperty(file, 'webkitRelativePath', { value: path });
    return file;
  });
  signal.throwIfAborted();
  model?.dispose();  // free its memory first: the new one may need it, and a failure leaves none
  model = null;
  const started = performance.now();
  let loadMs;
  if (bundled?.loaded) {
    const early = await bundled.loaded;
    model = keepUnlessAborted(early.model, signal);
    loadMs = early.ms;
  } else {
    model = await sf.loadPretrained(from, { onProgress: progress, signal, ...(source.weights ? { weights: source.weights } : {}) });
    loadMs = performance.now() - started;
  }
  textSource = from;
  await keptSettled();  // the page lists the kept models next
  return {
    kind: 'text', info: model.info, maxLength: model.maxLength, maskToken: model.tokenizer.maskToken ?? null,
    canGenerate: typeof model.generateText === 'function' && model.info.has_lm_head === true,
    loadMs, liveBytes: sf.liveBytes,
  };
}

// One run of a torch model for the page; returns every attention map it produced.
function runTorch({ input, options, mode }) {
  const common = { returnAttention: true, score: options.score, normalize: options.normalize };
  const started = performance.now();
  let result;
  if (mode === 'generate') {
    const r = model.generate(input.tokens, { ...common, maxLength: input.maxLength, paddingMask: input.padding, causal: options.causal });
    result = { tokens: Array.from(r.tokens), encoder: r.encoderAttentions, decoder: r.decoderAttentions, cross: r.crossAttentions };
  } else if (mode === 'forward') {
    const r = model.forward(input.tokens, input.target, {
      ...common, srcPaddingMask: input.padding, tgtPaddingMask: input.tgtPadding, srcCausal: options.causal,
    });
    result = { encoder: r.encoderAttentions, decoder: r.decoderAttentions, cross: r.crossAttentions };
  } else {
    const extra = input.memory ? { memory: input.memory } : {};
    const r = model.encode(input.sequence, { ...common, paddingMask: input.padding, causal: options.causal, ...extra });
    result = input.memory ? { decoder: r.attentions, cross: r.crossAttentions } : { encoder: r.attentions };
  }
  return { ...result, ms: performance.now() - started };
}

// One text through a Hugging Face model: tokens, every attention map, and for masked-LM models
// with a mask token in the text, the top predictions; a classifier's labels with what its
// deciding position attends to (the rollout), a token classifier's entities.
function runText({ text, maxLength, topK = 5 }) {
  const started = performance.now();
  const r = model.encodeText(text, { returnAttention: true, maxLength });
  const out = {
    tokens: r.tokens, ids: Array.from(r.ids), offsets: r.offsets, truncated: r.truncated, originalLength: r.originalLength,
    length: r.length, attentions: r.attentions,
  };
  const mask = model.tokenizer.maskToken;
  if (model.info.has_mlm_head && mask && r.ids.includes(model.tokenizer.maskId)) {
    out.fill = model.fillMask(text, { topK, maxLength }).masks;
  }
  if (model.info.has_classifier) {
    const c = model.classify(text, { topK: null, maxLength, returnAttention: true });
    out.classes = { predictions: c.predictions, rollout: c.attention.rollout };
  }
  if (model.info.has_token_classifier) out.entities = model.tokenClassify(text, { aggregation: 'simple', maxLength });
  return { ...out, ms: performance.now() - started };
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

// The f32 / int8 comparison for the current folder and text: bytes of weights held, median time
// of one forward pass with attention, and the largest difference between the two models'
// attention weights. Each variant is loaded, measured and freed in turn.
async function compare({ text, maxLength }) {
  const out = {};
  for (const weights of ['f32', 'int8']) {
    const before = sf.liveBytes;
    const m = await sf.loadPretrained(textSource, { weights });
    try {
      const bytes = sf.liveBytes - before;
      let r = m.encodeText(text, { returnAttention: true, maxLength });  // warm-up (workspace)
      const times = [];
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        r = m.encodeText(text, { returnAttention: true, maxLength });
        times.push(performance.now() - t);
      }
      out[weights] = { bytes, ms: median(times), attentions: r.attentions };
    } finally {
      m.dispose();
    }
  }
  let maxDiff = 0;
  out.f32.attentions.forEach((heads, l) => heads.forEach((h, i) => {
    const other = out.int8.attentions[l][i].data;
    h.data.forEach((x, j) => { maxDiff = Math.max(maxDiff, Math.abs(x - other[j])); });
  }));
  return { f32: { bytes: out.f32.bytes, ms: out.f32.ms }, int8: { bytes: out.int8.bytes, ms: out.int8.ms }, maxDiff };
}

// Greedy generation, one token at a time: each new token and its attention over the context
// (every layer and head) is posted as it is chosen.
async function generate({ text, maxNewTokens }, post) {
  const tokens = [];
  await model.generateText(text, {
    maxNewTokens, returnAttention: true,
    onToken: (e) => {
      tokens.push(e.text);
      post({ stage: 'token', step: e.step, token: e.token, text: e.text, attention: e.attention });
    },
  });
  return { generated: tokens.join('') };
}

const handlers = {
  init: () => ({ simd: sf.simd, arch: sf.arch }),
  load: (data, progress) => oneLoadAtATime((signal) => (data.source.kind === 'hf-url' || data.source.kind === 'files'
    ? loadText(data.source, progress, signal) : loadTorch(data.source, signal))),
  // Bytes the engine holds (the end-to-end tests check that loads leave nothing behind).
  heap: () => ({ liveBytes: sf.liveBytes }),
  run: (data) => runTorch(data),
  text: (data) => runText(data),
  compare: (data) => compare(data),
  generate: (data, progress, post) => generate(data, post),
  // The models kept in this browser, listed and forgotten by the library (one implementation for
  // the page and for every page that uses loadPretrained(url, { cache: 'browser' })).
  kept: async () => ({ models: await (await library).keptModels() }),
  forget: async (data) => ({ removed: await (await library).forgetModel(data.url) }),
  steps: (data) => model.attentionSteps(data.text, { layer: data.layer, head: data.head, maxLength: data.maxLength }),
};

self.onmessage = async ({ data }) => {
  try {
    const handler = handlers[data.type];
    if (!handler) throw new Error(`unknown message ${data.type}`);
    // A bundled folder downloads while the engine compiles (the first picture comes sooner).
    if (data.type === 'load') data.source.prefetched = bundledFolder(data.source.kind === 'hf-url' ? data.source.url : null, data.source.weights);
    sf = await engine;
    const progress = (p) => self.postMessage({ id: data.id, progress: { stage: p.stage, loaded: p.loaded, total: p.total, file: p.file } });
    const post = (event) => self.postMessage({ id: data.id, progress: event });
    const reply = await handler(data, progress, post);
    self.postMessage({ id: data.id, ok: true, ...reply });
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, error: e?.message ?? String(e), code: e?.code });
  }
};
