// One BERT-base layer (768, 12 heads, FFN 3072; 128 tokens, the last quarter padding) with int8
// weights, side by side in one Node process, one thread each, interleaved rounds:
//   simdformer int8 (loadModel(..., { weights: 'int8' }): per-output-channel int8 weights,
//   dynamically quantized activation rows), simdformer f32, onnxruntime-web (wasm) running the
//   dynamically quantized ONNX graph (DynamicQuantizeLinear + MatMulInteger, per-channel int8
//   weights of the same layer) and its f32 graph. Files: bench/models/bert-layer-int8/ (export_hf.py).
// Before timing: every engine against the PyTorch reference (check.safetensors: y = BertLayer in
// f32, y_int8_emulated = the ONNX int8 graph's arithmetic in PyTorch); the attention maps of
// simdformer int8 and f32 are compared (max abs difference, real tokens). Also the load peak.
//   node bench/int8-layer.mjs          (INT8_BUDGET_MS: timing budget per engine)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ort from 'onnxruntime-web';

import { init } from '../dist/node.mjs';
import { readSafetensors } from './safetensors.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, 'models', 'bert-layer-int8');
const CACHE = join(HERE, '.cache');
const BUDGET_MS = Number(process.env.INT8_BUDGET_MS ?? 5000);
const PREFIX = 'encoder.layer.0.';


// safetensors bytes from {name: {data: Float32Array, shape}}.
function writeSafetensors(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const t of Object.values(tensors)) { out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at); at += t.data.byteLength; }
  return out;
}

// The HF BertLayer tensors renamed to simdformer's nn.TransformerEncoderLayer dialect (post-norm,
// exact GELU: the same function), q|k|v concatenated into in_proj as PyTorch stores it.
function torchLayer(hf) {
  const t = (name) => hf[PREFIX + name];
  const cat = (names) => {
    const parts = names.map(t);
    const data = new Float32Array(parts.reduce((n, p) => n + p.data.length, 0));
    let at = 0;
    for (const p of parts) { data.set(p.data, at); at += p.data.length; }
    return { data, shape: [parts.reduce((n, p) => n + p.shape[0], 0), ...parts[0].shape.slice(1)] };
  };
  const qkv = ['query', 'key', 'value'].map((m) => `attention.self.${m}`);
  return writeSafetensors({
    'self_attn.in_proj_weight': cat(qkv.map((m) => `${m}.weight`)), 'self_attn.in_proj_bias': cat(qkv.map((m) => `${m}.bias`)),
    'self_attn.out_proj.weight': t('attention.output.dense.weight'), 'self_attn.out_proj.bias': t('attention.output.dense.bias'),
    'linear1.weight': t('intermediate.dense.weight'), 'linear1.bias': t('intermediate.dense.bias'),
    'linear2.weight': t('output.dense.weight'), 'linear2.bias': t('output.dense.bias'),
    'norm1.weight': t('attention.output.LayerNorm.weight'), 'norm1.bias': t('attention.output.LayerNorm.bias'),
    'norm2.weight': t('output.LayerNorm.weight'), 'norm2.bias': t('output.LayerNorm.bias'),
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

function compare(a, b, rows, d) {
  let maxDiff = 0, minCos = 1;
  for (let r = 0; r < rows; r++) {
    let ab = 0, aa = 0, bb = 0;
    for (let i = r * d; i < (r + 1) * d; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i])); }
    minCos = Math.min(minCos, ab / Math.sqrt(aa * bb));
  }
  return { maxDiff, minCos };
}

async function main() {
  const hfConfig = JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8'));
  const d = hfConfig.hidden_size;
  const config = { model_type: 'encoder_layer', d_model: d, nhead: hfConfig.num_attention_heads, dim_feedforward: hfConfig.intermediate_size,
                   activation: 'gelu', layer_norm_eps: hfConfig.layer_norm_eps };
  const hf = readSafetensors(join(DIR, 'layer.safetensors')).tensors;
  const bytes = torchLayer(hf);
  const check = readSafetensors(join(DIR, 'check.safetensors')).tensors;
  const x = check.x.data;
  const n = check.x.shape[1];
  const real = Array.from(check.attention_mask.data, (v) => v !== 0n).filter(Boolean).length;
  const paddingMask = Array.from(check.attention_mask.data, (v) => v === 0n);  // true = padding (PyTorch convention)

  // simdformer: each model in a fresh module, so the load peak is its own.
  const models = {};
  const memory = {};
  for (const weights of ['int8', 'f32']) {
    const sf = await init({ simd: true });
    sf.resetPeakLiveBytes();
    const live0 = sf.liveBytes;
    const model = sf.loadModelSync(bytes, config, { weights });
    const largest = Math.max(...Object.values(hf).map((t) => t.data.byteLength));
    memory[weights] = { packed: sf.liveBytes - live0, peak: sf.peakLiveBytes - live0, largest, fileBytes: bytes.length };
    if (model.weights !== weights) throw new Error(`asked for ${weights} weights, got ${model.weights}`);
    models[weights] = model;
  }
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const sessions = {};
  for (const [k, file] of [['int8', 'model_int8.onnx'], ['f32', 'model_f32.onnx']]) {
    sessions[k] = await ort.InferenceSession.create(readFileSync(join(DIR, file)), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  }
  const feeds = { x: new ort.Tensor('float32', x, check.x.shape), mask: new ort.Tensor('float32', check.mask.data, check.mask.shape) };
  const runners = {
    'simdformer int8': () => models.int8.encode(x, { paddingMask }).output,
    'simdformer f32': () => models.f32.encode(x, { paddingMask }).output,
    'onnxruntime-web int8': async () => (await sessions.int8.run(feeds)).y.data,
    'onnxruntime-web f32': async () => (await sessions.f32.run(feeds)).y.data,
  };

  // Agreement before timing (real tokens only: padded rows differ by convention).
  const agreement = {};
  for (const [name, run] of Object.entries(runners)) {
    const y = await run();
    agreement[name] = { vsF32: compare(y, check.y.data, real, d), vsInt8Emulated: compare(y, check.y_int8_emulated.data, real, d) };
  }
  if (!(agreement['simdformer f32'].vsF32.maxDiff < 1e-3)) throw new Error(`simdformer f32 differs from BertLayer: ${agreement['simdformer f32'].vsF32.maxDiff}`);
  if (!(agreement['onnxruntime-web f32'].vsF32.maxDiff < 1e-3)) throw new Error('onnxruntime-web f32 differs from BertLayer');
  if (!(agreement['onnxruntime-web int8'].vsInt8Emulated.maxDiff < 2e-2)) throw new Error('onnxruntime-web int8 differs from its PyTorch emulation');
  if (!(agreement['simdformer int8'].vsF32.minCos >= 0.999)) throw new Error(`simdformer int8: min row cosine ${agreement['simdformer int8'].vsF32.minCos}`);
  const maps = (m) => m.encode(x, { paddingMask, returnAttention: true }).attentions[0];  // [head] -> {data [n*n]}
  const [a8, a32] = [maps(models.int8), maps(models.f32)];
  let attentionDiff = 0;
  a8.forEach((h, hi) => { for (let q = 0; q < real; q++) for (let k = 0; k < real; k++) attentionDiff = Math.max(attentionDiff, Math.abs(h.data[q * n + k] - a32[hi].data[q * n + k])); });

  // Interleaved rounds, rotating order.
  const names = Object.keys(runners);
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) for (const k of names) await runners[k]();  // warm-up: V8 tiers every function up
  const first = {};
  for (const k of names) { const t = performance.now(); await runners[k](); first[k] = performance.now() - t; }
  const rounds = Math.max(7, Math.min(40, Math.ceil(BUDGET_MS / Math.max(...Object.values(first)))));
  const times = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const k of order) { const t = performance.now(); await runners[k](); times[k].push(performance.now() - t); }
  }
  const roundRatio = (a, b) => median(times[a].map((t, i) => t / times[b][i]));
  const result = {
    date: new Date().toISOString(), loadavg: loadavg()[0], rounds, memory, agreement, attentionMaxAbsDiff: attentionDiff,
    times: Object.fromEntries(names.map((k) => [k, { median: median(times[k]), p10: quantile(times[k], 0.1), p90: quantile(times[k], 0.9) }])),
    ratios: { int8VsF32: roundRatio('simdformer int8', 'simdformer f32'), int8VsOrtInt8: roundRatio('simdformer int8', 'onnxruntime-web int8'),
              f32VsOrtF32: roundRatio('simdformer f32', 'onnxruntime-web f32'), ortInt8VsOrtF32: roundRatio('onnxruntime-web int8', 'onnxruntime-web f32') },
  };
  for (const m of Object.values(models)) m.dispose();
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, 'int8-layer.json'), JSON.stringify(result, null, 1));

  const f = (v, k = 2) => v.toFixed(k);
  const mib = (v) => (v / 2 ** 20).toFixed(1);
  console.log(`BERT-base layer, ${n} tokens (${real} real), one thread each, ${rounds} interleaved rounds, load average ${f(result.loadavg, 1)}`);
  for (const k of names) {
    const t = result.times[k], a = agreement[k];
    console.log(`  ${k.padEnd(22)} ${f(t.median).padStart(8)} ms (${f(t.p10)}–${f(t.p90)}) | vs f32 BertLayer: max |diff| ${a.vsF32.maxDiff.toExponential(2)}, min row cosine ${a.vsF32.minCos.toFixed(6)}`);
  }
  const r = result.ratios;
  console.log(`  ratios (median over rounds): simdformer int8 / f32 ${f(r.int8VsF32)}; int8 / onnxruntime-web int8 ${f(r.int8VsOrtInt8)}; ` +
    `f32 / onnxruntime-web f32 ${f(r.f32VsOrtF32)}; onnxruntime-web int8 / its f32 ${f(r.ortInt8VsOrtF32)}`);
  console.log(`  attention maps, simdformer int8 vs f32: max |diff| ${attentionDiff.toExponential(2)} (12 heads, real tokens)`);
  for (const [k, m] of Object.entries(memory)) {
    console.log(`  load ${k}: packed ${mib(m.packed)} MiB, peak ${mib(m.peak)} MiB, bound packed + largest tensor (${mib(m.largest)} MiB) + 10% = ${mib((m.packed + m.largest) * 1.1)} MiB`);
  }
  console.log(`  int8 / f32 packed bytes: ${f(memory.int8.packed / memory.f32.packed, 3)}`);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
