// The public JavaScript API, shared by the Node and browser entry points. It owns the copying
// in and out of wasm memory and turns binding errors into SimdformerError.
import { SimdformerError, check, checkOptions, fail } from './errors.mjs';
import { CallHeap, copyF32, copyI32 } from './heap.mjs';
import { isBatch, maskArray, matrix, padBatch, shapedMatrix, tokenSequence, vectorSequence } from './inputs.mjs';

export { SimdformerError };

const SCORES = { 'scaled-dot': 0, dot: 1, additive: 2 };
const NORMALIZERS = { softmax: 0, relu: 1 };
const ENCODER_KINDS = ['encoder_layer', 'encoder', 'transformer'];
const DECODER_KINDS = ['decoder_layer', 'decoder'];

function scoreCode(score = 'scaled-dot') {
  if (!(score in SCORES)) fail(`unknown score '${score}' (expected scaled-dot, dot or additive)`);
  return SCORES[score];
}

function normalizeCode(normalize = 'softmax') {
  if (!(normalize in NORMALIZERS)) fail(`unknown normalize '${normalize}' (expected softmax or relu)`);
  return NORMALIZERS[normalize];
}

function attentionMode(value) {
  if (value === undefined || value === false) return false;
  if (value === true || value === 'mean') return value;
  fail(`returnAttention must be true, 'mean' or false, got ${JSON.stringify(value)}`);
}

const noSequence = () => ({ nSeq: 0, embeddings: 0, tokens: 0, keyPadding: 0, attnMask: 0, causal: false });

// Warns when a Model is garbage-collected without dispose(): its wasm memory was never freed.
const leakRegistry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((what) => console.warn(`simdformer: ${what} was garbage-collected without dispose(); its wasm memory leaked`))
  : null;

export class Model {
  #sf;
  #module;
  #handle;
  #config;
  #parameters;

  constructor(sf, module, handle) {
    this.#sf = sf;
    this.#module = module;
    this.#handle = handle;
    this.#config = Object.freeze(JSON.parse(handle.configJson()));
    this.#parameters = handle.parameterCount();
    leakRegistry?.register(this, `a ${this.#config.model_type} model`, this);
  }

  /** The config with PyTorch's names (d_model, nhead, dim_feedforward, ...). */
  get config() { return this.#config; }
  get kind() { return this.#config.model_type; }
  get parameterCount() { return this.#parameters; }
  get disposed() { return this.#handle === null; }
  /** Bytes of the model's reusable workspace (grows to the largest call so far). */
  get workspaceBytes() { return this.#live().workspaceBytes(); }

  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
      leakRegistry?.unregister(this);
    }
  }

  #live() {
    if (!this.#handle) fail('this Model has been disposed', 'disposed');
    return this.#handle;
  }

  #takesTokens(side) {
    return side === 'src' ? this.#config.src_vocab_size > 0 : this.#config.tgt_vocab_size > 0;
  }

  // Sequences (one or a batch) -> padded flat arrays.
  #prepare(input, side, options, what) {
    const tokens = side === 'vectors' ? false : this.#takesTokens(side);
    const batch = isBatch(input, tokens);
    const seqs = batch ? input : [input];
    if (seqs.length === 0) fail(`${what}: the batch is empty`);
    const d = this.#config.d_model;
    const vocab = side === 'src' ? this.#config.src_vocab_size : this.#config.tgt_vocab_size;
    const flat = seqs.map((s, i) => (tokens ? tokenSequence(s, vocab, `${what}[${i}]`) : vectorSequence(s, d, `${what}[${i}]`)));
    const width = tokens ? 1 : d;
    let masks = null;
    if (options.paddingMask !== undefined) {
      const given = batch ? options.paddingMask : [options.paddingMask];
      if (!Array.isArray(given) || given.length !== seqs.length) fail(`paddingMask: expected one mask per sequence (${seqs.length})`);
      masks = given.map((m, i) => maskArray(m, flat[i].length / width, `paddingMask[${i}]`));
    }
    const padded = padBatch(flat, width, this.#config.max_len, options.truncation === true, masks,
                            tokens ? Int32Array : Float32Array, what);
    return { ...padded, batch, tokens };
  }

  #sequenceArgs(heap, p, options) {
    const n = p.nMax;
    return {
      nSeq: n,
      embeddings: p.tokens ? 0 : heap.f32(p.data),
      tokens: p.tokens ? heap.i32(p.data) : 0,
      keyPadding: heap.u8(p.padding),
      attnMask: options.attnMask !== undefined && options.attnMask !== null
        ? heap.f32(matrix(options.attnMask, n, n, 'attnMask', { allowNegInf: true })) : 0,
      causal: options.causal === true,
    };
  }

  // Per-layer attention maps, cropped per sequence, as [layer][head] -> {data, shape}.
  #maps(kind, layers, lengthsQ, lengthsK, mode) {
    const h = this.#live();
    const perSequence = lengthsQ.map(() => []);
    for (let layer = 0; layer < layers; layer++) {
      const m = h.attention(kind, layer);
      if (!m) continue;
      const all = copyF32(this.#module, m.ptr, m.nBatch * m.nhead * m.nSeqQ * m.nSeqK);
      for (let b = 0; b < m.nBatch; b++) {
        const nq = lengthsQ[b], nk = lengthsK[b];
        const heads = [];
        for (let head = 0; head < m.nhead; head++) {
          const data = new Float32Array(nq * nk);
          const base = (b * m.nhead + head) * m.nSeqQ * m.nSeqK;
          for (let q = 0; q < nq; q++) data.set(all.subarray(base + q * m.nSeqK, base + q * m.nSeqK + nk), q * nk);
          heads.push({ data, shape: [nq, nk] });
        }
        if (mode === 'mean') {
          const mean = new Float32Array(nq * nk);
          for (const hd of heads) for (let i = 0; i < mean.length; i++) mean[i] += hd.data[i] / heads.length;
          perSequence[b].push([{ data: mean, shape: [nq, nk], mean: true }]);
        } else {
          perSequence[b].push(heads);
        }
      }
    }
    return perSequence;
  }

  #outputs(rowsPerItem, lengths, width) {
    const h = this.#live();
    const all = copyF32(this.#module, h.output(), h.outputRows() * width);
    return lengths.map((n, b) => all.slice(b * rowsPerItem * width, (b * rowsPerItem + n) * width));
  }

  #result(batch, outputs, lengths, width, attentionsPerSeq, extra = () => ({})) {
    const sequences = outputs.map((output, b) => ({
      output, shape: [lengths[b], width], ...(attentionsPerSeq ? { attentions: attentionsPerSeq[b] } : {}), ...extra(b),
    }));
    if (!batch) return sequences[0];
    return { sequences, lengths };
  }

  /**
   * Runs the model on one sequence or a batch of sequences of different lengths.
   * Encoders take src vectors (or token ids); decoders take tgt plus options.memory;
   * multihead_attention takes the query plus optional options.key / options.value.
   */
  encode(input, options = {}) {
    checkOptions(options, ['paddingMask', 'causal', 'attnMask', 'returnAttention', 'score', 'normalize', 'truncation',
      'memory', 'memoryPaddingMask', 'key', 'value', 'keyPaddingMask'], 'encode');
    const h = this.#live();
    const kind = this.kind;
    const mode = attentionMode(options.returnAttention);
    const score = scoreCode(options.score), normalize = normalizeCode(options.normalize);
    const d = this.#config.d_model;
    const heap = new CallHeap(this.#module);
    try {
      if (DECODER_KINDS.includes(kind)) return this.#decode(input, options, heap, mode, score, normalize);
      if (kind !== 'multihead_attention' && !ENCODER_KINDS.includes(kind)) fail(`encode is not available for ${kind}`);
      for (const k of ['memory', 'memoryPaddingMask']) if (options[k] !== undefined) fail(`encode: '${k}' is only for decoder models`);
      if (kind !== 'multihead_attention') for (const k of ['key', 'value', 'keyPaddingMask']) if (options[k] !== undefined) fail(`encode: '${k}' is only for multihead_attention`);
      const p = this.#prepare(input, 'src', options, 'input');
      const nBatch = p.lengths.length;
      const args = {
        nBatch, src: this.#sequenceArgs(heap, p, options), tgt: noSequence(), key: 0, value: 0, nSeqK: 0, keyPaddingK: 0,
        memory: 0, nSeqMemory: 0, memoryKeyPadding: 0, score, normalize, needWeights: mode !== false, encoderOnly: true,
      };
      let lengthsK = p.lengths;
      let nK = p.nMax;
      if (kind === 'multihead_attention' && (options.key !== undefined || options.value !== undefined)) {
        if (options.key === undefined || options.value === undefined) fail('encode: give both key and value, or neither');
        const k = this.#prepare(options.key, 'src', { paddingMask: options.keyPaddingMask, truncation: options.truncation }, 'key');
        const v = this.#prepare(options.value, 'src', { truncation: options.truncation }, 'value');
        if (k.lengths.length !== nBatch || v.lengths.length !== nBatch) fail('encode: key and value need as many sequences as the query');
        k.lengths.forEach((n, i) => { if (v.lengths[i] !== n) fail(`encode: key ${i} has ${n} positions but value ${i} has ${v.lengths[i]}`); });
        if (options.attnMask !== undefined && p.nMax !== p.lengths[0]) fail('attnMask needs sequences of equal length');
        args.key = heap.f32(k.data);
        args.value = heap.f32(v.data);
        args.nSeqK = k.nMax;
        args.keyPaddingK = heap.u8(k.padding);
        lengthsK = k.lengths;
        nK = k.nMax;
        if (options.attnMask !== undefined && options.attnMask !== null) {
          args.src.attnMask = heap.f32(matrix(options.attnMask, p.nMax, nK, 'attnMask', { allowNegInf: true }));
        }
      } else if (kind === 'multihead_attention' && options.keyPaddingMask !== undefined) {
        fail("encode: 'keyPaddingMask' goes with key/value; use paddingMask for self-attention");
      }
      check(h.reserve(nBatch, p.nMax, kind === 'multihead_attention' ? nK : 1, mode !== false));
      check(h.forward(args));
      const outputs = this.#outputs(p.nMax, p.lengths, d);
      const layers = kind === 'multihead_attention' ? 1 : this.#config.num_encoder_layers;
      const maps = mode ? this.#maps(0, layers, p.lengths, lengthsK, mode) : null;
      return this.#result(p.batch, outputs, p.lengths, d, maps);
    } finally {
      heap.free();
    }
  }

  #decode(input, options, heap, mode, score, normalize) {
    const h = this.#live();
    const d = this.#config.d_model;
    if (options.memory === undefined) fail('encode: a decoder needs options.memory (the encoder output)');
    const p = this.#prepare(input, 'tgt', options, 'input');
    const nBatch = p.lengths.length;
    const mem = this.#prepare(options.memory, 'vectors', { paddingMask: options.memoryPaddingMask, truncation: options.truncation }, 'memory');
    if (mem.lengths.length !== nBatch) fail(`memory: expected ${nBatch} sequence(s), got ${mem.lengths.length}`);
    const args = {
      nBatch, src: noSequence(), tgt: this.#sequenceArgs(heap, p, options), key: 0, value: 0, nSeqK: 0, keyPaddingK: 0,
      memory: heap.f32(mem.data), nSeqMemory: mem.nMax, memoryKeyPadding: heap.u8(mem.padding), score, normalize,
      needWeights: mode !== false, encoderOnly: false,
    };
    check(h.reserve(nBatch, mem.nMax, p.nMax, mode !== false));
    check(h.forward(args));
    const outputs = this.#outputs(p.nMax, p.lengths, d);
    const layers = this.#config.num_decoder_layers;
    const self = mode ? this.#maps(1, layers, p.lengths, p.lengths, mode) : null;
    const cross = mode ? this.#maps(2, layers, p.lengths, mem.lengths, mode) : null;
    return this.#result(p.batch, outputs, p.lengths, d, self, (b) => (cross ? { crossAttentions: cross[b] } : {}));
  }

  /**
   * Teacher-forced encoder-decoder pass (transformer): decoder output for tgt given src,
   * generator logits for token models, and every attention map when asked.
   */
  forward(src, tgt, options = {}) {
    checkOptions(options, ['srcPaddingMask', 'tgtPaddingMask', 'causal', 'srcCausal', 'returnAttention', 'score', 'normalize', 'truncation'], 'forward');
    if (this.kind !== 'transformer') fail(`forward(src, tgt) is for transformer models; use encode() for ${this.kind}`);
    const h = this.#live();
    const mode = attentionMode(options.returnAttention);
    const heap = new CallHeap(this.#module);
    try {
      const s = this.#prepare(src, 'src', { paddingMask: options.srcPaddingMask, truncation: options.truncation }, 'src');
      const t = this.#prepare(tgt, 'tgt', { paddingMask: options.tgtPaddingMask, truncation: options.truncation }, 'tgt');
      if (s.lengths.length !== t.lengths.length) fail(`forward: ${s.lengths.length} source(s) but ${t.lengths.length} target(s)`);
      const nBatch = s.lengths.length;
      const args = {
        nBatch, src: this.#sequenceArgs(heap, s, { causal: options.srcCausal === true }),
        tgt: this.#sequenceArgs(heap, t, { causal: options.causal !== false }),
        key: 0, value: 0, nSeqK: 0, keyPaddingK: 0, memory: 0, nSeqMemory: 0, memoryKeyPadding: 0,
        score: scoreCode(options.score), normalize: normalizeCode(options.normalize), needWeights: mode !== false, encoderOnly: false,
      };
      check(h.reserve(nBatch, s.nMax, t.nMax, mode !== false));
      check(h.forward(args));
      const d = this.#config.d_model;
      const outputs = this.#outputs(t.nMax, t.lengths, d);
      const vocab = h.logitsCols();
      const logits = vocab ? copyF32(this.#module, h.logits(), nBatch * t.nMax * vocab) : null;
      const enc = mode ? this.#maps(0, this.#config.num_encoder_layers, s.lengths, s.lengths, mode) : null;
      const self = mode ? this.#maps(1, this.#config.num_decoder_layers, t.lengths, t.lengths, mode) : null;
      const cross = mode ? this.#maps(2, this.#config.num_decoder_layers, t.lengths, s.lengths, mode) : null;
      return this.#result(s.batch, outputs, t.lengths, d, null, (b) => ({
        ...(logits ? { logits: logits.slice(b * t.nMax * vocab, (b * t.nMax + t.lengths[b]) * vocab), vocabSize: vocab } : {}),
        ...(mode ? { encoderAttentions: enc[b], decoderAttentions: self[b], crossAttentions: cross[b] } : {}),
      }));
    } finally {
      heap.free();
    }
  }

  /**
   * Greedy decoding with a key/value cache (transformer with token embeddings).
   * Returns tokens (starting with bos) and, when asked, encoder, decoder and cross attentions.
   */
  generate(src, options = {}) {
    checkOptions(options, ['maxLength', 'bos', 'eos', 'paddingMask', 'causal', 'returnAttention', 'score', 'normalize', 'truncation', 'onProgress'], 'generate');
    if (this.kind !== 'transformer' || !this.#config.tgt_vocab_size) fail('generate needs a transformer with token embeddings and a generator');
    const h = this.#live();
    const mode = attentionMode(options.returnAttention);
    const maxLength = options.maxLength ?? Math.min(this.#config.max_len, 64);
    if (!Number.isInteger(maxLength) || maxLength < 2 || maxLength > this.#config.max_len) {
      fail(`generate: maxLength must be an integer in [2, ${this.#config.max_len}], got ${maxLength}`);
    }
    for (const k of ['bos', 'eos']) {
      if (options[k] !== undefined && !Number.isInteger(options[k])) fail(`generate: ${k} must be an integer token id`);
    }
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function') fail('generate: onProgress must be a function');
    const heap = new CallHeap(this.#module);
    try {
      const s = this.#prepare(src, 'src', options, 'src');
      const nBatch = s.lengths.length;
      check(h.reserve(nBatch, s.nMax, maxLength, mode !== false));
      const progress = options.onProgress ? (step, total) => options.onProgress({ stage: 'generate', step, total }) : undefined;
      check(h.generate({
        nBatch, src: this.#sequenceArgs(heap, s, { causal: options.causal === true }), maxLength, bos: options.bos ?? -1, eos: options.eos ?? -1,
        score: scoreCode(options.score), normalize: normalizeCode(options.normalize), needWeights: mode !== false,
      }, progress));
      const length = h.generatedLength();
      const all = copyI32(this.#module, h.generated(), nBatch * length);
      const eos = options.eos ?? this.#config.eos_token;
      const tokens = [];
      for (let b = 0; b < nBatch; b++) {
        let row = all.slice(b * length, (b + 1) * length);
        const end = eos >= 0 ? row.indexOf(eos, 1) : -1;
        if (end >= 0) row = row.slice(0, end + 1);  // drop the eos padding after an item finished
        tokens.push(row);
      }
      const steps = tokens.map((t) => Math.max(1, t.length - 1));
      const enc = mode ? this.#maps(0, this.#config.num_encoder_layers, s.lengths, s.lengths, mode) : null;
      const self = mode ? this.#maps(1, this.#config.num_decoder_layers, steps, steps, mode) : null;
      const cross = mode ? this.#maps(2, this.#config.num_decoder_layers, steps, s.lengths, mode) : null;
      const results = tokens.map((t, b) => ({
        tokens: t,
        ...(mode ? { encoderAttentions: enc[b], decoderAttentions: self[b], crossAttentions: cross[b] } : {}),
      }));
      return s.batch ? results : results[0];
    } finally {
      heap.free();
    }
  }
}
if (typeof Symbol.dispose === 'symbol') Model.prototype[Symbol.dispose] = Model.prototype.dispose;

/** A Linear layer y = x Wᵀ + b (nn.Linear layout), weights packed once at creation. */
export class LinearLayer {
  #module;
  #handle;

  constructor(module, handle, inFeatures, outFeatures) {
    this.#module = module;
    this.#handle = handle;
    this.inFeatures = inFeatures;
    this.outFeatures = outFeatures;
    leakRegistry?.register(this, 'a linear layer', this);
  }

  /** x: Float32Array [rows * inFeatures] -> Float32Array [rows * outFeatures]. */
  forward(x) {
    if (!this.#handle) fail('this LinearLayer has been disposed', 'disposed');
    if (!(x instanceof Float32Array)) fail('linear.forward: x must be a Float32Array');
    if (x.length === 0 || x.length % this.inFeatures !== 0) fail(`linear.forward: ${x.length} values is not a whole number of rows of ${this.inFeatures}`);
    const rows = x.length / this.inFeatures;
    const heap = new CallHeap(this.#module);
    try {
      const y = heap.alloc(rows * this.outFeatures * 4);
      check(this.#handle.forward(heap.f32(x), rows, y), 'linear.forward');
      return copyF32(this.#module, y, rows * this.outFeatures);
    } finally {
      heap.free();
    }
  }

  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
      leakRegistry?.unregister(this);
    }
  }
}
if (typeof Symbol.dispose === 'symbol') LinearLayer.prototype[Symbol.dispose] = LinearLayer.prototype.dispose;

/** Wraps a loaded Emscripten module; created by init() in the Node and browser entries. */
export class Simdformer {
  #module;
  #readSource;

  constructor(module, { simd, readSource }) {
    this.#module = module;
    this.#readSource = readSource;
    this.simd = simd;
    this.arch = module.simdArch();
    this.lanes = module.simdLanes();
  }

  /** Bytes of model weights and workspaces currently held in wasm memory. */
  get liveBytes() { return this.#module.liveBytes(); }
  /** Current size of the wasm memory (it only grows). */
  get heapBytes() { return this.#module.HEAPU8.length; }

  /**
   * Loads a model from safetensors bytes, a file path (Node) or a URL (browser). The config
   * (object or JSON text) may be omitted when the file's metadata holds it under "config".
   */
  async loadModel(source, config, options = {}) {
    checkOptions(options, ['onProgress'], 'loadModel');
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function') fail('loadModel: onProgress must be a function');
    const progress = options.onProgress ?? (() => {});
    const bytes = await this.#readSource(source, progress);
    return this.loadModelSync(bytes, config, progress);
  }

  loadModelSync(bytes, config, progress = () => {}) {
    if (!(bytes instanceof Uint8Array)) {
      if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
      else if (ArrayBuffer.isView(bytes)) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      else fail(`model source must be bytes (Uint8Array or ArrayBuffer), got ${bytes === null ? 'null' : typeof bytes}`);
    }
    let configText = '';
    if (config !== undefined && config !== null) {
      if (typeof config === 'string') configText = config;
      else if (typeof config === 'object') configText = JSON.stringify(config);
      else fail('config must be an object or JSON text');
    }
    progress({ stage: 'load', loaded: 0, total: bytes.length });
    const heap = new CallHeap(this.#module);
    const handle = new this.#module.ModelHandle();
    try {
      const err = handle.load(heap.u8(bytes), bytes.length, configText);
      if (err) {
        handle.delete();
        check(err, 'loadModel');
      }
    } finally {
      heap.free();
    }
    progress({ stage: 'load', loaded: bytes.length, total: bytes.length });
    return new Model(this, this.#module, handle);
  }

  /** The tensors, dtypes, shapes and metadata of a safetensors file, without loading it. */
  async inspect(source) {
    const bytes = await this.#readSource(source, () => {});
    const heap = new CallHeap(this.#module);
    try {
      const text = this.#module.describeSafetensors(heap.u8(bytes), bytes.length);
      if (text.startsWith('\t')) fail(text.slice(1), 'io_error');
      return JSON.parse(text);
    } finally {
      heap.free();
    }
  }

  /**
   * One attention: normalize(mask(score(Q, K))) V. Q [n, d_k], K [m, d_k], V [m, d_v] as
   * nested arrays or {data, shape}. Returns {output: {data, shape}, weights?: {data, shape}}.
   */
  attention(Q, K, V, options = {}) {
    checkOptions(options, ['score', 'normalize', 'mask', 'attnMask', 'causal', 'returnWeights', 'additive'], 'attention');
    const q = shapedMatrix(Q, 'Q'), k = shapedMatrix(K, 'K'), v = shapedMatrix(V, 'V');
    if (q.cols !== k.cols) fail(`Q has d_k=${q.cols} but K has d_k=${k.cols}`, 'shape_mismatch');
    if (k.rows !== v.rows) fail(`K has ${k.rows} rows but V has ${v.rows}`, 'shape_mismatch');
    const n = q.rows, m = k.rows;
    const score = scoreCode(options.score);
    let keyPadding = null;
    let additiveMask = options.attnMask !== undefined && options.attnMask !== null ? matrix(options.attnMask, n, m, 'attnMask', { allowNegInf: true }) : null;
    if (options.mask !== undefined && options.mask !== null) {
      const mask = options.mask;
      if (Array.isArray(mask) && mask.length === n && n !== m && !Array.isArray(mask[0])) fail(`mask: a key mask needs ${m} entries`);
      if (Array.isArray(mask) && mask.length && Array.isArray(mask[0])) {
        // [n, m] boolean mask: true = masked -> -inf
        const bool = matrix(mask.map((r) => r.map((x) => (x ? 1 : 0))), n, m, 'mask');
        additiveMask = additiveMask ?? new Float32Array(n * m);
        bool.forEach((x, i) => { if (x) additiveMask[i] = -Infinity; });
      } else {
        keyPadding = maskArray(mask, m, 'mask');
      }
    }
    let additive = null;
    if (score === SCORES.additive) {
      const a = options.additive;
      if (!a || typeof a !== 'object') fail("score 'additive' needs options.additive = {wQ, wK, wV}");
      checkOptions(a, ['wQ', 'wK', 'wV'], 'attention.additive');
      const wq = shapedMatrix(a.wQ, 'additive.wQ'), wk = shapedMatrix(a.wK, 'additive.wK');
      if (wq.cols !== q.cols || wk.cols !== q.cols || wk.rows !== wq.rows) fail(`additive.wQ and wK must both be [d_a, ${q.cols}]`, 'shape_mismatch');
      const wv = matrix(a.wV, 1, wq.rows, 'additive.wV');
      additive = { dim: wq.rows, wq: wq.data, wk: wk.data, wv };
    } else if (options.additive !== undefined) {
      fail("options.additive is only used with score 'additive'");
    }
    const heap = new CallHeap(this.#module);
    try {
      const out = heap.alloc(n * v.cols * 4);
      const weights = options.returnWeights ? heap.alloc(n * m * 4) : 0;
      check(this.#module.attention({
        nSeqQ: n, nSeqK: m, dK: q.cols, dV: v.cols, q: heap.f32(q.data), k: heap.f32(k.data), v: heap.f32(v.data),
        score, normalize: normalizeCode(options.normalize), additiveDim: additive ? additive.dim : 0,
        wQ: additive ? heap.f32(additive.wq) : 0, wK: additive ? heap.f32(additive.wk) : 0, wV: additive ? heap.f32(additive.wv) : 0,
        keyPadding: heap.u8(keyPadding), attnMask: heap.f32(additiveMask), causal: options.causal === true, out, weights,
      }), 'attention');
      const result = { output: { data: copyF32(this.#module, out, n * v.cols), shape: [n, v.cols] } };
      if (weights) result.weights = { data: copyF32(this.#module, weights, n * m), shape: [n, m] };
      return result;
    } finally {
      heap.free();
    }
  }

  /**
   * LayerNorm over the last dimension: x [rows, d] as nested arrays or {data, shape}, gamma and
   * beta of length d (default ones and zeros). Returns {data, shape}.
   */
  layerNorm(x, options = {}) {
    checkOptions(options, ['gamma', 'beta', 'eps'], 'layerNorm');
    const m = shapedMatrix(x, 'x');
    const vector = (v, fill, name) => {
      if (v === undefined) return new Float32Array(m.cols).fill(fill);
      return matrix(v, 1, m.cols, `layerNorm.${name}`);
    };
    const eps = options.eps ?? 1e-5;
    if (typeof eps !== 'number' || !(eps > 0) || !Number.isFinite(eps)) fail(`layerNorm: eps must be a positive number, got ${eps}`);
    const gamma = vector(options.gamma, 1, 'gamma'), beta = vector(options.beta, 0, 'beta');
    const heap = new CallHeap(this.#module);
    try {
      const y = heap.alloc(m.data.length * 4);
      check(this.#module.layerNorm(m.rows, m.cols, heap.f32(m.data), heap.f32(gamma), heap.f32(beta), eps, y), 'layerNorm');
      return { data: copyF32(this.#module, y, m.data.length), shape: [m.rows, m.cols] };
    } finally {
      heap.free();
    }
  }

  /** A Linear layer from an nn.Linear weight [outFeatures * inFeatures] and optional bias. */
  linear(weight, bias, inFeatures, outFeatures) {
    for (const [name, x] of [['inFeatures', inFeatures], ['outFeatures', outFeatures]]) {
      if (!Number.isInteger(x) || x < 1) fail(`linear: ${name} must be a positive integer, got ${x}`);
    }
    if (!(weight instanceof Float32Array) || weight.length !== inFeatures * outFeatures) {
      fail(`linear: weight must be a Float32Array of ${outFeatures} x ${inFeatures} = ${inFeatures * outFeatures} values`);
    }
    if (bias !== undefined && bias !== null && (!(bias instanceof Float32Array) || bias.length !== outFeatures)) {
      fail(`linear: bias must be a Float32Array of ${outFeatures} values`);
    }
    const heap = new CallHeap(this.#module);
    const handle = new this.#module.LinearHandle();
    try {
      const err = handle.create(heap.f32(weight), heap.f32(bias ?? null), inFeatures, outFeatures);
      if (err) {
        handle.delete();
        check(err, 'linear');
      }
    } finally {
      heap.free();
    }
    return new LinearLayer(this.#module, handle, inFeatures, outFeatures);
  }

  /** The sinusoidal table p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(...): {data, shape}. */
  positionalEncoding(n, d) {
    for (const [name, x] of [['n', n], ['d', d]]) {
      if (!Number.isInteger(x) || x < 1) fail(`positionalEncoding: ${name} must be a positive integer, got ${x}`);
    }
    if (n * d > 1 << 28) fail(`positionalEncoding: ${n} x ${d} is too large`, 'out_of_memory');
    const heap = new CallHeap(this.#module);
    try {
      const out = heap.alloc(n * d * 4);
      check(this.#module.positionalEncoding(n, d, out));
      return { data: copyF32(this.#module, out, n * d), shape: [n, d] };
    } finally {
      heap.free();
    }
  }
}

// Validates init() options shared by both entry points.
export function initOptions(options) {
  checkOptions(options, ['wasmUrl', 'wasmBinary', 'simd'], 'init');
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false) fail(`init: simd must be 'auto', true or false, got ${JSON.stringify(simd)}`);
  if (options.wasmBinary !== undefined && !(options.wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(options.wasmBinary)) {
    fail('init: wasmBinary must be an ArrayBuffer or Uint8Array');
  }
  return { ...options, simd };
}
