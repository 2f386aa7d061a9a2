// Builds a Transformer with random weights as safetensors bytes, for the playground: the user
// picks d_model, heads and layers, and sees what attention does before any training. Includes
// additive-score weights so every score function can be compared.
export const RANDOM_VOCAB = ['<pad>', '<bos>', '<eos>', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomTransformer({ d_model, nhead, layers, seed }) {
  const rand = mulberry32(seed);
  const vocab = RANDOM_VOCAB.length, ff = 2 * d_model, dh = d_model / nhead, da = Math.max(4, dh);
  const tensors = [];
  const uniform = (shape, fanIn) => {
    const n = shape.reduce((a, b) => a * b, 1), bound = Math.sqrt(3 / fanIn);
    tensors.push([null, shape, Float32Array.from({ length: n }, () => (2 * rand() - 1) * bound)]);
    return tensors.length - 1;
  };
  const constant = (shape, value) => {
    tensors.push([null, shape, new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(value)]);
    return tensors.length - 1;
  };
  const named = (name, index) => { tensors[index][0] = name; };
  const attention = (p) => {
    named(`${p}in_proj_weight`, uniform([3 * d_model, d_model], d_model));
    named(`${p}in_proj_bias`, constant([3 * d_model], 0));
    named(`${p}out_proj.weight`, uniform([d_model, d_model], d_model));
    named(`${p}out_proj.bias`, constant([d_model], 0));
    named(`${p}additive.q_weight`, uniform([nhead, da, dh], dh));
    named(`${p}additive.k_weight`, uniform([nhead, da, dh], dh));
    named(`${p}additive.v_weight`, uniform([nhead, da], da));
  };
  const norm = (p) => { named(`${p}weight`, constant([d_model], 1)); named(`${p}bias`, constant([d_model], 0)); };
  const feedForward = (p) => {
    named(`${p}linear1.weight`, uniform([ff, d_model], d_model));
    named(`${p}linear1.bias`, constant([ff], 0));
    named(`${p}linear2.weight`, uniform([d_model, ff], ff));
    named(`${p}linear2.bias`, constant([d_model], 0));
  };
  for (let i = 0; i < layers; i++) {
    attention(`encoder.layers.${i}.self_attn.`); feedForward(`encoder.layers.${i}.`);
    norm(`encoder.layers.${i}.norm1.`); norm(`encoder.layers.${i}.norm2.`);
    attention(`decoder.layers.${i}.self_attn.`); attention(`decoder.layers.${i}.multihead_attn.`);
    feedForward(`decoder.layers.${i}.`);
    for (const k of [1, 2, 3]) norm(`decoder.layers.${i}.norm${k}.`);
  }
  norm('encoder.norm.'); norm('decoder.norm.');
  named('src_embedding.weight', uniform([vocab, d_model], 1));
  named('tgt_embedding.weight', uniform([vocab, d_model], 1));
  named('generator.weight', uniform([vocab, d_model], d_model));
  named('generator.bias', constant([vocab], 0));
  const config = {
    model_type: 'transformer', d_model, nhead, dim_feedforward: ff, num_encoder_layers: layers, num_decoder_layers: layers,
    additive_dim: da, vocab_size: vocab, max_len: 64, positional: 'sinusoidal', scale_embedding: false, bos_token: 1, eos_token: 2,
  };
  return { bytes: safetensors(tensors), config };
}

// [name, shape, Float32Array][] -> safetensors bytes (F32).
export function safetensors(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, shape, data] of tensors) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + head.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const [, , data] of tensors) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    at += data.byteLength;
  }
  return out;
}
