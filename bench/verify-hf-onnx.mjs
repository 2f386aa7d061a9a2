// Runs every ONNX graph that bench/export_hf.py wrote into bench/models/ in onnxruntime-web
// (wasm, one thread) and compares it with the PyTorch reference outputs in each check.safetensors.
// onnx 1.12 (Debian) has no reference evaluator, so this is how the exported graphs are verified.
//   node bench/verify-hf-onnx.mjs        (after python3 bench/export_hf.py [--quick])
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ort from 'onnxruntime-web';
import { readSafetensors } from './safetensors.mjs';

const MODELS = join(dirname(fileURLToPath(import.meta.url)), 'models');
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';


const tensor = (t) => new ort.Tensor(t.ortType, t.data, t.shape);
const maxAbs = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

let passed = 0, failed = 0;
function expect(label, diff, tol) {
  const ok = diff <= tol;
  ok ? passed++ : failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: max |onnx - reference| = ${diff.toExponential(2)} (tolerance ${tol})`);
}

const manifest = JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8'));
for (const m of manifest.models) {
  const dir = join(MODELS, m.name);
  const check = readSafetensors(join(dir, 'check.safetensors')).tensors;
  if (m.kind === 'bert') {
    const s = await ort.InferenceSession.create(readFileSync(join(dir, m.onnx)));
    const r = await s.run({ input_ids: tensor(check.input_ids), attention_mask: tensor(check.attention_mask),
                            token_type_ids: tensor(check.token_type_ids) });
    expect(`${m.name} last_hidden_state`, maxAbs(r.last_hidden_state.data, check.last_hidden_state.data), 1e-4);
  } else if (m.kind === 'gpt2') {
    const s = await ort.InferenceSession.create(readFileSync(join(dir, m.onnx)));
    const dh = m.d_model / m.heads;
    const n = check.prompt_ids.shape[1];
    const feeds = (ids, past, total) => {
      const f = { input_ids: new ort.Tensor('int64', ids, [1, ids.length]),
                  attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
                  position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: ids.length },
                                                                          (_, i) => BigInt(total - ids.length + i)), [1, ids.length]) };
      for (let i = 0; i < m.layers; i++) for (const kv of ['key', 'value'])
        f[`past_key_values.${i}.${kv}`] = past ? past[`present.${i}.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [1, m.heads, 0, dh]);
      return f;
    };
    const first = await s.run(feeds(check.prompt_ids.data, null, n));
    expect(`${m.name} prompt logits (empty past)`, maxAbs(first.logits.data, check.prompt_logits.data), 1e-4);
    const step = await s.run(feeds(check.step_id.data, first, n + 1));
    expect(`${m.name} cached step logits`, maxAbs(step.logits.data, check.step_logits.data), 1e-4);
  } else if (m.kind === 'bert_layer') {
    const feeds = { x: tensor(check.x), mask: tensor(check.mask) };
    const f32 = await (await ort.InferenceSession.create(readFileSync(join(dir, 'model_f32.onnx')))).run(feeds);
    expect(`${m.name} f32 graph vs BertLayer`, maxAbs(f32.y.data, check.y.data), 1e-4);
    const i8 = await (await ort.InferenceSession.create(readFileSync(join(dir, 'model_int8.onnx')))).run(feeds);
    // Rounding x / scale at a .5 boundary may differ by one step between ORT and PyTorch.
    expect(`${m.name} int8 graph vs its PyTorch emulation`, maxAbs(i8.y.data, check.y_int8_emulated.data), 2e-2);
    console.log(`     int8 vs f32 reference: max |diff| = ${maxAbs(i8.y.data, check.y.data).toFixed(4)}, ` +
                `min row cosine (PyTorch emulation) ${m.int8_vs_f32_min_row_cosine}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
