// Issue 32's memory goals, measured (sizes, not timings: the machine's load does not change them).
// A decoder checkpoint with random weights is written to a temporary folder (never committed),
// then loaded in a fresh wasm module; the heap's growth is compared with the bound:
//   f32:  SmolLM2-135M's shape (LlamaForCausalLM, 30 x 576, 9/3 heads, SwiGLU 1536, vocab 49152,
//         tied), ~540 MB: growth <= packed weights + the largest tensor + 10 %;
//   int8: Qwen2.5-0.5B's shape (Qwen2ForCausalLM, 24 x 896, 14/2 heads, SwiGLU 4864, q/k/v biases,
//         vocab 151936, tied), ~2 GB as F32, loaded with weights: 'int8' (quantized as it streams):
//         growth <= int8 weights + the largest f32 tensor + 10 %.
// "packed weights" is the module's live bytes after the load (what the model holds).
//   node bench/load-memory.mjs [--only smollm2|qwen05]
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { init } from '../dist/node.mjs';
import { writeCheckpoint } from '../tests/js/checkpoint-file.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const TOKENIZER = join(HERE, '..', 'tests', 'data', 'hf', 'qwen2');

const SHAPES = {
  smollm2: { arch: 'LlamaForCausalLM', type: 'llama', d: 576, layers: 30, heads: 9, kv: 3, ff: 1536, vocab: 49152, bias: false, theta: 100000, weights: 'f32' },
  qwen05: { arch: 'Qwen2ForCausalLM', type: 'qwen2', d: 896, layers: 24, heads: 14, kv: 2, ff: 4864, vocab: 151936, bias: true, theta: 1000000, weights: 'int8' },
};

function tensors({ d, layers, heads, kv, ff, vocab, bias }) {
  const dh = d / heads;
  const t = [['model.embed_tokens.weight', [vocab, d]]];
  for (let l = 0; l < layers; l++) {
    const p = `model.layers.${l}.`;
    t.push([`${p}input_layernorm.weight`, [d]], [`${p}post_attention_layernorm.weight`, [d]]);
    for (const [m, rows] of [['q_proj', heads * dh], ['k_proj', kv * dh], ['v_proj', kv * dh]]) {
      t.push([`${p}self_attn.${m}.weight`, [rows, d]]);
      if (bias) t.push([`${p}self_attn.${m}.bias`, [rows]]);
    }
    t.push([`${p}self_attn.o_proj.weight`, [d, heads * dh]]);
    t.push([`${p}mlp.gate_proj.weight`, [ff, d]], [`${p}mlp.up_proj.weight`, [ff, d]], [`${p}mlp.down_proj.weight`, [d, ff]]);
  }
  t.push(['model.norm.weight', [d]]);
  return t;
}

async function measure(name) {
  const s = SHAPES[name];
  const dir = mkdtempSync(join(tmpdir(), `simdformer-load-${name}-`));
  try {
    const list = tensors(s);
    const fileBytes = writeCheckpoint(join(dir, 'model.safetensors'), list);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({
      architectures: [s.arch], model_type: s.type, hidden_size: s.d, num_hidden_layers: s.layers, num_attention_heads: s.heads,
      num_key_value_heads: s.kv, intermediate_size: s.ff, vocab_size: s.vocab, max_position_embeddings: 2048, rope_theta: s.theta,
      rms_norm_eps: 1e-6, hidden_act: 'silu', tie_word_embeddings: true, torch_dtype: 'float32', bos_token_id: 0, eos_token_id: 0,
    }));
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(TOKENIZER, f), join(dir, f));
    const sf = await init({ backend: 'wasm' });  // a fresh module: its heap has seen nothing else
    const heapBefore = sf.heapBytes, liveBefore = sf.liveBytes;
    const t0 = performance.now();
    const model = await sf.loadPretrained(dir, { weights: s.weights });
    const loadMs = performance.now() - t0;
    const growth = sf.heapBytes - heapBefore, packed = sf.liveBytes - liveBefore;
    const largest = Math.max(...list.map(([, shape]) => shape.reduce((a, b) => a * b, 1) * 4));
    const bound = Math.floor((packed + largest) * 1.1);
    const mb = (x) => `${(x / 1e6).toFixed(1)} MB`;
    const out = await model.generateText([1, 2, 3], { maxNewTokens: 2, stop: [] });
    console.log(`${name} (${s.arch}, ${s.layers} x ${s.d}, vocab ${s.vocab}), weights ${s.weights}: checkpoint ${mb(fileBytes)} F32, `
      + `model holds ${mb(packed)}, largest f32 tensor ${mb(largest)}, heap ${mb(heapBefore)} -> ${mb(sf.heapBytes)} (growth ${mb(growth)}), `
      + `bound (held + largest) x 1.1 = ${mb(bound)}: ${growth <= bound ? 'within' : 'OVER'}; load ${(loadMs / 1000).toFixed(1)} s; `
      + `generates (${out.ids.length} tokens)`);
    model.dispose();
    return { name, ...s, fileBytes, packed, largest, heapBefore, heapAfter: sf.heapBytes, growth, bound, within: growth <= bound, loadMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : Object.keys(SHAPES);
for (const name of only) await measure(name);
