// Token-by-token decoding benchmarks, one Node process, single thread everywhere:
//
// 1. GPT-2-small (12 x 768, vocab 50257; bench/models/gpt2-small from bench/export_hf.py):
//    simdformer (wasm SIMD128, model.generateText, the time between consecutive onToken calls)
//    against onnxruntime-web (wasm, numThreads 1) running onnx/decoder_with_past.onnx the way a
//    JavaScript decoding loop does (present -> past, argmax of the logits in JS, each run
//    awaited). Per-step time at contexts 16, 128 and 512 (the step whose query sees that many
//    keys and the 7 after it), interleaved rounds, medians.
// 2. The nn.Transformer encoder-decoder Model.generate (random weights written here), ms per
//    generated token at several target lengths; with --before <dist> also the package built
//    from an earlier commit, interleaved with this one.
//
//   node bench/decode.mjs [--quick] [--before /path/to/old/dist] [--json out.json]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as ort from 'onnxruntime-web';

import { init } from '../dist/node.mjs';
import { readSafetensors } from './safetensors.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const MODELS = join(HERE, 'models');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const arg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (quick ? 2 : 5));
const STEPS = 8;  // timed steps per round and context

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const argmax = (x) => { let best = 0; for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i; return best; };

// A fixed pseudo-random stream (LCG) for token ids and weights.
function lcg(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}


// ---- 1. GPT-2-small: simdformer against onnxruntime-web ----------------------------------------

async function gpt2Engines(sf) {
  const dir = join(MODELS, 'gpt2-small');
  const manifest = JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8')).models.find((m) => m.name === 'gpt2-small');
  const model = await sf.loadPretrained(dir);
  const session = await ort.InferenceSession.create(readFileSync(join(dir, manifest.onnx)), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const { layers, heads, d_model: d } = manifest;
  const dh = d / heads;
  const feeds = (ids, past, total) => {
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
  // Both engines against the PyTorch reference before anything is timed.
  const check = readSafetensors(join(dir, 'check.safetensors')).tensors;
  const promptIds = Array.from(check.prompt_ids.data, Number);
  const first = await session.run(feeds(promptIds, null, promptIds.length));
  const vocab = manifest.vocab_size;
  let ortDiff = 0;
  for (let i = 0; i < first.logits.data.length; i++) ortDiff = Math.max(ortDiff, Math.abs(first.logits.data[i] - check.prompt_logits.data[i]));
  const lastRow = check.prompt_logits.data.subarray(check.prompt_logits.data.length - vocab);
  const sfFirst = await model.generateText(promptIds, { maxNewTokens: 1, stop: [] });
  if (!(ortDiff < 1e-3)) throw new Error(`onnxruntime-web differs from PyTorch by ${ortDiff}`);
  if (sfFirst.ids[0] !== argmax(lastRow)) throw new Error(`simdformer's first token ${sfFirst.ids[0]} is not PyTorch's ${argmax(lastRow)}`);

  return {
    model, session, vocab,
    // Step times (ms) of STEPS + 1 steps after a prompt of `context` tokens: simdformer's first
    // step consumes the prompt's last token, so step s sees context + s keys; intervals between
    // consecutive onToken calls are the steps 1 .. STEPS.
    simdformer: async (prompt) => {
      const stamps = [];
      await model.generateText(prompt, { maxNewTokens: STEPS + 1, stop: [], onToken: () => { stamps.push(performance.now()); } });
      return stamps.slice(1).map((t, i) => t - stamps[i]);
    },
    // The same for ORT: the prompt but its last token as the first run (untimed), then one token
    // per run with the growing past, each run awaited and its logits' argmax taken in JS.
    ort: async (prompt) => {
      let out = await session.run(feeds(prompt.slice(0, -1), null, prompt.length - 1));
      let token = prompt[prompt.length - 1];
      const times = [];
      for (let s = 0; s <= STEPS; s++) {
        const total = prompt.length + s;
        const t0 = performance.now();
        out = await session.run(feeds([token], out, total));
        token = argmax(out.logits.data);
        if (s > 0) times.push(performance.now() - t0);  // step 0 matches simdformer's untimed first step
      }
      return times;
    },
    checks: { ortVsPytorch: ortDiff, firstToken: sfFirst.ids[0] },
    dispose: async () => { model.dispose(); await session.release(); },
  };
}

async function benchGpt2(sf) {
  const e = await gpt2Engines(sf);
  const contexts = quick ? [16, 128] : [16, 128, 512];
  const rows = [];
  for (const context of contexts) {
    const next = lcg(context);
    const prompt = Array.from({ length: context }, () => Math.floor(next() * (e.vocab - 1)));
    await e.simdformer(prompt);  // warm-up (JIT tier-up, workspace, ORT's arena)
    await e.ort(prompt);
    const times = { simdformer: [], ort: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of r % 2 ? ['ort', 'simdformer'] : ['simdformer', 'ort']) times[name].push(...await e[name](prompt));
    }
    const row = { context, steps: times.simdformer.length };
    for (const name of ['simdformer', 'ort']) {
      row[name] = { ms: median(times[name]), p10: quantile(times[name], 0.1), p90: quantile(times[name], 0.9), tokensPerSecond: 1000 / median(times[name]) };
    }
    row.speedup = row.ort.ms / row.simdformer.ms;
    rows.push(row);
    console.log(`context ${String(context).padStart(3)}: simdformer ${row.simdformer.ms.toFixed(2)} ms/token (${row.simdformer.tokensPerSecond.toFixed(1)} tok/s), `
      + `onnxruntime-web ${row.ort.ms.toFixed(2)} ms/token (${row.ort.tokensPerSecond.toFixed(1)} tok/s): ${row.speedup.toFixed(2)}x`);
  }
  await e.dispose();
  return { checks: e.checks, rows };
}

// ---- 2. the encoder-decoder generate --------------------------------------------------------

// An nn.Transformer-dialect checkpoint with random weights (the tensor names of arch/torch.cpp).
function randomTransformer({ d, heads, ff, layers, vocab, maxLen }) {
  const next = lcg(7);
  const tensors = [];
  const add = (name, shape, kind = 'weight') => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const scale = kind === 'weight' ? 1 / Math.sqrt(shape.at(-1)) : 0.02;
    if (kind === 'ones') data.fill(1);
    else if (kind !== 'zeros') for (let i = 0; i < n; i++) data[i] = (next() * 2 - 1) * scale;
    tensors.push({ name, shape, data });
  };
  const attention = (p) => {
    add(`${p}in_proj_weight`, [3 * d, d]); add(`${p}in_proj_bias`, [3 * d], 'bias');
    add(`${p}out_proj.weight`, [d, d]); add(`${p}out_proj.bias`, [d], 'bias');
  };
  const norm = (p) => { add(`${p}weight`, [d], 'ones'); add(`${p}bias`, [d], 'zeros'); };
  const feedForward = (p) => {
    add(`${p}linear1.weight`, [ff, d]); add(`${p}linear1.bias`, [ff], 'bias');
    add(`${p}linear2.weight`, [d, ff]); add(`${p}linear2.bias`, [d], 'bias');
  };
  for (let i = 0; i < layers; i++) {
    const p = `encoder.layers.${i}.`;
    attention(`${p}self_attn.`); feedForward(p); norm(`${p}norm1.`); norm(`${p}norm2.`);
  }
  for (let i = 0; i < layers; i++) {
    const p = `decoder.layers.${i}.`;
    attention(`${p}self_attn.`); attention(`${p}multihead_attn.`); feedForward(p);
    norm(`${p}norm1.`); norm(`${p}norm2.`); norm(`${p}norm3.`);
  }
  norm('encoder.norm.'); norm('decoder.norm.');
  add('src_embedding.weight', [vocab, d]); add('tgt_embedding.weight', [vocab, d]);
  add('generator.weight', [vocab, d]); add('generator.bias', [vocab], 'bias');
  // safetensors: header, then the data in order.
  let offset = 0;
  const header = {};
  for (const t of tensors) { header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] }; offset += t.data.byteLength; }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const t of tensors) { bytes.set(new Uint8Array(t.data.buffer), at); at += t.data.byteLength; }
  const config = { model_type: 'transformer', d_model: d, nhead: heads, dim_feedforward: ff, num_encoder_layers: layers,
    num_decoder_layers: layers, vocab_size: vocab, max_len: maxLen, positional: 'sinusoidal', scale_embedding: true, bos_token: 1 };
  return { bytes, config };
}

async function benchEncoderDecoder(sf, before) {
  const shape = { d: 256, heads: 8, ff: 1024, layers: 4, vocab: 4000, maxLen: 512 };
  const { bytes, config } = randomTransformer(shape);
  const engines = { after: sf.loadModelSync(bytes, config) };
  if (before) engines.before = before.loadModelSync(bytes, config);
  const next = lcg(3);
  const src = Array.from({ length: 128 }, () => 3 + Math.floor(next() * (shape.vocab - 3)));
  const lengths = quick ? [32, 128] : [32, 128, 256];
  const rows = [];
  for (const maxLength of lengths) {
    const tokens = {};
    for (const [name, m] of Object.entries(engines)) tokens[name] = Array.from(m.generate(src, { maxLength }).tokens);  // warm-up
    if (before && tokens.before.join() !== tokens.after.join()) console.log(`  note: before/after tokens differ at maxLength ${maxLength}`);
    const times = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of r % 2 ? Object.keys(engines).reverse() : Object.keys(engines)) {
        const t0 = performance.now();
        const out = engines[name].generate(src, { maxLength });
        times[name].push((performance.now() - t0) / (out.tokens.length - 1));
      }
    }
    const row = { srcLength: src.length, maxLength, generated: tokens.after.length - 1 };
    for (const name of Object.keys(engines)) row[name] = { msPerToken: median(times[name]), p10: quantile(times[name], 0.1), p90: quantile(times[name], 0.9) };
    if (before) row.speedup = row.before.msPerToken / row.after.msPerToken;
    rows.push(row);
    console.log(`encoder-decoder d=${shape.d}, ${shape.layers}+${shape.layers} layers, source 128, ${row.generated} tokens: `
      + Object.keys(engines).map((k) => `${k} ${row[k].msPerToken.toFixed(3)} ms/token`).join(', ')
      + (before ? ` (${row.speedup.toFixed(2)}x)` : ''));
  }
  for (const m of Object.values(engines)) m.dispose();
  return { shape, rows };
}

async function main() {
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const sf = await init({ simd: true });
  const beforeDir = arg('--before');
  const before = beforeDir ? await (await import(pathToFileURL(join(resolve(beforeDir), 'node.mjs')).href)).init({ simd: true }) : null;
  console.log(`machine: ${process.arch}, ${(await import('node:os')).cpus()[0].model}, Node ${process.version}; simdformer ${sf.arch}; `
    + `onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, 1 thread); ${ROUNDS} rounds x ${STEPS} steps per context`);
  const result = { rounds: ROUNDS, steps: STEPS };
  if (!args.includes('--encdec-only')) result.gpt2 = await benchGpt2(sf);
  result.encoderDecoder = await benchEncoderDecoder(sf, before);
  mkdirSync(join(HERE, '.cache'), { recursive: true });
  const out = arg('--json') ?? join(HERE, '.cache', 'decode.json');
  writeFileSync(out, JSON.stringify(result, null, 1));
  console.log(`results: ${out}`);
}

await main();
