// init({ threads }): the pthreads build computes the same bits as one thread (GEMMs big enough to
// be split, Hugging Face text models, generate()), survives a stress of many calls in flight,
// validates its option, lets Node scripts end with and without dispose(), and in Chromium runs
// threaded only on cross-origin isolated pages (else one thread, with the reason).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { startServer } from '../../web/serve.mjs';
import { launch } from './chromium.mjs';
import { DATA, DIST, ROOT, configOf, modelPath } from './helpers.mjs';

// A GEMM well above the one-thread cut-over (so it is split across threads).
const K = 256, N = 384, M = 64;
// Inputs from integer arithmetic only, so the page computes exactly the same ones.
const W = Float32Array.from({ length: K * N }, (_, i) => ((i * 7919) % 1001 - 500) / 10000);
const B = Float32Array.from({ length: N }, (_, i) => ((i * 31) % 17 - 8) / 16);
const X = Float32Array.from({ length: M * K }, (_, i) => ((i * 104729) % 997 - 498) / 500);
const TEXTS = ['The quick brown fox jumps over the lazy [MASK].', 'Hello, world!', 'threads give the same bits'];

// Everything a run computes, as arrays of numbers.
async function compute(sf) {
  const layer = sf.linear(W, B, K, N);
  const y = Array.from(layer.forward(X));
  layer.dispose();
  const seq = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const g = seq.generate([[3, 4, 5, 6, 7, 8], [9, 10, 3, 4]], { maxLength: 8, returnAttention: true });
  const tokens = g.map((r) => Array.from(r.tokens));
  const cross = Array.from(g[0].crossAttentions[1][0].data);
  seq.dispose();
  const mlm = await sf.loadPretrained(join(DATA, 'hf/bert_mlm_f16'));
  const enc = mlm.encodeText(TEXTS, { returnAttention: true });
  const hidden = enc.map((e) => Array.from(e.lastHiddenState));
  mlm.dispose();
  return { y, tokens, cross, hidden };
}

let one;
// Whether Node runs the f32 k-loops on relaxed SIMD's multiply-add (Node 20 only behind
// --experimental-wasm-relaxed-simd, as scripts/test.sh's js-relaxed-f32-* suites run it): the
// Chromium pages below are told to run the same loops, so their bits can be held to Node's.
let nodeRelaxedF32;
before(async () => {
  const sf = await init();
  assert.equal(sf.threads, 1);
  assert.equal(sf.threadsNote, '');
  nodeRelaxedF32 = sf.relaxedF32;
  one = await compute(sf);
});

for (const threads of [2, 3]) {
  test(`threads: ${threads} computes the same bits as one thread`, async () => {
    const sf = await init({ threads });
    assert.equal(await sf.threadsReady, threads);
    assert.equal(sf.threads, threads);
    assert.equal(sf.arch, 'wasm');
    assert.deepEqual(await compute(sf), one);
    sf.dispose();
    assert.equal(sf.threads, 1);
    // After dispose the module keeps working, on one thread.
    const layer = sf.linear(W, B, K, N);
    assert.deepEqual(Array.from(layer.forward(X)), one.y);
    layer.dispose();
  });
}

// init() resolves before the workers have loaded (the pool starts in the background): calls made
// at once run on one thread, the ones after threadsReady on two, and all give the same bits.
test('threads: 2 computes before and after its pool has started, the same bits', async () => {
  const sf = await init({ threads: 2 });
  const layer = sf.linear(W, B, K, N);
  const early = Array.from(layer.forward(X));
  const threadsEarly = sf.threads;
  assert.equal(await sf.threadsReady, 2);
  assert.deepEqual(Array.from(layer.forward(X)), one.y, 'on two threads');
  assert.deepEqual(early, one.y, `right after init (${threadsEarly} thread(s))`);
  layer.dispose();
  sf.dispose();
});

test('dispose() before the pool has started: threadsReady gives 1, no worker is left, calls still work', async () => {
  const sf = await init({ threads: 3 });
  sf.dispose();
  assert.equal(await sf.threadsReady, 1);
  assert.equal(sf.threads, 1);
  await new Promise((resolve) => { setTimeout(resolve, 200); });  // a late 'loaded' message changes nothing
  assert.equal(sf.threads, 1);
  const layer = sf.linear(W, B, K, N);
  assert.deepEqual(Array.from(layer.forward(X)), one.y);
  layer.dispose();
});

test('stress: many calls in flight on a two-thread module give the one-thread results', async () => {
  const sf = await init({ threads: 2 });
  const layer = sf.linear(W, B, K, N);
  const mlm = await sf.loadPretrained(join(DATA, 'hf/bert_mlm_f16'));
  const jobs = [];
  for (let i = 0; i < 150; i++) {
    jobs.push((async () => {
      await null;  // interleave with the other jobs on the event loop
      if (i % 3 === 0) return ['y', Array.from(layer.forward(X))];
      const e = mlm.encodeText([TEXTS[i % TEXTS.length]]);
      return [`h${i % TEXTS.length}`, Array.from(e[0].lastHiddenState)];
    })());
  }
  const single = await Promise.all(TEXTS.map(async (t) => {
    const ref = await init();
    const m = await ref.loadPretrained(join(DATA, 'hf/bert_mlm_f16'));
    const h = Array.from(m.encodeText([t])[0].lastHiddenState);
    m.dispose();
    return h;
  }));
  for (const [what, value] of await Promise.all(jobs)) {
    assert.deepEqual(value, what === 'y' ? one.y : single[Number(what.slice(1))], what);
  }
  layer.dispose();
  mlm.dispose();
  sf.dispose();
});

test('threads option: validated, auto resolved, scalar build refused', async () => {
  for (const bad of [0, 17, 1.5, '2', true, null, -1]) {
    await assert.rejects(init({ threads: bad }), (e) => e.name === 'SimdformerError' && e.code === 'invalid_argument' && /threads/.test(e.message), String(bad));
  }
  await assert.rejects(init({ threads: 2, simd: false }), (e) => e.code === 'unsupported' && /simd/.test(e.message));
  const sf = await init({ threads: 'auto' });
  const n = await sf.threadsReady;
  assert.ok(n >= 1 && n <= 4 && sf.threads === n, String(n));
  sf.dispose();
});

// A Node script that uses threads must end on its own: with or without dispose(), and when it
// ends (or disposes) before the pool has started.
const SCRIPT_ENDS = {
  'after dispose()': ['await sf.threadsReady;', 'sf.dispose();', 'done 1 2.560'],
  'without dispose()': ['await sf.threadsReady;', '', 'done 2 2.560'],
  'before its pool has started, without dispose()': ['', '', 'done 1 2.560'],
  'disposed before its pool has started': ['sf.dispose();', 'console.log(await sf.threadsReady);', '1\ndone 1 2.560'],
};
for (const [when, [first, last, expected]] of Object.entries(SCRIPT_ENDS)) {
  test(`a Node script with threads exits by itself ${when}`, () => {
    const script = `
      import { init } from ${JSON.stringify(join(DIST, 'node.mjs'))};
      const sf = await init({ threads: 2 });
      ${first}
      const layer = sf.linear(new Float32Array(${K * N}).fill(0.01), null, ${K}, ${N});
      const y = layer.forward(new Float32Array(${M * K}).fill(1));
      layer.dispose();
      ${last}
      console.log('done', sf.threads, y[0].toFixed(3));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.error, undefined, `the script did not end: ${r.error}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), expected);
  });
}

// A worker whose script cannot load (a broken or missing file, a worker the platform refuses) must
// not end the process: the glue's own handler rethrows a worker's error, which in Node is an
// uncaught exception. init() has resolved by then: threadsReady rejects with a SimdformerError,
// threadsNote says why, the instance goes on with one thread, and the script ends by itself.
test('a worker that fails to load: threadsReady rejects, one thread goes on, the script ends', () => {
  mkdirSync(join(ROOT, 'build'), { recursive: true });
  const copy = mkdtempSync(join(ROOT, 'build', 'broken-worker-'));  // inside the checkout: its node_modules resolve
  try {
    // The wasm package only (the script asks for backend 'wasm'): not the native addons.
    cpSync(DIST, copy, { recursive: true, filter: (from) => !from.includes('prebuilds') });
    writeFileSync(join(copy, 'simdformer-threads.worker.cjs'), "throw new Error('this worker script is broken');\n");
    const script = `
      import { init } from ${JSON.stringify(join(copy, 'node.mjs'))};
      const sf = await init({ threads: 2, backend: 'wasm' });
      const run = () => {
        const layer = sf.linear(new Float32Array(${K * N}).fill(0.01), null, ${K}, ${N});
        const y = layer.forward(new Float32Array(${M * K}).fill(1));
        layer.dispose();
        return y[0].toFixed(3);
      };
      const before = run();
      const why = await sf.threadsReady.then((n) => 'resolved ' + n, (e) => [e.name, e.code, e.message].join(' | '));
      console.log(before, run(), sf.threads);
      console.log(why);
      console.log(sf.threadsNote);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.error, undefined, `the script did not end: ${r.error}`);
    assert.equal(r.status, 0, r.stderr);
    const [computed, why, note] = r.stdout.trim().split('\n');
    assert.equal(computed, '2.560 2.560 1');
    assert.equal(why, 'SimdformerError | unsupported | init: a worker thread failed to start: this worker script is broken');
    assert.equal(note, 'init: a worker thread failed to start: this worker script is broken');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

// ---- browsers -----------------------------------------------------------------------------------
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function pageResult(url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 60000 });
  const result = await page.evaluate(() => window.__result);
  assert.equal(result.error, undefined, result.error);
  // Blocking waits on the page's main thread are reported as warnings, never as errors.
  assert.deepEqual(page.errors, []);
  await page.close();
  return result;
}

for (const isolated of [true, false]) {
  test(`Chromium, ${isolated ? 'cross-origin isolated page: 2 threads' : 'page without COOP/COEP: one thread and why'}`, async () => {
    const server = await startServer({ mounts: [['/', ROOT]], crossOriginIsolated: isolated });
    try {
      const r = await pageResult(`${server.url}tests/js/fixtures/threads.html?relaxedSimd=${nodeRelaxedF32}`);
      assert.equal(r.relaxedF32, nodeRelaxedF32, 'the page runs the k-loops Node runs');
      assert.equal(r.crossOriginIsolated, isolated);
      assert.equal(r.threads, isolated ? 2 : 1);
      if (isolated) assert.equal(r.note, '');
      else assert.match(r.note, /cross-origin isolated/);
      assert.deepEqual(r.y, one.y, 'same bits as Node on one thread');
      assert.deepEqual(r.yEarly, one.y, 'computed right after init, before threadsReady: the same bits');
      assert.equal(r.threadsAfterDispose, 1);
    } finally {
      await server.close();
    }
  });
}
