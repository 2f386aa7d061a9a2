// The step-by-step view of one attention head (the lecture's picture of self-attention), built
// from what the engine computed for one layer: its q, k, v projections and per-head context
// (TextRequest::probe_out) and its attention weights.
//
//   q_i = x_i W^q + b^q,  k_j = x_j W^k + b^k,  v_j = x_j W^v + b^v        (engine, per head slice)
//   a(q_i, k_j) = q_i · k_j · scale  (scale = 1/√d_head, HF's variants)  (here, from the engine's q, k)
//   α_ij = softmax_j(a(q_i, k_j) + mask_ij)                            (engine's attention weights)
//   b_i = Σ_j α_ij v_j                                                 (engine's context)

/**
 * probe: Float32Array [4, n, d_model] = q, k, v, context of one sequence; weights: the head's
 * attention map {data [n, n]}; returns the head's slices [n, d_head] and the scores [n, n]
 * (masked scores are -Infinity; mask [n, n] is 1 where key j is visible to query i).
 */
export function headSteps(probe, weights, { n, dModel, nHeads, head, scale, causal }) {
  const dHead = dModel / nHeads;
  const part = (p) => {
    const out = new Float32Array(n * dHead);
    for (let i = 0; i < n; i++) {
      const row = p * n * dModel + i * dModel + head * dHead;
      out.set(probe.subarray(row, row + dHead), i * dHead);
    }
    return out;
  };
  const q = part(0), k = part(1), v = part(2), context = part(3);
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
  return { dHead, scale, q, k, v, context, scores, weights: weights.data, mask };
}

/** The factor GPT-2 / BERT multiply q·k by: 1/√d_head, GPT-2's scale_attn_* switches honoured. */
export function scoreScale(info, layer) {
  const dHead = info.d_model / info.n_heads;
  const c = info.config ?? {};
  let scale = c.scale_attn_weights === false ? 1 : 1 / Math.sqrt(dHead);
  if (c.scale_attn_by_inverse_layer_idx === true) scale /= layer + 1;
  return scale;
}
