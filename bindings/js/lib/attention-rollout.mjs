// What the deciding position of a classifier attends to: its row of every layer's and head's
// attention weights, and the attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow
// in Transformers") that follows attention through all layers. Each layer's mixing counts the
// residual connection as half of it, Â_l = ½ mean_h(A_l) + ½ I (rows still sum to 1), and the
// layers compose: R = Â_L ··· Â_2 Â_1. Row p of R says how much each input token reaches
// position p at the top of the stack.

/** layers[l][h] = {data: Float32Array [n * n]} (a text's maps, cropped to its n real tokens) -> R [n * n] (doubles). */
export function attentionRollout(layers, n) {
  let rollout = null;
  for (const heads of layers) {
    const mixed = new Float64Array(n * n);  // ½ mean over heads + ½ I
    for (const { data } of heads) for (let i = 0; i < n * n; i++) mixed[i] += data[i] / (2 * heads.length);
    for (let i = 0; i < n; i++) mixed[i * n + i] += 0.5;
    rollout = rollout ? multiply(mixed, rollout, n) : mixed;
  }
  return rollout ?? identity(n);
}

function multiply(a, b, n) {  // a [n, n] · b [n, n]
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const x = a[i * n + k];
      if (x !== 0) for (let j = 0; j < n; j++) out[i * n + j] += x * b[k * n + j];
    }
  }
  return out;
}

function identity(n) {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) m[i * n + i] = 1;
  return m;
}

/** The rows of `position`: heads[l][h] Float32Array [n] and rollout Float32Array [n]. */
export function decidingAttention(layers, n, position) {
  const heads = layers.map((hs) => hs.map(({ data }) => data.slice(position * n, (position + 1) * n)));
  const rollout = Float32Array.from(attentionRollout(layers, n).subarray(position * n, (position + 1) * n));
  return { position, heads, rollout };
}
