// Sentence embeddings from token states, as sentence-transformers computes them, and the
// softmax top-k of the fill-mask pipeline. Sums run in double precision.

/**
 * hidden: Float32Array [B * n, d] (right-padded batch); lengths[b] real tokens of item b
 * (attention_mask = 1). mode: 'mean' (over the real tokens), 'cls' (token 0) or 'max'.
 * Returns one Float32Array [d] per item.
 */
export function pool(hidden, n, d, lengths, mode) {
  return lengths.map((len, b) => {
    const base = b * n * d;
    const out = new Float64Array(d);
    if (mode === 'cls') {
      for (let j = 0; j < d; j++) out[j] = hidden[base + j];
    } else if (mode === 'max') {
      out.fill(-Infinity);
      for (let i = 0; i < len; i++) for (let j = 0; j < d; j++) out[j] = Math.max(out[j], hidden[base + i * d + j]);
    } else {
      for (let i = 0; i < len; i++) for (let j = 0; j < d; j++) out[j] += hidden[base + i * d + j];
      for (let j = 0; j < d; j++) out[j] /= len;
    }
    return Float32Array.from(out);
  });
}

/** v / max(||v||, 1e-12), as torch.nn.functional.normalize (sentence-transformers' Normalize). */
export function l2Normalize(v) {
  let sum = 0;
  for (let j = 0; j < v.length; j++) sum += v[j] * v[j];
  const scale = 1 / Math.max(Math.sqrt(sum), 1e-12);
  return v.map((x) => x * scale);
}

/** The k most probable ids of softmax(logits) as [{id, score}], most probable first. */
export function softmaxTopK(logits, k) {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  // partial selection: keep the k best (ties: the lower id first, as torch.topk tends to)
  const best = [];
  for (let i = 0; i < logits.length; i++) {
    const x = logits[i];
    if (best.length === k && x <= logits[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && logits[best[at - 1]] < x) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best.map((id) => ({ id, score: Math.exp(logits[id] - max) / sum }));
}
