// The JavaScript API against callers whose values change under it, or who lie (review of the API
// surface, after hardening / validation / boundary / robust-*):
// - typed arrays (Float32Array inputs of encode, attention, layerNorm, linear) are read once, into
//   a copy, as text-inputs.mjs reads arrays: a getter, a Proxy or a callback that runs after the
//   checks and writes NaN into the caller's array, detaches its buffer or shrinks a resizable one
//   cannot hand other values (or fewer) to the work than the checks saw; a Proxy of a typed array
//   (instanceof passes, ArrayBuffer.isView does not) is refused, and a wasm block is sized from the
//   array copied into it;
// - bytes that a load reads later (loadPretrained's objects, read tensor by tensor while
//   onProgress runs) and that are detached or shrunk meanwhile are an io_error, never a short
//   copy that leaves uninitialised wasm memory in the weights; a detached buffer given to
//   loadModelSync / inspect is a SimdformerError, not a TypeError;
// - applyChatTemplate's options (and generateText's chatTemplate) read only the object's own
//   properties, as every other options object: Object.prototype.template, .tokenize,
//   .addGenerationPrompt, .documents, .variables or .tools change nothing; tokenizer.decode's
//   options likewise (and a misspelt key is refused), encodeOne's truncation only by its names;
//   model.info is frozen whole;
// - lists that say they hold 2^32 - 1 valid items (a prompt's ids, a stop list) are read no
//   further than their bounds; the tokenizer's public window, batch and token methods check
//   their arguments (a NaN stride made windows without end; a hole a row of padding);
//   zeroShot's hypothesisTemplate is formatted as Python's str.format(label) ({0} taken, a second
//   {} refused); a Symbol or a null-prototype object in a message is described, not a TypeError;
// - URLs: a folder's JSON files are at most 256 MiB, as from a folder on disk (a body that never
//   ends, a gzip bomb or a Content-Length beyond it is an io_error, not memory grown to a crash);
//   a redirect loop is named; the browser entry's loadModel(url) loads a gzip-encoded model and
//   names a failed fetch or a cut body.
// Each failure leaves malloc's count where it was and the module working.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, configOf, modelPath } from './helpers.mjs';

const sf = await init();
const detach = (buffer) => { structuredClone(buffer, { transfer: [buffer] }); };
const sameBits = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength),
  Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
const error = (code, pattern) => (e) => {
  assert.ok(e instanceof SimdformerError, `a SimdformerError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.code, code, e.message);
  assert.match(e.message, pattern);
  return true;
};

// A Float32Array of `values` over a resizable ArrayBuffer (which may grow to twice its size).
function resizable(values) {
  const buffer = new ArrayBuffer(values.length * 4, { maxByteLength: values.length * 8 });
  const a = new Float32Array(buffer);  // length-tracking
  a.set(values);
  return a;
}

const Q = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8], K = [0.3, -0.1, 0.2, 0.9, -0.4, 0.6, 0.1, 0.2], V = [1, 2, 3, 4];

test('attention: Q changed by a later argument\'s getter (NaN written, buffer shrunk or detached) runs as it was checked', () => {
  const expected = sf.attention({ data: new Float32Array(Q), shape: [2, 4] }, { data: new Float32Array(K), shape: [2, 4] },
    { data: new Float32Array(V), shape: [2, 2] }).output.data;
  const changes = {
    nan: (q) => { q[0] = NaN; q[7] = Infinity; },
    shrink: (q) => { q.buffer.resize(4); },
    detach: (q) => { detach(q.buffer); },
  };
  const base = sf.mallocBytes;
  for (const [name, change] of Object.entries(changes)) {
    const q = resizable(Q);
    const k = { data: new Float32Array(K), get shape() { change(q); return [2, 4]; } };
    const r = sf.attention({ data: q, shape: [2, 4] }, k, { data: new Float32Array(V), shape: [2, 2] });
    assert.ok(sameBits(r.output.data, expected), `${name}: ${Array.from(r.output.data)} against ${Array.from(expected)}`);
    assert.equal(sf.mallocBytes, base, name);
  }
  // layerNorm's gamma read after x: x's buffer shrunk meanwhile.
  const x = resizable(Q);
  const plain = sf.layerNorm({ data: new Float32Array(Q), shape: [2, 4] }).data;
  const gamma = new Proxy([1, 1, 1, 1], { get(t, p) { if (p === '0') x.buffer.resize(4); return Reflect.get(t, p); } });
  assert.ok(sameBits(sf.layerNorm({ data: x, shape: [2, 4] }, { gamma: [gamma] }).data, plain));
  assert.equal(sf.mallocBytes, base);
});

test('encode: the input changed by the padding mask\'s getter runs as it was checked', async () => {
  const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const values = Array.from({ length: 3 * 12 }, (_, i) => Math.sin(i));
  const expected = model.encode(new Float32Array(values), { paddingMask: [false, false, true] }).output;
  const base = sf.mallocBytes;
  for (const change of [(x) => { x.fill(NaN); }, (x) => { x.buffer.resize(4); }, (x) => { detach(x.buffer); }]) {
    const x = resizable(values);
    const mask = [false, false, true];
    Object.defineProperty(mask, 0, { get() { change(x); return false; } });
    const r = model.encode(x, { paddingMask: mask });
    assert.ok(sameBits(r.output, expected), `${change}: ${r.output.slice(0, 4)}`);
    assert.equal(sf.mallocBytes, base);
  }
  model.dispose();
});

test('loadModelSync / inspect of a detached ArrayBuffer or view: a SimdformerError naming the bytes', async () => {
  const bytes = readFileSync(modelPath('encoder'));
  const base = sf.mallocBytes;
  for (const make of [() => new Uint8Array(bytes).buffer, () => new DataView(new Uint8Array(bytes).buffer, 8)]) {
    const source = make();
    detach(source.buffer ?? source);
    assert.throws(() => sf.loadModelSync(source, configOf('encoder')), error('invalid_argument', /model source .*detached/));
    await assert.rejects(sf.inspect(source), error('invalid_argument', /safetensors source .*detached/));
  }
  assert.equal(sf.mallocBytes, base);
  const model = sf.loadModelSync(bytes, configOf('encoder'));  // the module still loads
  model.dispose();
});

test('loadPretrained: weights detached or shrunk while the load reads them are an io_error, and nothing is leaked', async () => {
  const BERT = join(DATA, 'hf', 'bert');
  const file = readFileSync(join(BERT, 'model.safetensors'));
  const objects = (weights) => ({
    config: readFileSync(join(BERT, 'config.json'), 'utf8'),
    weights,
    tokenizer: readFileSync(join(BERT, 'tokenizer.json'), 'utf8'),
    tokenizerConfig: readFileSync(join(BERT, 'tokenizer_config.json'), 'utf8'),
  });
  const reference = await sf.loadPretrained(objects(file));
  const expected = reference.embed('hello world');
  reference.dispose();
  const base = sf.mallocBytes;
  const changes = {
    shrink: (w) => { w.buffer.resize(Math.floor(w.byteLength / 2)); },
    'shrink to nothing': (w) => { w.buffer.resize(0); },
    detach: (w) => { detach(w.buffer); },
  };
  for (const [name, change] of Object.entries(changes)) {
    const buffer = new ArrayBuffer(file.length, { maxByteLength: file.length });
    const weights = new Uint8Array(buffer);
    weights.set(file);
    let changed = false;
    const onProgress = (e) => { if (e.stage === 'load' && e.loaded > 0 && !changed) { changed = true; change(weights); } };
    await assert.rejects(sf.loadPretrained(objects(weights), { onProgress }),
      error('io_error', /model\.safetensors .*(changed|detached)/), name);
    assert.ok(changed, name);
    assert.equal(sf.mallocBytes, base, name);
  }
  const again = await sf.loadPretrained(objects(file));
  assert.ok(sameBits(again.embed('hello world'), expected));
  again.dispose();
});

test('applyChatTemplate / generateText: options inherited from Object.prototype change nothing', async () => {
  const folder = join(DATA, 'hf', 'llama_gqa');
  const chat = JSON.parse(readFileSync(join(folder, 'texts.json'), 'utf8')).chat;
  const model = await sf.loadPretrained(folder);
  const plain = await model.applyChatTemplate(chat.messages);
  const prompt = await model.applyChatTemplate(chat.messages, { addGenerationPrompt: true });
  const generated = await model.generateText(chat.messages, { maxNewTokens: 3, stop: [] });
  const polluted = {
    template: 'polluted {{ messages | length }}', tokenize: true, addGenerationPrompt: true, documents: [{ text: 'x' }],
    variables: 'not an object', tools: 'not a list',
  };
  try {
    for (const [key, v] of Object.entries(polluted)) Object.defineProperty(Object.prototype, key, { value: v, configurable: true, writable: true });
    assert.equal(await model.applyChatTemplate(chat.messages), plain);
    assert.equal(await model.applyChatTemplate(chat.messages, {}), plain);
    assert.equal(await model.applyChatTemplate(chat.messages, { addGenerationPrompt: true }), prompt);
    const r = await model.generateText(chat.messages, { maxNewTokens: 3, stop: [], chatTemplate: {} });
    assert.deepEqual(Array.from(r.ids), Array.from(generated.ids));
    assert.deepEqual(Array.from(r.promptIds), Array.from(generated.promptIds));
  } finally {
    for (const key of Object.keys(polluted)) delete Object.prototype[key];
  }
  // A message's role inherited from Object.prototype is no role.
  Object.defineProperty(Object.prototype, 'role', { value: 'user', configurable: true, writable: true });
  try {
    await assert.rejects(model.applyChatTemplate([{ content: 'hi' }]), error('invalid_argument', /messages\[0\] must be an object with a string role/));
  } finally {
    delete Object.prototype.role;
  }
  model.dispose();
});

test("tokenizer.decode's options and encodeOne's truncation: read as options are, misspellings refused by name", async () => {
  const model = await sf.loadPretrained(join(DATA, 'hf', 'bert'));
  const tok = model.tokenizer;
  const ids = tok.encodeOne('hello world', 16).ids;
  const withSpecials = tok.decode(ids);
  const without = tok.decode(ids, { skipSpecialTokens: true });
  assert.notEqual(withSpecials, without);
  Object.defineProperty(Object.prototype, 'skipSpecialTokens', { value: true, configurable: true, writable: true });
  try {
    assert.equal(tok.decode(ids), withSpecials);
    assert.equal(tok.decode(ids, {}), withSpecials);
  } finally {
    delete Object.prototype.skipSpecialTokens;
  }
  assert.throws(() => tok.decode(ids, { skipSpecialToken: true }), error('invalid_argument', /decode: unknown option 'skipSpecialToken'/));
  assert.throws(() => tok.decode(ids, 'skip'), error('invalid_argument', /decode: options must be an object/));
  // truncation: the two strategies it has, by name; a typo or HF's other names are refused, not run as longest_first.
  const pair = ['hello world and more words here', 'short'];
  assert.equal(tok.encodeOne(pair, 8, 'only_first').ids.length, 8);
  assert.equal(tok.encodeOne(pair, 8, 'longest_first').ids.length, 8);
  for (const t of ['onlyFirst', 'only_second', true, 'do_not_truncate', null]) {
    assert.throws(() => tok.encodeOne(pair, 8, t), error('invalid_argument', /encodeOne: truncation must be 'longest_first' or 'only_first'/), String(t));
  }
  // A pair read once: a getter that gives the check a string and the tokenizer a number is read once.
  let reads = 0;
  const lying = ['a', 'b'];
  Object.defineProperty(lying, 1, { get() { reads++; return reads === 1 ? 'b' : 5; } });
  assert.deepEqual(Array.from(tok.encodeOne(lying, 16).ids), Array.from(tok.encodeOne(['a', 'b'], 16).ids));
  model.dispose();
});

test('a URL folder whose config.json never ends, is a gzip bomb or announces more than 256 MiB: an io_error naming it', { timeout: 120_000 }, async () => {
  const { createServer } = await import('node:http');
  const { gzipSync } = await import('node:zlib');
  const MiB = 2 ** 20;
  const chunk = Buffer.alloc(4 * MiB, 0x20);
  const bomb = gzipSync(Buffer.alloc(300 * MiB, 0x20), { level: 1 });  // ~0.3 MB on the wire
  const kinds = {
    endless: (res) => {  // chunked, no Content-Length, never ends
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => { while (!res.destroyed && res.write(chunk)); };
      res.on('drain', more);
      more();
    },
    bomb: (res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb); },
    announced: (res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 ** 40 }); res.write('{'); },  // then nothing
  };
  const server = createServer((req, res) => {
    const kind = req.url.split('/')[1];
    if (!req.url.endsWith('/config.json')) { res.writeHead(404).end(); return; }
    kinds[kind](res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}/`;
  try {
    for (const kind of Object.keys(kinds)) {
      await assert.rejects(sf.loadPretrained(`${base}${kind}/`), error('io_error', /config\.json has \d+ bytes or more, more than the 268435456/), kind);
    }
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});

test('a Proxy of a typed array (it passes instanceof, not ArrayBuffer.isView) is refused; a lying length never sizes a wasm block', async () => {
  // Its length is the real one for the first two reads, then far more.
  const lying = (real, big) => {
    let reads = 0;
    return new Proxy(real, { get(t, p) {
      if (p === 'length') return ++reads <= 2 ? t.length : big;
      const v = Reflect.get(t, p);
      return typeof v === 'function' ? v.bind(t) : v;
    } });
  };
  const w = Float32Array.of(1, 2, 3, 4);
  const reference = sf.linear(w, null, 2, 2);
  const expected = reference.forward(Float32Array.of(1, 2));
  const base = sf.mallocBytes;
  for (const big of [64, 100_000]) {
    assert.throws(() => sf.linear(lying(w, big), null, 2, 2), error('invalid_argument', /linear: weight must be a Float32Array/));
    assert.throws(() => sf.linear(w, lying(Float32Array.of(0, 0), big), 2, 2), error('invalid_argument', /linear: bias must be a Float32Array/));
    assert.throws(() => reference.forward(lying(Float32Array.of(1, 2), big)), error('invalid_argument', /linear\.forward: x must be a Float32Array/));
    assert.throws(() => sf.attention({ data: lying(new Float32Array(Q), big), shape: [2, 4] }, { data: new Float32Array(K), shape: [2, 4] },
      { data: new Float32Array(V), shape: [2, 2] }), error('invalid_argument', /Q\.data: expected an array of numbers/));
    const bytes = lying(new Uint8Array(readFileSync(modelPath('encoder'))), big * 1024);
    assert.throws(() => sf.loadModelSync(bytes, configOf('encoder')), error('invalid_argument', /model source must be bytes/));
    await assert.rejects(sf.inspect(lying(new Uint8Array(16), big * 1024)), error('invalid_argument', /safetensors source must be bytes/));
    assert.equal(sf.mallocBytes, base, String(big));
  }
  // A Float32Array over a SharedArrayBuffer is a Float32Array: copied, and the same answer.
  const shared = new Float32Array(new SharedArrayBuffer(8));
  shared.set([1, 2]);
  assert.ok(sameBits(reference.forward(shared), expected));
  const sharedWeights = new Float32Array(new SharedArrayBuffer(16));
  sharedWeights.set(w);
  const fromShared = sf.linear(sharedWeights, null, 2, 2);
  assert.ok(sameBits(fromShared.forward(Float32Array.of(1, 2)), expected));
  fromShared.dispose();
  reference.dispose();
  assert.ok(sameBits(sf.attention([[1, 2]], [[1, 2]], [[3]]).output.data, Float32Array.of(3)), 'the module still works');
});

test("generateText: a prompt of ids or a stop list that says it holds 2^32 - 1 valid items is refused at once, not read for minutes", async () => {
  const chat = await sf.loadPretrained(join(DATA, 'hf', 'llama_gqa'));
  const positions = chat.info.max_positions;
  // Every index answers a valid item.
  const endless = (item) => new Proxy([item], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : /^\d+$/.test(k) ? item : t[k]) });
  // Up to the bounds, as before: a prompt of positions - 1 ids, a stop list of 65,536 items.
  const longest = new Array(positions - 1).fill(5);
  assert.equal((await chat.generateText(longest, { maxNewTokens: 1, stop: [] })).ids.length, 1);
  await assert.rejects(chat.generateText([...longest, 5], { maxNewTokens: 1 }), error('invalid_argument', new RegExp(`too long: ${positions} tokens`)));
  const stops = Array.from({ length: 65536 }, (_, i) => (i < 1000 ? i % 50 : `s${i}`));
  assert.equal((await chat.generateText('hi', { maxNewTokens: 1, stop: stops })).ids.length, 1);
  const base = sf.mallocBytes;  // (the model's workspace made)
  const start = Date.now();
  await assert.rejects(chat.generateText(endless(5), { maxNewTokens: 1 }), error('invalid_argument', /prompt is too long: 4294967295 tokens/));
  await assert.rejects(chat.generateText([[5], endless(5)], { maxNewTokens: 1 }), error('invalid_argument', /prompt 1 is too long: 4294967295 tokens/));
  for (const item of [5, 'x']) {
    await assert.rejects(chat.generateText('hi', { maxNewTokens: 1, stop: endless(item) }),
      error('invalid_argument', /generateText: stop holds 4294967295 items, more than the 65536/));
  }
  assert.ok(Date.now() - start < 10_000, `took ${Date.now() - start} ms`);
  assert.equal(sf.mallocBytes, base);
  chat.dispose();
});

test('a URL folder that redirects forever: an io_error naming the loop, not another origin without CORS', async () => {
  const { createServer } = await import('node:http');
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    res.writeHead(302, { location: req.url.replace(/^\/(\d+)\//, (_, k) => `/${Number(k) + 1}/`) }).end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    await assert.rejects(sf.loadPretrained(`http://127.0.0.1:${server.address().port}/0/`),
      error('io_error', /cannot fetch config\.json from .*: the server redirects it again and again \(a redirect loop\?\): redirect count exceeded/));
    assert.ok(requests <= 25, `${requests} requests`);
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});

test('model.info is frozen whole: its lists and config cannot be changed under later calls', async () => {
  const chat = await sf.loadPretrained(join(DATA, 'hf', 'llama_gqa'));
  const before = await chat.generateText('hi', { maxNewTokens: 3 });
  assert.throws(() => chat.info.eos_token_ids.push(999999), TypeError);
  assert.throws(() => { chat.info.config.vocab_size = 5; }, TypeError);
  assert.throws(() => { chat.info.eos_token_ids[0] = 5; }, TypeError);
  assert.deepEqual(Array.from((await chat.generateText('hi', { maxNewTokens: 3 })).ids), Array.from(before.ids));
  chat.dispose();
  const nli = await sf.loadPretrained(join(DATA, 'hf', 'roberta_nli'));
  assert.throws(() => { nli.info.config.label2id.entailment = 0; }, TypeError);
  assert.ok(Object.isFrozen(nli.info.config.id2label));
  nli.dispose();
});

test("tokenizer.encodeWindows / encodeTextWindows: maxLength and stride are integers (stride >= 0), else refused by name, never windows without end", async () => {
  const m = await sf.loadPretrained(join(DATA, 'hf', 'bert_qa'));
  const tok = m.tokenizer;
  const context = 'the quick brown fox jumps over the lazy dog '.repeat(20);
  const windows = tok.encodeWindows('who?', context, 64, 8);
  assert.ok(windows.length > 1 && windows.every((w) => w.ids.length <= 64));
  assert.ok(tok.encodeTextWindows(context, 64, 0).length > 1);
  for (const stride of [NaN, 'abc', '8', -1, 2.5, Infinity, 8n, null, undefined]) {
    assert.throws(() => tok.encodeWindows('who?', context, 64, stride), error('invalid_argument', /encodeWindows: stride must be an integer >= 0/), String(stride));
    assert.throws(() => tok.encodeTextWindows(context, 64, stride), error('invalid_argument', /encodeTextWindows: stride must be an integer >= 0/), String(stride));
  }
  for (const maxLength of [NaN, '64', 64.5, Infinity, 64n, undefined]) {
    assert.throws(() => tok.encodeWindows('who?', context, maxLength, 8), error('invalid_argument', /encodeWindows: maxLength must be an integer/), String(maxLength));
    assert.throws(() => tok.encodeTextWindows(context, maxLength, 8), error('invalid_argument', /encodeTextWindows: maxLength must be an integer/), String(maxLength));
  }
  m.dispose();
});

test('tokenizer.encodeBatch / padBatch / convertTokensToString: a hole is refused, never a row of padding; wrong items are a SimdformerError', async () => {
  const m = await sf.loadPretrained(join(DATA, 'hf', 'bert'));
  const tok = m.tokenizer;
  const batch = tok.encodeBatch(['hello', 'world'], 16);
  assert.equal(batch.nBatch, 2);
  assert.deepEqual(tok.padBatch(batch.sequences).ids, batch.ids);
  assert.equal(tok.convertTokensToString(['hello', 'world']), 'hello world');
  assert.throws(() => tok.encodeBatch(['hello', , 'world'], 16), error('invalid_argument', /encodeBatch: inputs\[1\] is missing/));
  const sparse = new Array(2 ** 32 - 1);
  sparse[0] = 'hello';
  assert.throws(() => tok.encodeBatch(sparse, 16), error('invalid_argument', /encodeBatch: inputs\[1\] is missing/));
  const one = tok.encodeOne('hi', 8);
  assert.throws(() => tok.padBatch([one, , one]), error('invalid_argument', /padBatch: sequences\[1\] is missing/));
  for (const bad of [{ length: 3 }, null, 5, { ...one, length: one.length + 1 }, { ...one, ids: 'abc' }]) {
    assert.throws(() => tok.padBatch([one, bad]), error('invalid_argument', /padBatch: sequences\[1\] must be an encoded text/), JSON.stringify(bad));
  }
  assert.throws(() => tok.padBatch('x'), error('invalid_argument', /padBatch: sequences must be an array/));
  for (const bad of [undefined, 'hello', [1, 2], ['a', , 'b']]) {
    assert.throws(() => tok.convertTokensToString(bad), error('invalid_argument', /convertTokensToString: tokens must be an array of strings/), String(bad));
  }
  m.dispose();
});

test("the browser entry's loadModel(url): a gzip-encoded model loads; a failed fetch, a cut body or a huge Content-Length is an io_error naming the model", async () => {
  const { createServer } = await import('node:http');
  const { gzipSync } = await import('node:zlib');
  const browser = await import('../../dist/browser.mjs');
  const web = await browser.init({ wasmBinary: readFileSync(join(DATA, '..', '..', 'dist', 'simdformer.wasm')), simd: true });
  const bytes = readFileSync(modelPath('encoder'));
  const gz = gzipSync(bytes);
  const server = createServer((req, res) => {
    const kind = req.url.slice(1);
    if (kind === 'plain') res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
    else if (kind === 'chunked') res.writeHead(200).end(bytes);
    else if (kind === 'gzip') res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': gz.length }).end(gz);
    else {  // announces 2^40 bytes or the file's, sends 100, and drops the connection
      res.writeHead(200, { 'content-length': kind === 'huge' ? 2 ** 40 : bytes.length });
      res.write(bytes.subarray(0, 100));
      setTimeout(() => req.socket.destroy(), 50);
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}/`;
  try {
    const x = new Float32Array(3 * 12).fill(0.5);
    const reference = web.loadModelSync(bytes, configOf('encoder'));
    const expected = reference.encode(x).output;
    reference.dispose();
    for (const kind of ['plain', 'chunked', 'gzip']) {
      const events = [];
      const m = await web.loadModel(`${base}${kind}`, configOf('encoder'), { onProgress: (e) => events.push(e) });
      assert.ok(sameBits(m.encode(x).output, expected), kind);
      assert.ok(events.some((e) => e.stage === 'download' && e.loaded === bytes.length), kind);
      m.dispose();
    }
    for (const kind of ['huge', 'cut']) {
      await assert.rejects(web.loadModel(`${base}${kind}`, configOf('encoder')), error('io_error', /model 'http:\/\/127\.0\.0\.1:\d+\/(huge|cut)'/), kind);
    }
    await assert.rejects(web.loadModel('http://127.0.0.1:9/model.safetensors', configOf('encoder')),
      error('io_error', /cannot fetch model 'http:\/\/127\.0\.0\.1:9\/model\.safetensors'/));
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});

test('a Symbol, a null-prototype object or an object whose toString throws, as a token id or a mask entry: a SimdformerError naming it', async () => {
  const seq = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const enc = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = new Float32Array(3 * 12).fill(0.5);
  const base = sf.mallocBytes;
  for (const bad of [Symbol('s'), Object.create(null), { toString() { throw new Error('the caller\'s toString'); } }]) {
    assert.throws(() => seq.generate([3, bad, 5]), error('invalid_argument', /src\[0\]: token (Symbol\(s\)|an object) at index 1 is not an id/));
    assert.throws(() => seq.forward([3, 4], [bad]), error('invalid_argument', /tgt\[0\]: token .* at index 0 is not an id/));
    assert.throws(() => enc.encode(x, { paddingMask: [false, bad, false] }), error('invalid_argument', /paddingMask\[0\]: entry 1 is (Symbol\(s\)|an object)/));
    assert.throws(() => sf.attention([[1, 2]], [[1, 2]], [[3]], { mask: [[bad]] }), error('invalid_argument', /mask\[0\]: entry 0 is/));
  }
  assert.equal(sf.mallocBytes, base);
  seq.dispose();
  enc.dispose();
});

test("zeroShot's hypothesisTemplate is formatted as Python's str.format(label): {0} and {{ }} are taken, what Python refuses is refused by name", async () => {
  const nli = await sf.loadPretrained(join(DATA, 'hf', 'roberta_nli'));
  const text = 'The team won the match last night.';
  const labels = ['sports', 'politics'];
  const plain = nli.zeroShot(text, labels, { hypothesisTemplate: 'This is about {}.' });
  assert.deepEqual(nli.zeroShot(text, labels, { hypothesisTemplate: 'This is about {0}.' }), plain);
  assert.deepEqual(nli.zeroShot(text, labels, { hypothesisTemplate: 'This is about {00}.' }), plain);
  const braces = nli.zeroShot(text, labels, { hypothesisTemplate: '{{about}} {}' });  // the hypothesis '{about} sports'
  assert.deepEqual([...braces.labels].sort(), [...labels].sort());
  for (const [template, why] of [  // IndexError, KeyError, ValueError in Python; fields it formats and simdformer does not
    ['{} and {}', /has '\{\}': it is formatted as Python's str\.format\(label\)/], ['This is {1}.', /has '\{1\}'/],
    ['This is {label}.', /has '\{label\}'/], ['{} or {0}', /has '\{0\}'/], ['a } b {}', /has a lone '\}'/], ['a { b', /has '\{'/],
    ['{:>9}', /has '\{:>9\}'/], ['no slot', /has no \{\} where the label goes/],
  ]) {
    assert.throws(() => nli.zeroShot(text, labels, { hypothesisTemplate: template }), error('invalid_argument', why), template);
  }
  nli.dispose();
});
