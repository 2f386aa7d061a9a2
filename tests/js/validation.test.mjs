// Options are read exactly as the types declare them: own properties only, booleans that are
// booleans, enums checked against the C++ table (no prototype lookups), integers that are safe.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, configOf, modelPath } from './helpers.mjs';

const sf = await init();
const isError = (pattern) => (e) => e instanceof SimdformerError && pattern.test(e.message);

test('enum options accept only their names, not prototype keys', async () => {
  const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = new Float32Array(3 * 12).fill(0.5);
  for (const score of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'Scaled-Dot', 'scaled-dot\0']) {
    assert.throws(() => model.encode(x, { score }), isError(/unknown score .* \(expected scaled-dot, dot, additive\)/), score);
    assert.throws(() => sf.attention([[1]], [[1]], [[1]], { score }), isError(/unknown score/), score);
  }
  for (const normalize of ['__proto__', 'valueOf', 'SOFTMAX']) {
    assert.throws(() => model.encode(x, { normalize }), isError(/unknown normalize .* \(expected softmax, relu\)/), normalize);
  }
  for (const score of [0, 2, null, true, {}, ['dot']]) {
    assert.throws(() => model.encode(x, { score }), isError(/score must be a string/), String(score));
  }
  assert.deepEqual(model.encode(x, { score: 'dot', normalize: 'relu' }).shape, [3, 12]);
  model.dispose();
});

test('boolean options must be true or false', async () => {
  const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = new Float32Array(3 * 12).fill(0.5);
  for (const causal of ['true', 1, 0, 'false', null, {}]) {
    assert.throws(() => model.encode(x, { causal }), isError(/causal must be true or false/), String(causal));
  }
  for (const returnAttention of ['true', 1, 'MEAN', null]) {
    assert.throws(() => model.encode(x, { returnAttention }), isError(/returnAttention must be true, 'mean' or false/));
  }
  assert.throws(() => sf.attention([[1]], [[1]], [[1]], { returnWeights: 'yes' }), isError(/returnWeights must be true or false/));
  assert.throws(() => model.encode(x, { truncation: 1 }), isError(/truncation must be true or false/));
  model.dispose();
});

test('only own properties are options; inherited ones are neither read nor allowed to hide typos', async () => {
  const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = new Float32Array(3 * 12).fill(0.5);
  const plain = model.encode(x).output;
  const inherited = Object.create({ causal: true, score: 'dot', returnAttention: true });
  const r = model.encode(x, inherited);
  assert.deepEqual(r.output, plain, 'inherited option values are ignored');
  assert.equal(r.attentions, undefined);
  for (const options of [null, 'causal', 7, [true]]) {
    assert.throws(() => model.encode(x, options), isError(/encode: options must be an object/), String(options));
  }
  model.dispose();
});

test('integer options and shapes are safe integers in range', async () => {
  const seq2seq = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  for (const bos of [2 ** 32 + 1, 1.5, -1, '1', 1n, NaN]) {
    assert.throws(() => seq2seq.generate([3, 4], { bos }), isError(/bos must be an integer in \[0, \d+\]/), String(bos));
  }
  for (const maxLength of [2 ** 32 + 4, 2 ** 53, '8']) {
    assert.throws(() => seq2seq.generate([3, 4], { maxLength }), isError(/maxLength must be an integer in \[2, 16\]/));
  }
  seq2seq.dispose();
  assert.throws(() => sf.attention({ data: new Float32Array(3), shape: [1.5, 2] }, [[1, 2]], [[1]]), isError(/shape must be two positive integers/));
  assert.throws(() => sf.attention({ data: new Float32Array(4), shape: ['2', '2'] }, [[1, 2]], [[1]]), isError(/shape must be two positive integers/));
  assert.throws(() => sf.positionalEncoding(2 ** 32 + 1, 2), SimdformerError);
  assert.throws(() => sf.linear(new Float32Array(2), null, 2, 1.5), isError(/outFeatures must be a positive integer/));
});

test('init() options: exact values, and errors are SimdformerError', async () => {
  await assert.rejects(init(null), isError(/init: options must be an object/));
  await assert.rejects(init({ simd: 'true' }), isError(/simd must be 'auto', true or false/));
  await assert.rejects(init({ simd: 1 }), isError(/simd must be 'auto', true or false/));
  await assert.rejects(sf.loadModel(modelPath('encoder'), { d_model: 12n }), isError(/config cannot be written as JSON/));
  const cyclic = { ...configOf('encoder') };
  cyclic.self = cyclic;
  await assert.rejects(sf.loadModel(modelPath('encoder'), cyclic), isError(/config cannot be written as JSON/));
});

test('inspect() takes the same byte forms as loadModel()', async () => {
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(modelPath('encoder'));
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  for (const source of [bytes, ab, new DataView(ab), new Uint8Array(ab)]) {
    const d = await sf.inspect(source);
    assert.ok(d.tensors.some((t) => t.name === 'layers.1.norm2.weight'));
  }
});

test('a huge batch is an error about its contents, not a stack overflow', async () => {
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const batch = Array.from({ length: 200000 }, () => [3]);
  batch[199999] = [99];
  assert.throws(() => model.encode(batch), isError(/input\[199999\]: token 99 at index 0 is not an id/));
  model.dispose();
});

test('a hole in a batch, a list of masks, a row list or a mask matrix is refused, never run as zeros', async () => {
  const seq = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  assert.throws(() => seq.encode([[3, 4], , [5]]), isError(/input\[1\] is missing: the array has a hole there/));
  const sparse = new Array(2 ** 32 - 1);
  sparse[0] = [3];
  assert.throws(() => seq.encode(sparse), isError(/input\[1\] is missing/));  // at once, not a walk of 2^32 slots
  assert.throws(() => seq.encode([[3, 4], [5, 6]], { paddingMask: [[0, 1], ,] }), isError(/paddingMask\[1\] is missing/));
  assert.throws(() => seq.encode([[3, 4], [5, 6]], { paddingMask: new Array(2) }), isError(/paddingMask\[0\] is missing/));
  // With every item given, the same batch runs (null: no mask for that sequence).
  assert.equal(seq.encode([[3, 4], [5, 6]], { paddingMask: [[0, 1], null] }).sequences.length, 2);
  seq.dispose();
  const enc = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const row = Array(12).fill(0.5);
  assert.throws(() => enc.encode([row, , row]), isError(/row\[1\] is missing/));
  assert.throws(() => enc.encode([[row, row], [row, , row]]), isError(/input\[1\]: row\[1\] is missing/));
  enc.dispose();
  const q = [[1], [0.5], [0.2]];
  assert.throws(() => sf.attention(q, q, q, { mask: [[0, 1, 0], , [0, 0, 0]] }), isError(/mask\[1\] is missing/));
  assert.throws(() => sf.attention(q, q, q, { mask: [[0, 1, 0], null, [0, 0, 0]] }), isError(/mask\[1\]: expected a row/));
  assert.throws(() => sf.attention(q, q, q, { attnMask: [[0, 0, 0], , [0, 0, 0]] }), isError(/attnMask: row\[1\] is missing/));
  assert.throws(() => sf.layerNorm([[1, 2], , [3, 4]]), isError(/x: row\[1\] is missing/));
});

test('re-entrant calls from generate\'s onProgress are rejected; a throwing onProgress cancels without leaking', async () => {
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const expected = Array.from(model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens);
  const errors = [];
  const r = model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: () => {
    for (const call of [() => model.encode([3, 4]), () => model.generate([3]), () => model.forward([3], [1]), () => model.dispose()]) {
      try { call(); } catch (e) { errors.push(e); }
    }
  } });
  assert.deepEqual(Array.from(r.tokens), expected, 'the running generate was not disturbed');
  assert.ok(errors.length >= 4 && errors.every((e) => e instanceof SimdformerError && e.code === 'busy' && /the model is busy running generate/.test(e.message)));
  assert.equal(model.disposed, false);
  const stop = new Error('stop');
  for (let i = 0; i < 200; i++) assert.throws(() => model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: () => { throw stop; } }), (e) => e === stop);
  const live = sf.liveBytes, heap = sf.heapBytes;
  for (let i = 0; i < 20000; i++) {
    try { model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: () => { throw stop; } }); } catch (e) { if (e !== stop) throw e; }
  }
  assert.equal(sf.liveBytes, live);
  assert.equal(sf.heapBytes, heap, 'no leak per cancelled generate');
  assert.deepEqual(Array.from(model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens), expected);
  model.dispose();
});

test('every failure is a SimdformerError with a message that names the right thing', async () => {
  await assert.rejects(init({ wasmUrl: '/no/such/file.wasm' }), (e) => e instanceof SimdformerError && e.code === 'io_error' && /cannot read the wasm file/.test(e.message));
  await assert.rejects(init({ wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 9]) }),
    (e) => e instanceof SimdformerError && e.code === 'unsupported' && /cannot be instantiated/.test(e.message));
  await assert.rejects(sf.loadModel(DATA), (e) => e instanceof SimdformerError && e.code === 'io_error' && /is not a file/.test(e.message));
  const layer = sf.linear(new Float32Array([1, 1]), null, 2, 1);
  assert.throws(() => layer.forward(new Float32Array([NaN, 1])), isError(/linear.forward: x\[0\] is NaN/));
  layer.dispose();
  assert.throws(() => sf.linear(new Float32Array([NaN, 1]), null, 2, 1), (e) => /^linear: weight/.test(e.message) && !/linear: linear/.test(e.message));
  const decoder = await sf.loadModel(modelPath('decoder_layer'), configOf('decoder_layer'));
  const d = decoder.config.d_model;
  assert.throws(() => decoder.encode([new Float32Array(2 * d)], { memory: [new Float32Array(3 * d)], memoryPaddingMask: [[false, true]] }),
    isError(/^memoryPaddingMask\[0\]: has 2 entries, expected 3/));
  decoder.dispose();
  const encoder = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  assert.throws(() => encoder.encode(new Float32Array(12), { memory: [] }), isError(/^encode: memory is only for decoder models$/));
  encoder.dispose();
});
