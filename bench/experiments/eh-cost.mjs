// The cost of compiling the wasm module with -fexceptions (Emscripten's JS-based exception
// handling), measured side by side in one Node process: the same JS wrapper over two builds of
// the Embind module, interleaved rounds, medians.
//   node bench/experiments/eh-cost.mjs <dir with exceptions> <dir without>   (each: simdformer.mjs + .wasm)
// Workloads: a BERT-base encoder layer (d 768, 12 heads, d_ff 3072) on 128 tokens; the same
// on 8 tokens (where per-call overhead shows); greedy decoding with a small seq2seq model (many
// short calls between JS and wasm); a 64 x 64 Linear on one row.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { Simdformer } from '../../dist/node.mjs';

const [withDir, withoutDir] = process.argv.slice(2).map((d) => resolve(d));
if (!withDir || !withoutDir) throw new Error('usage: node bench/experiments/eh-cost.mjs <dir with exceptions> <dir without>');
const DATA = new URL('../../tests/data/', import.meta.url);

async function load(dir) {
  const glue = await import(pathToFileURL(join(dir, 'simdformer.mjs')).href);
  const wasmBinary = readFileSync(join(dir, 'simdformer.wasm'));
  const module = await glue.default({ wasmBinary });
  const sizes = {
    wasm: wasmBinary.length, wasmGzip: gzipSync(wasmBinary, { level: 9 }).length,
    glue: readFileSync(join(dir, 'simdformer.mjs')).length, glueGzip: gzipSync(readFileSync(join(dir, 'simdformer.mjs')), { level: 9 }).length,
  };
  return { sf: new Simdformer(module, { simd: true, readSource: async (s) => s }), sizes };
}

// A safetensors file of F32 tensors {name: [shape, Float32Array]}.
function safetensors(tensors) {
  let offset = 0;
  const header = {};
  for (const [name, [shape, data]] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.length * 4] };
    offset += data.length * 4;
  }
  const text = new TextEncoder().encode(JSON.stringify(header));
  const bytes = new Uint8Array(8 + text.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
  bytes.set(text, 8);
  let at = 8 + text.length;
  for (const [, [, data]] of Object.entries(tensors)) {
    bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    at += data.byteLength;
  }
  return bytes;
}

function random(n, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 0.1);
}

const d = 768, ff = 3072;
const bertLayer = safetensors({
  'self_attn.in_proj_weight': [[3 * d, d], random(3 * d * d, 1)], 'self_attn.in_proj_bias': [[3 * d], random(3 * d, 2)],
  'self_attn.out_proj.weight': [[d, d], random(d * d, 3)], 'self_attn.out_proj.bias': [[d], random(d, 4)],
  'linear1.weight': [[ff, d], random(ff * d, 5)], 'linear1.bias': [[ff], random(ff, 6)],
  'linear2.weight': [[d, ff], random(d * ff, 7)], 'linear2.bias': [[d], random(d, 8)],
  'norm1.weight': [[d], new Float32Array(d).fill(1)], 'norm1.bias': [[d], new Float32Array(d)],
  'norm2.weight': [[d], new Float32Array(d).fill(1)], 'norm2.bias': [[d], new Float32Array(d)],
});
const bertConfig = { model_type: 'encoder_layer', d_model: d, nhead: 12, dim_feedforward: ff, activation: 'gelu' };
const seq2seqBytes = readFileSync(new URL('seq2seq.safetensors', DATA));
const seq2seqConfig = JSON.parse(readFileSync(new URL('seq2seq.json', DATA), 'utf8'));

function workloads(sf) {
  const layer = sf.loadModelSync(bertLayer, bertConfig);
  const x128 = random(128 * d, 9), x8 = random(8 * d, 10);
  const seq2seq = sf.loadModelSync(seq2seqBytes, seq2seqConfig);
  const linear = sf.linear(random(64 * 64, 11), null, 64, 64);
  const row = random(64, 12);
  return {
    'BERT-base layer, 128 tokens': () => layer.encode(x128).output,
    'BERT-base layer, 8 tokens': () => layer.encode(x8).output,
    'seq2seq generate, 15 steps': () => seq2seq.generate([3, 4, 5, 6, 7], { maxLength: 16, eos: 0 }).tokens,
    'Linear 64x64, 1 row': () => linear.forward(row),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const variants = { exceptions: await load(withDir), none: await load(withoutDir) };
const runs = Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, workloads(v.sf)]));
const names = Object.keys(runs.exceptions);
console.log('| workload | -fexceptions ms | without ms | ratio |');
console.log('| --- | --- | --- | --- |');
for (const name of names) {
  const a = runs.exceptions[name], b = runs.none[name];
  const outA = a(), outB = b();
  if (Buffer.compare(Buffer.from(outA.buffer, outA.byteOffset, outA.byteLength), Buffer.from(outB.buffer, outB.byteOffset, outB.byteLength)) !== 0) {
    throw new Error(`${name}: the two builds disagree`);
  }
  // Calls per timed sample so that one sample takes >= 20 ms.
  let reps = 1;
  for (let t0 = performance.now(); performance.now() - t0 < 20; reps++) a();
  const times = { a: [], b: [] };
  for (let round = 0; round < 15; round++) {
    for (const [key, fn] of round % 2 ? [['b', b], ['a', a]] : [['a', a], ['b', b]]) {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) fn();
      times[key].push((performance.now() - t0) / reps);
    }
  }
  const ma = median(times.a), mb = median(times.b);
  console.log(`| ${name} | ${ma.toFixed(4)} | ${mb.toFixed(4)} | ${(ma / mb).toFixed(3)} |`);
}
const s = (k) => variants[k].sizes;
console.log(`\n| build | .wasm bytes | .wasm gzip -9 | glue bytes | glue gzip -9 |\n| --- | --- | --- | --- | --- |`);
for (const k of ['exceptions', 'none']) console.log(`| ${k} | ${s(k).wasm} | ${s(k).wasmGzip} | ${s(k).glue} | ${s(k).glueGzip} |`);
