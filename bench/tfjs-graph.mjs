// The benchmark workloads built from TF.js ops (tfjs-core on the wasm backend) with the same
// PyTorch-named weights, so TF.js runs exactly the computation simdformer and onnxruntime run.
export function makeGraphs(tf) {
  const linear = (w, b) => {
    const wt = tf.keep(tf.transpose(w));  // [in, out] once, at load
    return (x) => tf.add(tf.matMul(x, wt), b);
  };
  const layerNorm = (g, b, eps = 1e-5) => (x) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, eps))), g), b);
  };
  const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));
  const relu = (x) => tf.relu(x);

  // nn.MultiheadAttention on [s, d] rows; mask: additive [sq, sk] tensor or null.
  function attention(t, p, d, h) {
    const w = t(`${p}in_proj_weight`), b = t(`${p}in_proj_bias`);
    const [wq, wk, wv] = tf.split(w, 3, 0).map((x) => tf.keep(x));
    const [bq, bk, bv] = tf.split(b, 3, 0).map((x) => tf.keep(x));
    const q = linear(wq, bq), k = linear(wk, bk), v = linear(wv, bv);
    const out = linear(t(`${p}out_proj.weight`), t(`${p}out_proj.bias`));
    const dh = d / h, scale = 1 / Math.sqrt(dh);
    const heads = (x, s) => tf.transpose(tf.reshape(x, [s, h, dh]), [1, 0, 2]);
    return (xq, xkv, mask) => {
      const sq = xq.shape[0], sk = xkv.shape[0];
      let scores = tf.mul(tf.matMul(heads(q(xq), sq), heads(k(xkv), sk), false, true), scale);
      if (mask) scores = tf.add(scores, mask);
      const ctx = tf.matMul(tf.softmax(scores), heads(v(xkv), sk));
      return out(tf.reshape(tf.transpose(ctx, [1, 0, 2]), [sq, d]));
    };
  }

  function encoderLayer(t, p, cfg) {
    const sa = attention(t, `${p}self_attn.`, cfg.d_model, cfg.nhead);
    const l1 = linear(t(`${p}linear1.weight`), t(`${p}linear1.bias`)), l2 = linear(t(`${p}linear2.weight`), t(`${p}linear2.bias`));
    const n1 = layerNorm(t(`${p}norm1.weight`), t(`${p}norm1.bias`)), n2 = layerNorm(t(`${p}norm2.weight`), t(`${p}norm2.bias`));
    const act = cfg.activation === 'gelu' ? gelu : relu;
    return (x, mask) => {
      const y = n1(tf.add(x, sa(x, x, mask)));
      return n2(tf.add(y, l2(act(l1(y)))));
    };
  }

  function decoderLayer(t, p, cfg) {
    const sa = attention(t, `${p}self_attn.`, cfg.d_model, cfg.nhead);
    const ca = attention(t, `${p}multihead_attn.`, cfg.d_model, cfg.nhead);
    const l1 = linear(t(`${p}linear1.weight`), t(`${p}linear1.bias`)), l2 = linear(t(`${p}linear2.weight`), t(`${p}linear2.bias`));
    const n = [1, 2, 3].map((i) => layerNorm(t(`${p}norm${i}.weight`), t(`${p}norm${i}.bias`)));
    return (x, memory, mask) => {
      let y = n[0](tf.add(x, sa(x, x, mask)));
      y = n[1](tf.add(y, ca(y, memory, null)));
      return n[2](tf.add(y, l2(relu(l1(y)))));
    };
  }

  const causal = (n) => tf.keep(tf.tensor2d(Float32Array.from({ length: n * n }, (_, i) => (i % n > Math.floor(i / n) ? -1e9 : 0)), [n, n]));

  // Returns run(inputs) -> tf.Tensor for a workload.
  return function build(workload, t, cfg) {
    if (workload.kind === 'gemm') {
      const f = linear(t('weight'), t('bias'));
      return ({ x }) => f(x);
    }
    if (workload.kind === 'mha') {
      const f = attention(t, '', cfg.embed_dim, cfg.num_heads);
      return ({ x }) => f(x, x, null);
    }
    if (workload.kind === 'encoder_layer') {
      const f = encoderLayer(t, '', cfg);
      const s = workload.seq;
      const mask = workload.mask === 'causal' ? causal(s) : null;
      return ({ x, padding }) => {
        const m = workload.mask === 'padding' ? tf.mul(tf.reshape(padding, [1, s]), -1e9) : mask;
        return f(x, m);
      };
    }
    if (workload.kind === 'encoder') {
      const layers = Array.from({ length: cfg.num_layers }, (_, i) => encoderLayer(t, `layers.${i}.`, cfg));
      return ({ x }) => layers.reduce((y, f) => f(y, null), x);
    }
    const enc = Array.from({ length: cfg.num_encoder_layers }, (_, i) => encoderLayer(t, `encoder.layers.${i}.`, cfg));
    const dec = Array.from({ length: cfg.num_decoder_layers }, (_, i) => decoderLayer(t, `decoder.layers.${i}.`, cfg));
    const encNorm = layerNorm(t('encoder.norm.weight'), t('encoder.norm.bias'));
    const decNorm = layerNorm(t('decoder.norm.weight'), t('decoder.norm.bias'));
    const mask = causal(workload.tgt);
    return ({ src, tgt }) => {
      const memory = encNorm(enc.reduce((y, f) => f(y, null), src));
      return decNorm(dec.reduce((y, f) => f(y, memory, mask), tgt));
    };
  };
}
