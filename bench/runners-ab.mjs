// A/B of two builds of the package in one Node process (wasm SIMD128, one thread): this tree's
// dist/ against an earlier one (--before DIR), on the three workloads a change of the model code
// must not slow down: one BERT-base layer (nn.TransformerEncoderLayer 768 / 12 heads / 3072,
// 128 tokens), a 6-layer MiniLM-shaped encoder (384 / 12 / 1536, 128 tokens), and one GPT-2-small
// decoding step (12 x 768, vocabulary 50257, a 16-token prompt then 32 greedy steps), and short
// texts through the bundled fortune BERT (where per-call costs show). Random
// weights written here, the same bytes for both builds; the two builds must agree exactly.
// Rounds alternate the builds (A B B A ...); medians and the B/A ratio per workload.
//
//   node bench/runners-ab.mjs --before /path/to/old/dist [--rounds N]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { median } from './stats.mjs';

const args = process.argv.slice(2);
const arg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const before = arg('--before');
if (!before) throw new Error('usage: node bench/runners-ab.mjs --before /path/to/old/dist [--rounds N]');
const ROUNDS = Number(arg('--rounds') ?? 9);
const ROOT = resolve(new URL('..', import.meta.url).pathname);

function lcg(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; };
}

// A safetensors file of F32 tensors {name: [shape, scale]} filled from one seeded stream.
function safetensors(tensors, seed) {
  const next = lcg(seed);
  const header = {};
  let offset = 0;
  for (const [name, [shape]] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  const data = new Float32Array(out.buffer, 8 + text.length, offset / 4);
  let at = 0;
  for (const [shape, scale] of Object.values(tensors)) {
    const n = shape.reduce((a, b) => a * b, 1);
    for (let i = 0; i < n; i++) data[at + i] = scale === 'one' ? 1 : next() * scale;
    at += n;
  }
  return out;
}

function encoderLayerTensors(prefix, d, ff) {
  const w = 1 / Math.sqrt(d);
  return {
    [`${prefix}self_attn.in_proj_weight`]: [[3 * d, d], w], [`${prefix}self_attn.in_proj_bias`]: [[3 * d], 0.02],
    [`${prefix}self_attn.out_proj.weight`]: [[d, d], w], [`${prefix}self_attn.out_proj.bias`]: [[d], 0.02],
    [`${prefix}linear1.weight`]: [[ff, d], w], [`${prefix}linear1.bias`]: [[ff], 0.02],
    [`${prefix}linear2.weight`]: [[d, ff], 1 / Math.sqrt(ff)], [`${prefix}linear2.bias`]: [[d], 0.02],
    [`${prefix}norm1.weight`]: [[d], 'one'], [`${prefix}norm1.bias`]: [[d], 0.02],
    [`${prefix}norm2.weight`]: [[d], 'one'], [`${prefix}norm2.bias`]: [[d], 0.02],
  };
}

function torchWorkload(name, d, h, ff, layers, n) {
  const single = layers === 1;
  let tensors = {};
  for (let i = 0; i < layers; i++) Object.assign(tensors, encoderLayerTensors(single ? '' : `layers.${i}.`, d, ff));
  const config = { model_type: single ? 'encoder_layer' : 'encoder', d_model: d, nhead: h, dim_feedforward: ff,
    activation: 'gelu', ...(single ? {} : { num_layers: layers }) };
  const x = new Float32Array(n * d).map(lcg(7));
  return {
    name, bytes: safetensors(tensors, 11), config,
    load: (sf, w) => sf.loadModelSync(w.bytes, w.config),
    run: (model) => model.encode(x).output,
  };
}

function gpt2Workload() {
  const d = 768, layers = 12, vocab = 50257, positions = 1024, w = 0.02;
  const tensors = { 'transformer.wte.weight': [[vocab, d], w], 'transformer.wpe.weight': [[positions, d], w] };
  for (let i = 0; i < layers; i++) {
    const p = `transformer.h.${i}.`;
    Object.assign(tensors, {
      [`${p}ln_1.weight`]: [[d], 'one'], [`${p}ln_1.bias`]: [[d], w],
      [`${p}attn.c_attn.weight`]: [[d, 3 * d], w], [`${p}attn.c_attn.bias`]: [[3 * d], w],
      [`${p}attn.c_proj.weight`]: [[d, d], w], [`${p}attn.c_proj.bias`]: [[d], w],
      [`${p}ln_2.weight`]: [[d], 'one'], [`${p}ln_2.bias`]: [[d], w],
      [`${p}mlp.c_fc.weight`]: [[d, 4 * d], w], [`${p}mlp.c_fc.bias`]: [[4 * d], w],
      [`${p}mlp.c_proj.weight`]: [[4 * d, d], w], [`${p}mlp.c_proj.bias`]: [[d], w],
    });
  }
  Object.assign(tensors, { 'transformer.ln_f.weight': [[d], 'one'], 'transformer.ln_f.bias': [[d], w] });
  const config = { architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', n_embd: d, n_layer: layers, n_head: 12,
    n_positions: positions, vocab_size: vocab, bos_token_id: 1056, eos_token_id: 1056 };
  const tokenizer = readFileSync(join(ROOT, 'tests/data/hf/gpt2/tokenizer.json'), 'utf8');
  const prompt = Int32Array.from({ length: 16 }, (_, i) => 3 + ((i * 37) % 1000));
  const steps = 32;
  return {
    name: `GPT-2-small step (ms per token, ${steps} steps after a 16-token prompt)`, perUnit: steps,
    bytes: safetensors(tensors, 13), config, tokenizer,
    load: (sf, wl) => sf.loadPretrained({ config: wl.config, weights: wl.bytes, tokenizer: wl.tokenizer }),
    // Stop tokens none: every run decodes all the steps.
    run: async (model) => (await model.generateText(prompt, { maxNewTokens: steps, stop: [] })).tokens,
  };
}

// A short text through the bundled fortune BERT (4 x 128): per-call costs (tokenizer, argument
// checks at the boundary, workspace sizing) weigh as much as the arithmetic here.
function shortTextWorkload() {
  const texts = ['A tall dark stranger.', 'You will be happy.'];
  return {
    name: 'short texts -> embeddings (bundled fortune-bert, 2 texts of 5-6 tokens, ms per call)', perUnit: 20,
    load: (sf) => sf.loadPretrained(join(ROOT, 'web/models/fortune-bert')),
    run: async (model) => {
      let last;
      for (let i = 0; i < 20; i++) last = model.embed(texts);
      return last[0];
    },
  };
}

const sameOutputs = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

async function main() {
  const engines = [];
  for (const [label, dir] of [['before', resolve(before)], ['this tree', join(ROOT, 'dist')]]) {
    const { init } = await import(pathToFileURL(join(dir, 'node.mjs')).href);
    engines.push({ label, sf: await init() });
  }
  const workloads = [torchWorkload('BERT-base layer (nn.TransformerEncoderLayer, 128 tokens)', 768, 12, 3072, 1, 128),
    torchWorkload('6-layer MiniLM-shaped encoder (128 tokens)', 384, 12, 1536, 6, 128), gpt2Workload(), shortTextWorkload()];
  console.log(`# ${ROUNDS} rounds per workload, builds alternated (A B B A ...), medians; ratio = this tree / before`);
  for (const w of workloads) {
    const models = [];
    for (const e of engines) models.push(await w.load(e.sf, w));
    const first = await Promise.all(models.map((m) => w.run(m)));
    if (!sameOutputs(Array.from(first[0]), Array.from(first[1]))) throw new Error(`${w.name}: the two builds disagree`);
    const times = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      for (const i of r % 2 ? [1, 0] : [0, 1]) {
        const t0 = performance.now();
        await w.run(models[i]);
        times[i].push((performance.now() - t0) / (w.perUnit ?? 1));
      }
    }
    const [a, b] = times.map(median);
    console.log(`${w.name}: before ${a.toFixed(2)} ms, this tree ${b.toFixed(2)} ms, ratio ${(b / a).toFixed(3)} (outputs identical)`);
    for (const m of models) m.dispose();
  }
}

await main();
