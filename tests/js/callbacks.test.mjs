// Calls from callbacks and cancellation (README "Calls from callbacks"): while a call into a model
// runs, every other call into that model -- dispose() included -- throws SimdformerError code
// 'busy'; calls into other models and the module's operations work. Throwing from any callback
// (or aborting the signal) cancels cleanly: the caller gets that error, and malloc's count of
// live bytes comes back to where it was, over 100,000 cancelled generates and 1,000 cancelled
// loads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, configOf, modelPath } from './helpers.mjs';

const sf = await init();
const BERT = join(DATA, 'hf', 'bert');
const bertObjects = () => ({
  config: readFileSync(join(BERT, 'config.json'), 'utf8'),
  weights: readFileSync(join(BERT, 'model.safetensors')),
  tokenizer: readFileSync(join(BERT, 'tokenizer.json'), 'utf8'),
  tokenizerConfig: readFileSync(join(BERT, 'tokenizer_config.json'), 'utf8'),
});
const busy = (e) => e instanceof SimdformerError && e.code === 'busy' && /busy running/.test(e.message);
const sameBits = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength),
  Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

test("generate's onProgress: every call into the same model is 'busy', other models and ops work", async () => {
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const other = await sf.loadModel(modelPath('encoder'), configOf('encoder'));
  const x = new Float32Array(3 * 12).fill(0.5);
  const otherOut = other.encode(x).output;
  const expected = model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens;
  const seen = [];
  let steps = 0;
  const r = model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: () => {
    steps++;
    for (const call of [() => model.encode([3, 4]), () => model.generate([3]), () => model.forward([3], [1]), () => model.dispose()]) {
      assert.throws(call, busy);
    }
    seen.push(sameBits(other.encode(x).output, otherOut));
    seen.push(sf.attention([[1, 2]], [[1, 2]], [[3]]).output.data[0] === 3);
  } });
  assert.ok(steps >= 1);
  assert.ok(seen.every(Boolean), 'calls into another model and the module ops work from the callback');
  assert.deepEqual(r.tokens, expected, 'the running generate was not disturbed');
  assert.equal(model.disposed, false);
  assert.deepEqual(model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens, expected, 'not busy after it returned');
  // A generate running in another model's callback is fine.
  const nested = model.generate([3, 4, 5, 6], { maxLength: 8, onProgress: () => {
    assert.deepEqual(other.encode(x).output, otherOut);
  } });
  assert.deepEqual(nested.tokens, expected);
  model.dispose();
  other.dispose();
});

test('loadModel and loadPretrained onProgress: the module works from inside; the new model does not exist yet', async () => {
  const stages = [];
  const model = await sf.loadModel(modelPath('encoder'), configOf('encoder'), { onProgress: (p) => {
    stages.push(p.stage);
    assert.equal(sf.positionalEncoding(2, 4).data.length, 8);
  } });
  assert.ok(stages.includes('load'));
  model.dispose();
  const text = await sf.loadPretrained(bertObjects(), { onProgress: () => {
    assert.equal(sf.positionalEncoding(2, 4).data.length, 8);
  } });
  assert.equal(text.encodeText('hello world').length > 2, true);
  text.dispose();
});

test("TextModel: user code running inside its calls (here an input array's getter) gets 'busy' too", async () => {
  const text = await sf.loadPretrained(bertObjects());
  const want = text.embed(['a short text']);
  const errors = [];
  const reentering = new Proxy(['a short text'], {
    get(target, key) {
      if (key === '0') for (const call of [() => text.embed('x'), () => text.encodeText('x'), () => text.fillMask('[MASK]'), () => text.dispose(),
        () => text.tokenClassify('x'), () => text.answer('q', 'c'), () => text.zeroShot('x', ['a']), () => text.rerank('q', ['d'])]) {
        try { call(); } catch (e) { errors.push(e); }
      }
      return target[key];
    },
  });
  assert.deepEqual(text.embed(reentering), want);
  assert.ok(errors.length >= 8 && errors.every(busy), errors.map(String).join('; '));
  assert.equal(text.disposed, false);
  text.dispose();
});

test('throwing from onProgress cancels every kind of load at every event, with nothing left allocated', async () => {
  const bytes = readFileSync(modelPath('encoder'));
  const stop = new Error('stop');
  // The first load also makes the parser's lazily built static tables, which stay: count from after it.
  let loadEvents = 0;
  (await sf.loadModel(bytes, configOf('encoder'), { onProgress: () => { loadEvents++; } })).dispose();
  assert.equal(loadEvents, 2, 'load 0 and load done');
  const base = sf.mallocBytes;
  for (let at = 0; at < loadEvents; at++) {
    let i = 0;
    await assert.rejects(sf.loadModel(bytes, configOf('encoder'), { onProgress: () => { if (i++ === at) throw stop; } }), (e) => e === stop);
    assert.throws(() => { let j = 0; sf.loadModelSync(bytes, configOf('encoder'), () => { if (j++ === at) throw stop; }); }, (e) => e === stop);
    assert.equal(sf.mallocBytes, base, `loadModel cancelled at event ${at}`);
  }
  // loadPretrained: count its events, then cancel at each one (onProgress throwing, and the signal).
  let events = 0;
  (await sf.loadPretrained(bertObjects(), { onProgress: () => { events++; } })).dispose();
  assert.ok(events >= 3, `${events} events`);
  const after = sf.mallocBytes;
  for (let at = 0; at < events; at++) {
    let i = 0;
    await assert.rejects(sf.loadPretrained(bertObjects(), { onProgress: () => { if (i++ === at) throw stop; } }), (e) => e === stop,
      `onProgress throwing at event ${at}`);
    const controller = new AbortController();
    let k = 0;
    await assert.rejects(sf.loadPretrained(bertObjects(), { signal: controller.signal, onProgress: () => { if (k++ === at) controller.abort(stop); } }),
      (e) => e === stop, `signal aborted at event ${at}`);
    assert.equal(sf.mallocBytes, after, `loadPretrained cancelled at event ${at}`);
  }
  const aborted = new AbortController();
  aborted.abort(stop);
  await assert.rejects(sf.loadPretrained(bertObjects(), { signal: aborted.signal }), (e) => e === stop);
  assert.equal(sf.mallocBytes, after);
});

test('100,000 cancelled generates and 1,000 cancelled loads leave the heap flat', async () => {
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const expected = model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens;
  const stop = new Error('stop');
  // maxLength 3: cancelled at its first step either way, and the loop stays a few seconds.
  const cancelled = () => model.generate([3, 4, 5, 6], { maxLength: 3, onProgress: () => { throw stop; } });
  for (let i = 0; i < 100; i++) assert.throws(cancelled, (e) => e === stop);  // warm-up
  const malloc = sf.mallocBytes, heap = sf.heapBytes, live = sf.liveBytes;
  for (let i = 0; i < 100000; i++) {
    try { cancelled(); } catch (e) { if (e !== stop) throw e; }
  }
  assert.equal(sf.mallocBytes, malloc, 'malloc bytes after 100,000 cancelled generates');
  assert.equal(sf.liveBytes, live);
  assert.equal(sf.heapBytes, heap);
  assert.deepEqual(model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens, expected);

  const bytes = readFileSync(modelPath('encoder'));
  const objects = bertObjects();
  const before = sf.mallocBytes;
  for (let i = 0; i < 1000; i++) {
    if (i % 2 === 0) {
      let n = 0;
      assert.throws(() => sf.loadModelSync(bytes, configOf('encoder'), () => { if (n++ === 1) throw stop; }), (e) => e === stop);
    } else {
      let n = 0;
      await assert.rejects(sf.loadPretrained(objects, { onProgress: (p) => { if (p.stage === 'load' && n++ === 1) throw stop; } }),
        (e) => e === stop);
    }
  }
  assert.equal(sf.mallocBytes, before, 'malloc bytes after 1,000 cancelled loads');
  assert.deepEqual(model.generate([3, 4, 5, 6], { maxLength: 8 }).tokens, expected);
  model.dispose();
  console.log(`# callbacks: 100,000 cancelled generates, 1,000 cancelled loads; malloc ${sf.mallocBytes} bytes`);
});

test('a model disposed from a callback of another call is refused, not freed under it', async () => {
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  let error = null;
  model.generate([3, 4], { maxLength: 4, onProgress: () => { try { model.dispose(); } catch (e) { error = e; } } });
  assert.ok(busy(error));
  assert.equal(model.disposed, false);
  model.dispose();
  assert.equal(model.disposed, true);
});
