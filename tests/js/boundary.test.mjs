// The JS <-> wasm boundary: every size a user or a file gives -- call arguments, options, config
// values, safetensors shapes and offsets -- at 2^31 - 1, 2^31, 2^32, 2^32 + k, 2^53, negative,
// fractional, as a string, a BigInt, null, a boolean, NaN: each is a SimdformerError (never a
// wrapped value, a TypeError or a crash), and the next correct call returns exactly what it
// returned before, bit for bit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, configOf, modelPath } from './helpers.mjs';

const sf = await init();
const BAD_SIZES = [2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 32 + 7, 2 ** 32 + 16, 2 ** 53, 2 ** 53 + 2, -1, -(2 ** 32), 1.5,
  0.5, NaN, Infinity, -Infinity, '4', 4n, null, true, [4], {}];
const SMALL_BAD = BAD_SIZES.filter((v) => !(typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v < 2 ** 31));
const show = (v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? `'${v}'` : Array.isArray(v) ? `[${v}]` : String(v));
const isSfError = (e) => e instanceof SimdformerError && typeof e.code === 'string' && e.message.length > 5;
const bits = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
const sameBits = (a, b) => a.length === b.length && Buffer.compare(bits(a), bits(b)) === 0;

// Runs bad(v) for every value: it must throw a SimdformerError; then good() must equal its first result.
function everyValue(what, values, bad, good) {
  const before = good();
  for (const v of values) {
    let error = null;
    try {
      const r = bad(v);
      if (r && typeof r.dispose === 'function') r.dispose();
    } catch (e) {
      error = e;
    }
    assert.ok(isSfError(error), `${what} = ${show(v)}: ${error === null ? 'no error' : `${error?.name}: ${error?.message}`}`);
    const after = good();
    assert.ok(sameBits(after, before), `${what} = ${show(v)}: the next correct call changed its result`);
  }
}

test('standalone operations: every size argument', () => {
  const pe = () => sf.positionalEncoding(3, 4).data;
  everyValue('positionalEncoding n', BAD_SIZES, (v) => sf.positionalEncoding(v, 4), pe);
  everyValue('positionalEncoding d', BAD_SIZES, (v) => sf.positionalEncoding(3, v), pe);

  const w = Float32Array.from({ length: 6 }, (_, i) => i / 7), x = Float32Array.from({ length: 4 }, (_, i) => i - 1.5);
  const layer = sf.linear(w, null, 2, 3);
  const lin = () => layer.forward(x);
  everyValue('linear inFeatures', BAD_SIZES, (v) => sf.linear(w, null, v, 3), lin);
  everyValue('linear outFeatures', BAD_SIZES, (v) => sf.linear(w, null, 2, v), lin);
  everyValue('linear.forward x', ['x', [1, 2], new Int32Array(4), new BigInt64Array(4), new Float32Array(3), new Float32Array(0), null],
    (v) => layer.forward(v), lin);
  // The wrap of issue 12: 16,385 rows x 65,536 outputs x 4 bytes is 2^32 + 2^18 bytes.
  const wide = sf.linear(new Float32Array(65536).fill(0.5), null, 1, 65536);
  assert.throws(() => wide.forward(new Float32Array(16385).fill(1)), (e) => isSfError(e) && e.code === 'out_of_memory');
  assert.equal(wide.forward(new Float32Array(2).fill(1))[65535], 0.5);
  wide.dispose();
  assert.ok(sameBits(lin(), lin()));
  layer.dispose();

  const Q = [[1, 2], [3, 4]], K = [[1, 0], [0, 1], [1, 1]], V = [[1], [2], [3]];
  const att = () => sf.attention(Q, K, V).output.data;
  for (const at of [0, 1]) {
    everyValue(`attention Q shape[${at}]`, BAD_SIZES, (v) => {
      const shape = [2, 2];
      shape[at] = v;
      return sf.attention({ data: new Float32Array(4), shape }, K, V);
    }, att);
  }
  everyValue('attention mask entries', [2, -1, 0.5, 'yes', null, 2n], (v) => sf.attention(Q, K, V, { mask: [false, v, false] }), att);
  everyValue('attention boolean mask matrix entries', [2, 'yes', null], (v) => sf.attention(Q, K, V, { mask: [[false, v, false], [false, false, false]] }), att);
  everyValue('attention values', ['1', true, null, 1n, NaN, Infinity], (v) => sf.attention([[1, v]], K, V), att);

  const ln = () => sf.layerNorm([[1, 2, 3], [4, 5, 7]]).data;
  everyValue('layerNorm shape', BAD_SIZES, (v) => sf.layerNorm({ data: new Float32Array(6), shape: [v, 3] }), ln);
  everyValue('layerNorm eps', [0, -1, NaN, Infinity, 1e300, '1e-5', 1n, null], (v) => sf.layerNorm([[1, 2]], { eps: v }), ln);
});

test('models: option sizes, token ids and mask entries', async () => {
  const seq2seq = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const gen = () => seq2seq.generate([3, 4, 5, 6], { maxLength: 8 }).tokens;
  // max_len is 16 and the vocabulary 11: the first values past each are errors too.
  for (const [option, first] of [['maxLength', 17], ['bos', 11], ['eos', 11]]) {
    everyValue(`generate ${option}`, [...BAD_SIZES, first, 2 ** 32 + 3], (v) => seq2seq.generate([3, 4], { [option]: v }), gen);
  }
  everyValue('encode token id', [...BAD_SIZES, 11, 2 ** 32 + 3], (v) => seq2seq.encode([3, v, 4]), gen);
  everyValue('encode padding mask entry', [2, -1, 0.5, 'true', null, 1n], (v) => seq2seq.encode([3, 4, 5], { paddingMask: [0, v, 0] }), gen);

  const encoder = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = Float32Array.from({ length: 3 * 12 }, (_, i) => Math.sin(i));
  const enc = () => encoder.encode(x).output;
  everyValue('encode vector values', ['1', true, null, 1n, undefined, NaN, Infinity], (v) => {
    const rows = Array.from({ length: 3 }, (_, r) => Array.from(x.subarray(r * 12, r * 12 + 12)));
    rows[1][5] = v;
    return encoder.encode(rows);
  }, enc);
  everyValue('encode vector array', [new Int32Array(36), new BigInt64Array(36), new Uint8Array(36)], (v) => encoder.encode(v), enc);
  everyValue('encode attnMask', ['0', true, 1n, NaN, Infinity], (v) => encoder.encode(x, { attnMask: [[0, 0, 0], [0, v, 0], [0, 0, 0]] }), enc);
  everyValue('encode returnAttention', ['true', 1, 'MEAN', null, 0], (v) => encoder.encode(x, { returnAttention: v }), enc);
  seq2seq.dispose();
  encoder.dispose();
});

test('config values at 2^32 and beyond are errors, not wrapped (nn.Transformer dialect)', async () => {
  const bytes = readFileSync(modelPath('seq2seq'));
  const config = configOf('seq2seq');
  const model = sf.loadModelSync(bytes, config);
  const gen = () => model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens;
  for (const key of ['d_model', 'nhead', 'dim_feedforward', 'num_encoder_layers', 'num_decoder_layers', 'vocab_size', 'max_len']) {
    everyValue(`config ${key}`, [2 ** 32 + config[key], 2 ** 32 + 1, 2 ** 53, -1, 1.5, '16', 16n, null, true, [16], {}],
      (v) => sf.loadModelSync(bytes, { ...config, [key]: v }), gen);
  }
  const encoderBytes = readFileSync(modelPath('encoder'));
  everyValue('config num_layers', [2 ** 32 + 1, 2 ** 32 + 2], (v) => sf.loadModelSync(encoderBytes, { ...configOf('encoder'), num_layers: v }), gen);
  model.dispose();
});

test('config values at 2^32 and beyond are errors (Hugging Face configs)', async () => {
  const folder = join(DATA, 'hf', 'bert');
  const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8'));
  const objects = (c) => ({ config: c, weights: readFileSync(join(folder, 'model.safetensors')), tokenizer: readFileSync(join(folder, 'tokenizer.json'), 'utf8') });
  const model = await sf.loadPretrained(objects(config));
  const emb = () => model.embed('hello there');
  for (const key of ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size', 'vocab_size', 'max_position_embeddings', 'type_vocab_size']) {
    for (const v of [2 ** 32 + config[key], 2 ** 32, 2 ** 53, -1, 1.5, String(config[key])]) {
      await assert.rejects(sf.loadPretrained(objects({ ...config, [key]: v })), isSfError, `${key} = ${show(v)}`);
      assert.ok(sameBits(emb(), emb()));
    }
  }
  const first = emb();
  everyValue('encodeText maxLength', BAD_SIZES, (v) => model.encodeText('hello', { maxLength: v }), emb);
  everyValue('embed batchSize', BAD_SIZES, (v) => model.embed(['a', 'b'], { batchSize: v }), emb);
  everyValue('embed normalize', ['true', 1, null], (v) => model.embed('a', { normalize: v }), emb);
  everyValue('fillMask topK', BAD_SIZES, (v) => model.fillMask('a [MASK]', { topK: v }), emb);
  assert.ok(sameBits(emb(), first));
  model.dispose();
});

// A safetensors file with one tensor: header fields written as given (numbers as JSON text).
function safetensors(entry, dataBytes = 16) {
  const header = new TextEncoder().encode(`{"w":${entry}}`);
  const bytes = new Uint8Array(8 + header.length + dataBytes);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
  bytes.set(header, 8);
  return bytes;
}

test('safetensors shapes and offsets near 2^32 and 2^64 are errors in inspect() and loads', async () => {
  const good = readFileSync(modelPath('encoder'));
  const described = async () => new TextEncoder().encode(JSON.stringify(await sf.inspect(good)));
  const want = await described();
  const cases = [
    '{"dtype":"F32","shape":[4294967297],"data_offsets":[0,4]}',
    '{"dtype":"F32","shape":[1073741824],"data_offsets":[0,0]}',           // 2^30 x 4 bytes = 2^32: wraps to 0 in 32 bits
    '{"dtype":"F32","shape":[65536,65536],"data_offsets":[0,0]}',
    '{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}',  // 2^64 elements
    '{"dtype":"F32","shape":[1],"data_offsets":[4294967296,4294967300]}',
    '{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,0]}',
    '{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551616]}',
    '{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}',
    '{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}',
    '{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}',
    '{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":{"y":' + '['.repeat(100000) + ']'.repeat(100000) + '}}',
  ];
  for (const entry of cases) {
    const bytes = safetensors(entry);
    await assert.rejects(sf.inspect(bytes), isSfError, entry.slice(0, 80));
    assert.throws(() => sf.loadModelSync(bytes, configOf('encoder')), isSfError, entry.slice(0, 80));
    assert.ok(sameBits(await described(), want));
  }
  // A header length field of 2^32 + 16 (wraps to 16 in 32 bits) and of 2^64 - 1.
  for (const length of [2n ** 32n + 16n, 2n ** 64n - 1n]) {
    const bytes = safetensors('{"dtype":"F32","shape":[1],"data_offsets":[0,4]}');
    new DataView(bytes.buffer).setBigUint64(0, length, true);
    await assert.rejects(sf.inspect(bytes), isSfError);
  }
  // Duplicate tensor names are rejected, not "last wins".
  const header = new TextEncoder().encode('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}');
  const dup = new Uint8Array(8 + header.length + 8);
  new DataView(dup.buffer).setBigUint64(0, BigInt(header.length), true);
  dup.set(header, 8);
  await assert.rejects(sf.inspect(dup), (e) => isSfError(e) && /names tensor 'w' more than once/.test(e.message));
});

test('workspace limits: a request too large is out_of_memory with the right limit in the message', async () => {
  const model = await sf.loadModel(modelPath('encoder'), { ...configOf('encoder'), max_len: 65536 });
  const small = Float32Array.from({ length: 3 * 12 }, (_, i) => Math.cos(i));
  const want = model.encode(small).output;
  assert.throws(() => model.encode(new Float32Array(60000 * 12).fill(0.25)),
    (e) => isSfError(e) && e.code === 'out_of_memory' && /\(4096 MiB\)/.test(e.message) && !/\(0 MiB\)/.test(e.message));
  assert.ok(sameBits(model.encode(small).output, want));
  model.dispose();
});
