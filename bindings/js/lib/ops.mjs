// The teaching operations on plain matrices: attention, layerNorm, positionalEncoding. Each
// validates its arguments, runs one bound C++ function and returns copies.
import { check, fail } from './errors.mjs';
import { CallHeap, copyF32 } from './heap.mjs';
import { maskArray, matrix, shapedMatrix } from './inputs.mjs';
import { boolean, describe, name, positiveNumber, readOptions, value } from './options.mjs';
import { denseList } from './text-inputs.mjs';

const ATTENTION_SPEC = {
  score: name('scaled-dot'), normalize: name('softmax'), mask: value(), attnMask: value(), causal: boolean(),
  returnWeights: boolean(), additive: value(),
};

/**
 * One attention: normalize(mask(score(Q, K))) V. Q [n, d_k], K [m, d_k], V [m, d_v] as
 * nested arrays or {data, shape}. Returns {output: {data, shape}, weights?: {data, shape}}.
 */
export function attention(module, Q, K, V, options) {
  const o = readOptions(options, ATTENTION_SPEC, 'attention');
  const q = shapedMatrix(Q, 'Q'), k = shapedMatrix(K, 'K'), v = shapedMatrix(V, 'V');
  if (q.cols !== k.cols) fail(`Q has d_k=${q.cols} but K has d_k=${k.cols}`, 'shape_mismatch');
  if (k.rows !== v.rows) fail(`K has ${k.rows} rows but V has ${v.rows}`, 'shape_mismatch');
  const n = q.rows, m = k.rows;
  const { keyPadding, additiveMask } = attentionMasks(o, n, m);
  const additive = additiveWeights(o, q.cols);
  const heap = new CallHeap(module);
  try {
    const out = heap.alloc(n * v.cols * 4);                   // [n, d_v]
    const weights = o.returnWeights ? heap.alloc(n * m * 4) : 0;  // [n, m]
    check(module.attention({
      nSeqQ: n, nSeqK: m, dK: q.cols, dV: v.cols, q: heap.f32(q.data), k: heap.f32(k.data), v: heap.f32(v.data),
      score: heap.text(o.score), normalize: heap.text(o.normalize), additiveDim: additive ? additive.dim : 0,
      wQ: additive ? heap.f32(additive.wq) : 0, wK: additive ? heap.f32(additive.wk) : 0, wV: additive ? heap.f32(additive.wv) : 0,
      keyPadding: heap.u8(keyPadding), attnMask: heap.f32(additiveMask), causal: o.causal, out, weights,
    }), 'attention');
    const result = { output: { data: copyF32(module, out, n * v.cols), shape: [n, v.cols] } };
    if (weights) result.weights = { data: copyF32(module, weights, n * m), shape: [n, m] };
    return result;
  } finally {
    heap.free();
  }
}

// options.mask (a key mask of length m, or a boolean [n, m] matrix; true = masked) and
// options.attnMask (additive floats [n, m]) -> a key padding mask and one additive mask.
function attentionMasks(o, n, m) {
  let keyPadding = null;
  let additiveMask = o.attnMask !== undefined ? matrix(o.attnMask, n, m, 'attnMask', { allowNegInf: true }) : null;
  const mask = o.mask;
  if (mask !== undefined) {
    if (Array.isArray(mask) && mask.length === n && n !== m && !Array.isArray(mask[0])) fail(`mask: a key mask needs ${m} entries`);
    if (Array.isArray(mask) && mask.length && Array.isArray(mask[0])) {
      if (mask.length !== n) fail(`mask: has ${mask.length} rows, expected ${n}`);
      additiveMask = additiveMask ? additiveMask.slice() : new Float32Array(n * m);  // never the caller's array
      denseList(mask, 'mask').forEach((row, i) => {  // each row a key mask: true/1 = masked, false/0 = kept
        const keys = maskArray(row, m, `mask[${i}]`) ?? fail(`mask[${i}]: expected a row of booleans or 0/1, got ${describe(row)}`);
        keys.forEach((x, j) => { if (x) additiveMask[i * m + j] = -Infinity; });
      });
    } else {
      keyPadding = maskArray(mask, m, 'mask');
    }
  }
  return { keyPadding, additiveMask };
}

// Bahdanau weights {wQ [d_a, d_k], wK [d_a, d_k], wV [d_a]} for score 'additive'.
function additiveWeights(o, dK) {
  if (o.score !== 'additive') {
    if (o.additive !== undefined) fail("options.additive is only used with score 'additive'");
    return null;
  }
  const a = o.additive;
  if (!a || typeof a !== 'object') fail("score 'additive' needs options.additive = {wQ, wK, wV}");
  const w = readOptions(a, { wQ: value(), wK: value(), wV: value() }, 'attention.additive');
  const wq = shapedMatrix(w.wQ, 'additive.wQ'), wk = shapedMatrix(w.wK, 'additive.wK');
  if (wq.cols !== dK || wk.cols !== dK || wk.rows !== wq.rows) fail(`additive.wQ and wK must both be [d_a, ${dK}]`, 'shape_mismatch');
  return { dim: wq.rows, wq: wq.data, wk: wk.data, wv: matrix(w.wV, 1, wq.rows, 'additive.wV') };
}

/**
 * LayerNorm over the last dimension: x [rows, d] as nested arrays or {data, shape}, gamma and
 * beta of length d (default ones and zeros). Returns {data, shape}.
 */
export function layerNorm(module, x, options) {
  const o = readOptions(options, { gamma: value(), beta: value(), eps: positiveNumber(1e-5) }, 'layerNorm');
  const m = shapedMatrix(x, 'x');
  const vector = (v, fill, what) => (v === undefined ? new Float32Array(m.cols).fill(fill) : matrix(v, 1, m.cols, `layerNorm.${what}`));
  const gamma = vector(o.gamma, 1, 'gamma'), beta = vector(o.beta, 0, 'beta');
  const heap = new CallHeap(module);
  try {
    const y = heap.alloc(m.data.length * 4);  // [rows, d]
    check(module.layerNorm(m.rows, m.cols, heap.f32(m.data), heap.f32(gamma), heap.f32(beta), o.eps, y), 'layerNorm');
    return { data: copyF32(module, y, m.data.length), shape: [m.rows, m.cols] };
  } finally {
    heap.free();
  }
}

/** The sinusoidal table p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(...): {data, shape}. */
export function positionalEncoding(module, n, d) {
  for (const [what, x] of [['n', n], ['d', d]]) {
    if (!Number.isSafeInteger(x) || x < 1) fail(`positionalEncoding: ${what} must be a positive integer, got ${describe(x)}`);
  }
  if (n * d > 1 << 28) fail(`positionalEncoding: ${n} x ${d} is too large`, 'out_of_memory');
  const heap = new CallHeap(module);
  try {
    const out = heap.alloc(n * d * 4);  // [n, d]
    check(module.positionalEncoding(n, d, out));
    return { data: copyF32(module, out, n * d), shape: [n, d] };
  } finally {
    heap.free();
  }
}
