// The argument object of ModelHandle.forward (ForwardArgs in bindings/embind.cpp), built in one
// place so every caller (encoder, decoder, attention, encoder-decoder) fills it the same way.
import { matrix } from './inputs.mjs';

/** A side of the model that the call does not use. */
export const NO_SEQUENCE = Object.freeze({ nSeq: 0, embeddings: 0, tokens: 0, keyPadding: 0, attnMask: 0, causal: false });

/**
 * One padded batch (from prepareBatch) copied into wasm memory as SequenceArgs.
 * attnMask: the user's additive float mask [n, n] (or [n, nKeys] for attention with keys).
 */
export function sequenceArgs(heap, batch, { attnMask, causal = false, nKeys = batch.nMax } = {}) {
  return {
    nSeq: batch.nMax,                                       // n: padded length
    embeddings: batch.tokens ? 0 : heap.f32(batch.data),    // [B, n, d] or 0
    tokens: batch.tokens ? heap.i32(batch.data) : 0,        // [B, n] or 0
    keyPadding: heap.u8(batch.padding),                     // [B, n], 1 = masked, or 0
    attnMask: attnMask === undefined ? 0 : heap.f32(matrix(attnMask, batch.nMax, nKeys, 'attnMask', { allowNegInf: true })),
    causal,
  };
}

/**
 * The whole ForwardArgs (heap: the call's CallHeap). keyValue = {key, value, nSeqK, keyPadding} (multihead attention with
 * its own keys), memory = {data, nSeq, keyPadding} (decoders); both are wasm addresses.
 */
export function forwardArgs({ heap, nBatch, src = NO_SEQUENCE, tgt = NO_SEQUENCE, keyValue = null, memory = null,
                              score, normalize, needWeights, encoderOnly }) {
  return {
    nBatch, src, tgt,
    key: keyValue ? keyValue.key : 0,                   // [B, m, d]
    value: keyValue ? keyValue.value : 0,               // [B, m, d]
    nSeqK: keyValue ? keyValue.nSeqK : 0,
    keyPaddingK: keyValue ? keyValue.keyPadding : 0,    // [B, m]
    memory: memory ? memory.data : 0,                   // [B, n_mem, d]
    nSeqMemory: memory ? memory.nSeq : 0,
    memoryKeyPadding: memory ? memory.keyPadding : 0,   // [B, n_mem]
    score: heap.text(score), normalize: heap.text(normalize),  // option names as UTF-8 {ptr, length}
    needWeights, encoderOnly,
  };
}
