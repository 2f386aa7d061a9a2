// Model: a model in simdformer's nn.Transformer dialect (loaded by Simdformer.loadModel), with
// encode(), forward() and generate(). Inputs are validated and padded here, copied into wasm
// memory for one call, and results copied out.
import { DECODER_CROSS_MAPS, DECODER_SELF_MAPS, ENCODER_MAPS, readAttentionMaps } from './attention-maps.mjs';
import { CallGuard } from './call-guard.mjs';
import { check, fail, jsonReply, translateInternalErrors } from './errors.mjs';
import { forwardArgs, sequenceArgs } from './forward-args.mjs';
import { CallHeap, copyF32, copyI32 } from './heap.mjs';
import { prepareBatch } from './inputs.mjs';
import { disposable, disposeHandle, liveHandle, watch } from './lifetime.mjs';
import { boolean, func, integer, name, oneOf, readOptions, unused, value } from './options.mjs';

// Options every attention-running call takes.
const ATTENTION_OPTIONS = {
  returnAttention: oneOf([true, 'mean', false], false),
  score: name('scaled-dot'),
  normalize: name('softmax'),
  truncation: boolean(),
};

// What a config describes, from its layer counts: 'attention' (one multihead attention),
// 'encoder' (encoder layer or stack), 'decoder' (decoder layer or stack) or 'transformer'.
function roleOf(config) {
  const encoder = config.num_encoder_layers > 0, decoder = config.num_decoder_layers > 0;
  if (encoder && decoder) return 'transformer';
  if (decoder) return 'decoder';
  return encoder ? 'encoder' : 'attention';
}

function encodeSpec(role) {
  const decoderOnly = role === 'decoder' ? value() : unused('is only for decoder models');
  const attentionOnly = role === 'attention' ? value() : unused('is only for multihead_attention models');
  return {
    paddingMask: value(), causal: boolean(), attnMask: value(), ...ATTENTION_OPTIONS,
    memory: decoderOnly, memoryPaddingMask: decoderOnly, key: attentionOnly, value: attentionOnly, keyPaddingMask: attentionOnly,
  };
}

const FORWARD_SPEC = {
  srcPaddingMask: value(), tgtPaddingMask: value(), causal: boolean(true), srcCausal: boolean(false), ...ATTENTION_OPTIONS,
};

export class Model {
  #module;
  #handle;
  #config;
  #role;
  #parameters;
  #guard = new CallGuard();
  #weights;

  constructor(module, handle) {
    this.#module = module;
    this.#handle = handle;
    this.#config = Object.freeze(jsonReply(handle.configJson(), 'model config'));
    this.#role = roleOf(this.#config);
    this.#parameters = handle.parameterCount();
    this.#weights = jsonReply(handle.infoJson(), 'model info').weights;
    watch(this, `a ${this.#config.model_type} model`);
  }

  /** The config with PyTorch's names (d_model, nhead, dim_feedforward, ...). */
  get config() { return this.#config; }
  get kind() { return this.#config.model_type; }
  get parameterCount() { return this.#parameters; }
  /** How the linear weights are held: 'f32' or 'int8'. */
  get weights() { return this.#weights; }
  get disposed() { return this.#handle === null; }
  /** Bytes of the model's reusable workspace (grows to the largest call so far). */
  get workspaceBytes() { return this.#live().workspaceBytes(); }

  dispose() { this.#handle = disposeHandle(this, this.#guard, this.#handle); }

  #live() { return liveHandle(this.#handle, 'this Model'); }

  // side: 'src' or 'tgt' (token ids when that side has an embedding table), or 'vectors'.
  // maskName: the option the padding mask came from, for messages.
  #prepare(input, side, { paddingMask, truncation }, what, maskName = 'paddingMask') {
    const vocab = side === 'src' ? this.#config.src_vocab_size : side === 'tgt' ? this.#config.tgt_vocab_size : 0;
    return prepareBatch(input, {
      tokens: vocab > 0, d: this.#config.d_model, vocab, maxLen: this.#config.max_len, paddingMask, maskName, truncation, what,
    });
  }

  // Runs ModelHandle.forward after reserving a workspace for (batch, n_src, n_tgt).
  #run(args, nSrc, nTgt) {
    const h = this.#live();
    check(h.reserve(args.nBatch, nSrc, nTgt, args.needWeights));
    check(h.forward(args));
  }

  // The last hidden state of each sequence, cropped to its length: [n_b, d] each.
  #outputs(rowsPerItem, lengths) {
    const h = this.#live(), d = this.#config.d_model;
    const all = copyF32(this.#module, h.output(), h.outputRows() * d);
    return lengths.map((n, b) => all.slice(b * rowsPerItem * d, (b * rowsPerItem + n) * d));
  }

  #maps(kind, layers, lengthsQ, lengthsK, mode) {
    return mode ? readAttentionMaps(this.#module, this.#live(), kind, layers, lengthsQ, lengthsK, mode) : null;
  }

  #result(batch, outputs, lengths, extra) {
    const d = this.#config.d_model;
    const sequences = outputs.map((output, b) => ({ output, shape: [lengths[b], d], ...extra(b) }));
    return batch ? { sequences, lengths } : sequences[0];
  }

  /**
   * Runs the model on one sequence or a batch of sequences of different lengths.
   * Encoders take src vectors (or token ids); decoders take tgt plus options.memory;
   * multihead_attention takes the query plus optional options.key / options.value.
   */
  encode(input, options) {
    return this.#guard.run('encode', () => this.#encode(input, options));
  }

  #encode(input, options) {
    this.#live();
    const o = readOptions(options, encodeSpec(this.#role), 'encode');
    const heap = new CallHeap(this.#module);
    try {
      if (this.#role === 'decoder') return this.#decode(input, o, heap);
      if (this.#role === 'attention') return this.#attend(input, o, heap);
      const p = this.#prepare(input, 'src', o, 'input');
      this.#run(forwardArgs({
        heap, nBatch: p.lengths.length, src: sequenceArgs(heap, p, o), score: o.score, normalize: o.normalize,
        needWeights: o.returnAttention !== false, encoderOnly: true,
      }), p.nMax, 1);
      const maps = this.#maps(ENCODER_MAPS, this.#config.num_encoder_layers, p.lengths, p.lengths, o.returnAttention);
      return this.#result(p.batch, this.#outputs(p.nMax, p.lengths), p.lengths, (b) => (maps ? { attentions: maps[b] } : {}));
    } finally {
      heap.free();
    }
  }

  // multihead_attention: self-attention, or attention over options.key / options.value.
  #attend(input, o, heap) {
    const p = this.#prepare(input, 'src', o, 'input');
    const nBatch = p.lengths.length;
    let keyValue = null, lengthsK = p.lengths, nK = p.nMax;
    if (o.key !== undefined || o.value !== undefined) {
      if (o.key === undefined || o.value === undefined) fail('encode: give both key and value, or neither');
      const k = this.#prepare(o.key, 'src', { paddingMask: o.keyPaddingMask, truncation: o.truncation }, 'key', 'keyPaddingMask');
      const v = this.#prepare(o.value, 'src', { truncation: o.truncation }, 'value');
      if (k.lengths.length !== nBatch || v.lengths.length !== nBatch) fail('encode: key and value need as many sequences as the query');
      k.lengths.forEach((n, i) => { if (v.lengths[i] !== n) fail(`encode: key ${i} has ${n} positions but value ${i} has ${v.lengths[i]}`); });
      if (o.attnMask !== undefined && p.nMax !== p.lengths[0]) fail('attnMask needs sequences of equal length');
      keyValue = { key: heap.f32(k.data), value: heap.f32(v.data), nSeqK: k.nMax, keyPadding: heap.u8(k.padding) };
      lengthsK = k.lengths;
      nK = k.nMax;
    } else if (o.keyPaddingMask !== undefined) {
      fail("encode: 'keyPaddingMask' goes with key/value; use paddingMask for self-attention");
    }
    this.#run(forwardArgs({
      heap, nBatch, src: sequenceArgs(heap, p, { attnMask: o.attnMask, causal: o.causal, nKeys: nK }), keyValue,
      score: o.score, normalize: o.normalize, needWeights: o.returnAttention !== false, encoderOnly: true,
    }), p.nMax, nK);
    const maps = this.#maps(ENCODER_MAPS, 1, p.lengths, lengthsK, o.returnAttention);
    return this.#result(p.batch, this.#outputs(p.nMax, p.lengths), p.lengths, (b) => (maps ? { attentions: maps[b] } : {}));
  }

  // Decoder layer or stack: tgt attends to itself and to options.memory.
  #decode(input, o, heap) {
    if (o.memory === undefined) fail('encode: a decoder needs options.memory (the encoder output)');
    const p = this.#prepare(input, 'tgt', o, 'input');
    const nBatch = p.lengths.length;
    const mem = this.#prepare(o.memory, 'vectors', { paddingMask: o.memoryPaddingMask, truncation: o.truncation }, 'memory', 'memoryPaddingMask');
    if (mem.lengths.length !== nBatch) fail(`memory: expected ${nBatch} sequence(s), got ${mem.lengths.length}`);
    this.#run(forwardArgs({
      heap, nBatch, tgt: sequenceArgs(heap, p, o), memory: { data: heap.f32(mem.data), nSeq: mem.nMax, keyPadding: heap.u8(mem.padding) },
      score: o.score, normalize: o.normalize, needWeights: o.returnAttention !== false, encoderOnly: false,
    }), mem.nMax, p.nMax);
    const layers = this.#config.num_decoder_layers;
    const self = this.#maps(DECODER_SELF_MAPS, layers, p.lengths, p.lengths, o.returnAttention);
    const cross = this.#maps(DECODER_CROSS_MAPS, layers, p.lengths, mem.lengths, o.returnAttention);
    return this.#result(p.batch, this.#outputs(p.nMax, p.lengths), p.lengths,
      (b) => (self ? { attentions: self[b], crossAttentions: cross[b] } : {}));
  }

  /**
   * Teacher-forced encoder-decoder pass (transformer): decoder output for tgt given src,
   * generator logits for token models, and every attention map when asked.
   */
  forward(src, tgt, options) {
    return this.#guard.run('forward', () => this.#forward(src, tgt, options));
  }

  #forward(src, tgt, options) {
    const o = readOptions(options, FORWARD_SPEC, 'forward');
    if (this.#role !== 'transformer') fail(`forward(src, tgt) is for transformer models; use encode() for ${this.kind}`);
    const h = this.#live();
    const heap = new CallHeap(this.#module);
    try {
      const s = this.#prepare(src, 'src', { paddingMask: o.srcPaddingMask, truncation: o.truncation }, 'src', 'srcPaddingMask');
      const t = this.#prepare(tgt, 'tgt', { paddingMask: o.tgtPaddingMask, truncation: o.truncation }, 'tgt', 'tgtPaddingMask');
      if (s.lengths.length !== t.lengths.length) fail(`forward: ${s.lengths.length} source(s) but ${t.lengths.length} target(s)`);
      const nBatch = s.lengths.length;
      this.#run(forwardArgs({
        heap, nBatch, src: sequenceArgs(heap, s, { causal: o.srcCausal }), tgt: sequenceArgs(heap, t, { causal: o.causal }),
        score: o.score, normalize: o.normalize, needWeights: o.returnAttention !== false, encoderOnly: false,
      }), s.nMax, t.nMax);
      const vocab = h.logitsCols();
      const logits = vocab ? copyF32(this.#module, h.logits(), nBatch * t.nMax * vocab) : null;  // [B, n_tgt, vocab]
      const maps = this.#allMaps(s.lengths, t.lengths, t.lengths, o.returnAttention);
      return this.#result(s.batch, this.#outputs(t.nMax, t.lengths), t.lengths, (b) => ({
        ...(logits ? { logits: logits.slice(b * t.nMax * vocab, (b * t.nMax + t.lengths[b]) * vocab), vocabSize: vocab } : {}),
        ...(maps ? maps(b) : {}),
      }));
    } finally {
      heap.free();
    }
  }

  // Encoder, decoder self and cross maps of an encoder-decoder pass, per sequence b.
  #allMaps(srcLengths, tgtLengthsQ, tgtLengthsK, mode) {
    if (!mode) return null;
    const enc = this.#maps(ENCODER_MAPS, this.#config.num_encoder_layers, srcLengths, srcLengths, mode);
    const self = this.#maps(DECODER_SELF_MAPS, this.#config.num_decoder_layers, tgtLengthsQ, tgtLengthsK, mode);
    const cross = this.#maps(DECODER_CROSS_MAPS, this.#config.num_decoder_layers, tgtLengthsQ, srcLengths, mode);
    return (b) => ({ encoderAttentions: enc[b], decoderAttentions: self[b], crossAttentions: cross[b] });
  }

  /**
   * Greedy decoding with a key/value cache (transformer with token embeddings).
   * Returns tokens (starting with bos) and, when asked, encoder, decoder and cross attentions.
   * onProgress runs after every step; throwing from it stops decoding at that step.
   */
  generate(src, options) {
    return this.#guard.run('generate', () => this.#generate(src, options));
  }

  #generate(src, options) {
    const config = this.#config;
    if (this.#role !== 'transformer' || !config.tgt_vocab_size) fail('generate needs a transformer with token embeddings and a generator');
    const h = this.#live();
    const token = integer(0, config.tgt_vocab_size - 1, undefined);
    const o = readOptions(options, {
      maxLength: integer(2, config.max_len, Math.min(config.max_len, 64)), bos: token, eos: token,
      paddingMask: value(), causal: boolean(false), ...ATTENTION_OPTIONS, onProgress: func(),
    }, 'generate');
    const heap = new CallHeap(this.#module);
    try {
      const s = this.#prepare(src, 'src', o, 'src');
      const nBatch = s.lengths.length;
      check(h.reserve(nBatch, s.nMax, o.maxLength, o.returnAttention !== false));
      // Steps are driven from here (C++ never calls back while one runs): onProgress runs between
      // steps, so an exception from it stops decoding at once and unwinds no wasm frame. The
      // guard keeps the model busy meanwhile; decodeEnd always ends the decoding.
      check(h.generateBegin({
        nBatch, src: sequenceArgs(heap, s, { causal: o.causal }), maxLength: o.maxLength, bos: o.bos ?? -1, eos: o.eos ?? -1,
        score: heap.text(o.score), normalize: heap.text(o.normalize), needWeights: o.returnAttention !== false,
      }));
      try {
        while (!h.decodeDone()) {
          check(h.decodeStep());
          o.onProgress?.({ stage: 'generate', step: h.decodeSteps(), total: o.maxLength - 1 });
        }
        check(h.generateFinish());
      } finally {
        h.decodeEnd();
      }
      const tokens = this.#generatedTokens(nBatch, o.eos ?? config.eos_token);
      const steps = tokens.map((t) => Math.max(1, t.length - 1));
      const maps = this.#allMaps(s.lengths, steps, steps, o.returnAttention);
      const results = tokens.map((t, b) => ({ tokens: t, ...(maps ? maps(b) : {}) }));
      return s.batch ? results : results[0];
    } finally {
      heap.free();
    }
  }

  // Each item's generated ids, ending at its first eos (after bos) when it produced one.
  #generatedTokens(nBatch, eos) {
    const h = this.#live();
    const length = h.generatedLength();
    const all = copyI32(this.#module, h.generated(), nBatch * length);  // [B, length]
    const tokens = [];
    for (let b = 0; b < nBatch; b++) {
      const row = all.slice(b * length, (b + 1) * length);
      const end = eos >= 0 ? row.indexOf(eos, 1) : -1;
      tokens.push(end >= 0 ? row.slice(0, end + 1) : row);
    }
    return tokens;
  }
}
disposable(Model);
translateInternalErrors(Model);
