// The step-by-step view of one attention head (the lecture's picture of self-attention), built
// from what the engine computed for one layer: its q, k, v projections and per-head context
// (TextRequest::probe_out) and its attention weights.
//
//   q_i = x_i W^q + b^q,  k_j = x_j W^k + b^k,  v_j = x_j W^v + b^v        (engine, per head slice)
//   rotary models (Llama): q_i, k_j rotated by their positions' angles          (engine; both kept)
//   a(q_i, k_j) = q_i · k_j · scale  (scale = 1/√d_head, HF's variants)  (here, from the engine's q, k)
//   α_ij = softmax_j(a(q_i, k_j) + mask_ij)                            (engine's attention weights)
//   b_i = Σ_j α_ij v_j                                                 (engine's context)

/**
 * The probe's layout for a model's info (TextRequest::probe_out): blocks of n rows each, q and
 * context [n, nHeads * dHead], k and v [n, nKvHeads * dHead], and for rotary models q and k before
 * the rotation. -> {dHead, qWidth, kvWidth, nKvHeads, rotary, width (floats per token)}.
 */
export function probeLayout(info) {
  const dHead = info.head_dim ?? info.d_model / info.n_heads, nKvHeads = info.n_kv_heads ?? info.n_heads;
  const qWidth = info.n_heads * dHead, kvWidth = nKvHeads * dHead, rotary = info.rotary != null;
  return { dHead, qWidth, kvWidth, nKvHeads, rotary, width: 2 * qWidth + 2 * kvWidth + (rotary ? qWidth + kvWidth : 0) };
}

/**
 * probe: Float32Array [n * layout.width] of one sequence (probeLayout); weights: the head's
 * attention map {data [n, n]}; returns the head's slices [n, d_head] (k and v of the key/value
 * head it reads, kvHead) and the scores [n, n] (masked scores are -Infinity; mask [n, n] is 1
 * where key j is visible to query i); rotary models also q and k before the rotation.
 */
export function headSteps(probe, weights, { n, layout, nHeads, head, scale, causal }) {
  const { dHead, qWidth, kvWidth, nKvHeads, rotary } = layout;
  const kvHead = Math.floor(head / (nHeads / nKvHeads));
  const starts = [0, n * qWidth, n * (qWidth + kvWidth), n * (qWidth + 2 * kvWidth), n * (2 * qWidth + 2 * kvWidth),
    n * (3 * qWidth + 2 * kvWidth)];
  const part = (block, width, h) => {
    const out = new Float32Array(n * dHead);
    for (let i = 0; i < n; i++) {
      const row = starts[block] + i * width + h * dHead;
      out.set(probe.subarray(row, row + dHead), i * dHead);
    }
    return out;
  };
  const q = part(0, qWidth, head), k = part(1, kvWidth, kvHead), v = part(2, kvWidth, kvHead), context = part(3, qWidth, head);
  const beforeRotation = rotary ? { qBeforeRotation: part(4, qWidth, head), kBeforeRotation: part(5, kvWidth, kvHead) } : {};
  const mask = new Uint8Array(n * n);
  const scores = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const visible = !causal || j <= i;
      mask[i * n + j] = visible ? 1 : 0;
      let dot = 0;
      for (let c = 0; c < dHead; c++) dot += q[i * dHead + c] * k[j * dHead + c];
      scores[i * n + j] = visible ? dot * scale : -Infinity;
    }
  }
  return { dHead, scale, kvHead, q, k, v, context, ...beforeRotation, scores, weights: weights.data, mask };
}

/** The factor q·k is multiplied by: 1/√d_head, GPT-2's scale_attn_* switches honoured. */
export function scoreScale(info, layer) {
  const dHead = info.head_dim ?? info.d_model / info.n_heads;
  const c = info.config ?? {};
  let scale = c.scale_attn_weights === false ? 1 : 1 / Math.sqrt(dHead);
  if (c.scale_attn_by_inverse_layer_idx === true) scale /= layer + 1;
  return scale;
}
