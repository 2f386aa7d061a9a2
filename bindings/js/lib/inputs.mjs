// Turns the forms users pass (typed arrays, nested arrays, lists of sequences) into the flat,
// padded arrays the engine takes, validating as it goes.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';
import { denseList, readList } from './text-inputs.mjs';

const isTyped = (x) => ArrayBuffer.isView(x) && !(x instanceof DataView);
// Values in messages go through describe() or this: a template literal of a Symbol, of a
// null-prototype object or of one whose toString throws turned the error into a TypeError (or
// the caller's own error) while it was being written. ('Int32Array', never the caller's code.)
const typeName = (x) => Object.prototype.toString.call(x).slice(8, -1);

/**
 * Float values as a Float32Array: a Float32Array as is, a Float64Array converted, a plain array
 * only when every element is a number (JavaScript would silently turn '1', true and null into
 * numbers; a BigInt would throw a TypeError).
 */
export function floatArray(values, what) {
  // isTyped (ArrayBuffer.isView): a Proxy of a Float32Array passes instanceof, and is no typed array.
  if (isTyped(values) && (values instanceof Float32Array || values instanceof Float64Array)) return floatCopy(values);
  if (isTyped(values)) fail(`${what}: expected a Float32Array or Float64Array, got ${typeName(values)}`);
  if (!Array.isArray(values)) fail(`${what}: expected an array of numbers, got ${describe(values)}`);
  // Each element read once: the one checked is the one converted (a getter could give a number to
  // the check and an object with a valueOf to the conversion).
  return Float32Array.from(readList(values, (v, i) => {
    if (typeof v !== 'number') fail(`${what}: element ${i} is ${describe(v)}, not a number`);
  }));
}

/**
 * A Float32Array copy of a Float32Array or Float64Array, made where the values are checked: the
 * caller's array is read once, as text-inputs.mjs reads arrays. Checking the caller's own array
 * and copying it into wasm memory later let code that runs in between (a getter or Proxy of a
 * later argument or option, a mask's elements) write NaN into it, detach its buffer or shrink a
 * resizable one: the work then got unchecked values, or a short block that C++ read past.
 * (A detached or out-of-bounds view has length 0, and copying one would throw a TypeError.)
 */
export const floatCopy = (values) => (values.length === 0 ? new Float32Array(0) : new Float32Array(values));

export function isBatch(input, tokens) {
  if (!Array.isArray(input) || input.length === 0) return false;
  const first = input[0];
  if (tokens) return Array.isArray(first) || isTyped(first);
  // vectors: a batch is a list of flat typed arrays or a list of n x d nested arrays
  return isTyped(first) || (Array.isArray(first) && first.length > 0 && (Array.isArray(first[0]) || isTyped(first[0])));
}

// One sequence of vectors -> Float32Array [n * d].
export function vectorSequence(seq, d, what) {
  let flat;
  if (isTyped(seq)) {
    if (!(seq instanceof Float32Array) && !(seq instanceof Float64Array)) fail(`${what}: expected a Float32Array, got ${typeName(seq)}`);
    flat = floatCopy(seq);
  } else if (Array.isArray(seq)) {
    if (seq.length && (Array.isArray(seq[0]) || isTyped(seq[0]))) {
      // Sizes from the copies, not from what the caller's arrays said before (a Proxy's length can
      // change between two reads).
      const rows = denseList(seq, `${what}: row`);
      flat = new Float32Array(rows.length * d);
      rows.forEach((row, i) => {
        if (!row || (!Array.isArray(row) && !isTyped(row))) fail(`${what}: row ${i} has no values, expected d_model=${d}`);
        const values = floatArray(row, `${what}: row ${i}`);
        if (values.length !== d) fail(`${what}: row ${i} has ${values.length} values, expected d_model=${d}`);
        flat.set(values, i * d);
      });
    } else {
      flat = floatArray(seq, what);
    }
  } else {
    fail(`${what}: expected a Float32Array or an array of rows, got ${seq === null ? 'null' : typeof seq}`);
  }
  if (flat.length === 0) fail(`${what}: the sequence is empty`);
  if (flat.length % d !== 0) fail(`${what}: ${flat.length} values is not a whole number of d_model=${d} vectors`);
  for (let i = 0; i < flat.length; i++) {
    if (!Number.isFinite(flat[i])) fail(`${what}: value ${flat[i]} at index ${i} is not finite`);
  }
  return flat;
}

// One sequence of token ids -> Int32Array.
export function tokenSequence(seq, vocab, what) {
  if (!Array.isArray(seq) && !isTyped(seq)) fail(`${what}: expected token ids (an array or Int32Array), got ${seq === null ? 'null' : typeof seq}`);
  if (seq.length === 0) fail(`${what}: the sequence is empty`);
  const out = new Int32Array(seq.length);
  for (let i = 0; i < seq.length; i++) {
    const t = seq[i];
    if (!Number.isInteger(t) || t < 0 || t >= vocab) fail(`${what}: token ${describe(t)} at index ${i} is not an id in [0, ${vocab})`);
    out[i] = t;
  }
  return out;
}

// A per-sequence mask (true/1 = masked) -> Uint8Array of length n.
export function maskArray(mask, n, what) {
  if (mask === undefined || mask === null) return null;
  if (!Array.isArray(mask) && !isTyped(mask)) fail(`${what}: expected an array of booleans or 0/1`);
  if (mask.length !== n) fail(`${what}: has ${mask.length} entries, expected ${n} (one per key)`);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = mask[i];
    if (v !== true && v !== false && v !== 0 && v !== 1) fail(`${what}: entry ${i} is ${describe(v)}; use true/1 for masked, false/0 for kept`);
    out[i] = v ? 1 : 0;
  }
  return out;
}

// An [rows, cols] float matrix (nested arrays, {data, shape} or a flat Float32Array of rows*cols).
export function matrix(m, rows, cols, what, { allowNegInf = false } = {}) {
  let flat;
  if (m && typeof m === 'object' && !Array.isArray(m) && !isTyped(m) && Object.hasOwn(m, 'data')) {
    if (!Array.isArray(m.shape) || m.shape.length !== 2 || m.shape[0] !== rows || m.shape[1] !== cols) {
      fail(`${what}: shape ${describeShape(m.shape)}, expected [${rows}, ${cols}]`);
    }
    flat = floatArray(m.data, `${what}.data`);
  } else if (Array.isArray(m) && m.length && (Array.isArray(m[0]) || isTyped(m[0]))) {
    if (m.length !== rows) fail(`${what}: has ${m.length} rows, expected ${rows}`);
    const list = denseList(m, `${what}: row`);  // sizes from the copies, as in vectorSequence
    if (list.length !== rows) fail(`${what}: has ${list.length} rows, expected ${rows}`);
    flat = new Float32Array(rows * cols);
    list.forEach((row, i) => {
      if (!Array.isArray(row) && !isTyped(row)) fail(`${what}: row ${i} is ${describe(row)}, not an array`);
      if (row.length !== cols) fail(`${what}: row ${i} has ${row.length} values, expected ${cols}`);
      const values = floatArray(row, `${what}: row ${i}`);
      if (values.length !== cols) fail(`${what}: row ${i} has ${values.length} values, expected ${cols}`);
      flat.set(values, i * cols);
    });
  } else if (isTyped(m) || Array.isArray(m)) {
    flat = floatArray(m, what);
  } else {
    fail(`${what}: expected a matrix [${rows}, ${cols}]`);
  }
  if (flat.length !== rows * cols) fail(`${what}: has ${flat.length} values, expected ${rows} x ${cols} = ${rows * cols}`);
  for (let i = 0; i < flat.length; i++) {
    const v = flat[i];
    if (Number.isNaN(v) || v === Infinity || (v === -Infinity && !allowNegInf)) fail(`${what}: value ${v} at index ${i} is not allowed`);
  }
  return flat;
}

const describeShape = (shape) => (Array.isArray(shape) ? `[${shape.map(describe).join(', ')}]` : describe(shape));

// A matrix whose shape is read from the value itself: nested arrays or {data, shape}.
export function shapedMatrix(m, what) {
  if (m && typeof m === 'object' && !Array.isArray(m) && Object.hasOwn(m, 'data') && Array.isArray(m.shape) && m.shape.length === 2) {
    const [rows, cols] = m.shape;
    if (!Number.isSafeInteger(rows) || rows < 1 || !Number.isSafeInteger(cols) || cols < 1) {
      fail(`${what}: shape must be two positive integers, got ${describeShape(m.shape)}`);
    }
    return { data: matrix(m, rows, cols, what), rows, cols };
  }
  if (Array.isArray(m) && m.length && (Array.isArray(m[0]) || isTyped(m[0]))) {
    const rows = m.length, cols = m[0].length;
    if (cols === 0) fail(`${what}: rows are empty`);
    return { data: matrix(m, rows, cols, what), rows, cols };
  }
  fail(`${what}: expected a matrix as nested arrays or {data, shape: [rows, cols]}`);
}

// Pads sequences of different lengths to one [b, n_max, width] array plus a padding mask.
// userMasks[i] (true = masked) are merged in. Sequences longer than maxLen are cut when
// `truncation`, otherwise they are an error.
export function padBatch(seqs, width, maxLen, truncation, userMasks, ArrayType, what) {
  const lengths = seqs.map((s, i) => {
    const n = s.length / width;
    if (n > maxLen) {
      if (!truncation) fail(`${what}: sequence ${i} has ${n} positions, more than the model's max_len=${maxLen} (pass truncation: true to cut it)`);
      return maxLen;
    }
    return n;
  });
  const nMax = lengths.reduce((a, b) => (b > a ? b : a), 0);  // not Math.max(...): huge batches overflow the stack
  const data = new ArrayType(seqs.length * nMax * width);
  const padding = new Uint8Array(seqs.length * nMax);
  let anyPadding = false;
  seqs.forEach((s, b) => {
    data.set(s.subarray(0, lengths[b] * width), b * nMax * width);
    for (let i = lengths[b]; i < nMax; i++) { padding[b * nMax + i] = 1; anyPadding = true; }
    const user = userMasks ? userMasks[b] : null;
    if (user) for (let i = 0; i < lengths[b]; i++) if (user[i]) { padding[b * nMax + i] = 1; anyPadding = true; }
  });
  return { data, padding: anyPadding ? padding : null, lengths, nMax };
}

/**
 * One sequence or a batch -> {data [B, nMax, width], padding [B, nMax] | null, lengths, nMax,
 * batch (was the input a batch?), tokens}. tokens: ids in [0, vocab) (width 1), else vectors of
 * width d. paddingMask: one mask (or one per sequence for a batch), true/1 = masked.
 */
export function prepareBatch(input, { tokens, d, vocab, maxLen, paddingMask, maskName = 'paddingMask', truncation, what }) {
  const batch = isBatch(input, tokens);
  const seqs = batch ? denseList(input, what) : [input];
  if (seqs.length === 0) fail(`${what}: the batch is empty`);
  const flat = seqs.map((s, i) => (tokens ? tokenSequence(s, vocab, `${what}[${i}]`) : vectorSequence(s, d, `${what}[${i}]`)));
  const width = tokens ? 1 : d;
  let masks = null;
  if (paddingMask !== undefined) {
    const given = batch ? paddingMask : [paddingMask];
    if (!Array.isArray(given) || given.length !== seqs.length) fail(`${maskName}: expected one mask per sequence (${seqs.length})`);
    masks = denseList(given, maskName).map((m, i) => maskArray(m, flat[i].length / width, `${maskName}[${i}]`));
  }
  const padded = padBatch(flat, width, maxLen, truncation, masks, tokens ? Int32Array : Float32Array, what);
  return { ...padded, batch, tokens };
}

/** Bytes given as a Uint8Array, an ArrayBuffer or any ArrayBuffer view -> Uint8Array (no copy). */
export function asBytes(bytes, what) {
  // ArrayBuffer.isView: a Proxy of a Uint8Array passes instanceof, not isView, and is not bytes.
  if (ArrayBuffer.isView(bytes) && bytes instanceof Uint8Array) return bytes;
  if (!(bytes instanceof ArrayBuffer) && !ArrayBuffer.isView(bytes)) {
    fail(`${what} must be bytes (Uint8Array, ArrayBuffer or a view of one), got ${bytes === null ? 'null' : typeof bytes}`);
  }
  // A detached ArrayBuffer (or a DataView of one) throws a TypeError when viewed.
  try {
    return bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (e) {
    return fail(`${what} cannot be read: its ArrayBuffer is detached (${e?.message ?? e})`);
  }
}
