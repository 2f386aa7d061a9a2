// The feeds of one run of a bench/models decoder's decoder_with_past.onnx, for any ONNX Runtime
// package (ort: onnxruntime-web or onnxruntime-node): used by bench/decode.mjs in Node and by
// decode.mjs in the page, which serves this folder.
// withPastFeeds(ort, manifest)(ids, past, total): the ids at positions total - ids.length ..
// total - 1, and the past of the previous run's present outputs (the key/value heads only:
// grouped-query attention for the Llama) or an empty one.
export function withPastFeeds(ort, manifest) {
  const { layers, d_model: d } = manifest;
  const heads = manifest.kv_heads ?? manifest.heads, dh = manifest.head_dim ?? d / manifest.heads;
  return (ids, past, total) => {
    const f = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (_, i) => BigInt(total - ids.length + i)), [1, ids.length]),
    };
    for (let i = 0; i < layers; i++) for (const kv of ['key', 'value']) {
      f[`past_key_values.${i}.${kv}`] = past ? past[`present.${i}.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, dh]);
    }
    return f;
  };
}
