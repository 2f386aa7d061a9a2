// int8 on relaxed SIMD (issue 29, VNNI): init({ relaxedSimd }) picks the int8 GEMMs' k-loop.
// In Chromium, which runs relaxed SIMD, the relaxed-SIMD kernel module must give exactly what its
// portable twin gives (the sums are exact integers) -- on 8-bit activations where the CPU's dot
// product is exact on them (AVX-VNNI), else on 7-bit ones --, stay within the int8 accuracy bound
// of the f32 model, and free everything; engines that cannot run it (Node 20, the scalar build, the
// native addon) refuse relaxedSimd: true with 'unsupported' and run the 8-bit k-loop under 'auto'.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { startServer } from '../../web/serve.mjs';
import { launch } from './chromium.mjs';
import { DATA, ROOT } from './helpers.mjs';

let browser, server, page;

before(async () => {
  server = await startServer({ mounts: [['/', ROOT]] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

async function pageResult() {
  if (page) return page;
  const p = await browser.newPage();
  await p.goto(`${server.url}tests/js/fixtures/relaxed.html`);
  await p.waitForFunction(() => window.__result !== undefined, null, { timeout: 120000 });
  const result = await p.evaluate(() => window.__result);
  assert.equal(result.error, undefined, result.error);
  // Optional files the loader probes for (modules.json, ...) are 404s, which Chromium logs.
  assert.deepEqual(p.errors.filter((e) => !/status of 404/.test(e)), []);
  await p.close();
  page = result;
  return result;
}

test('Chromium runs the relaxed-SIMD module, and it gives exactly what its portable twin gives', async () => {
  const r = await pageResult();
  assert.equal(r.relaxed.relaxedSimd, true, 'Chromium validates and runs relaxed SIMD: the module must be in the SIMD128 build');
  assert.equal(r.portable.relaxedSimd, false);
  assert.equal(r.off.relaxedSimd, false);
  assert.equal(r.off.int8ActivationBits, 8);
  assert.equal(r.f32.relaxedF32, true, "'auto' is relaxed here");
  // 8-bit activations where the CPU's dot product is exact on them (AVX-VNNI), else 7-bit; either
  // way the portable twin's sums (whose 8-bit form equals the 8-bit pair loop: int8_test.cpp).
  const bits = r.relaxed.int8ActivationBits;
  assert.equal(r.portable.int8ActivationBits, bits, "'portable' reproduces true");
  assert.deepEqual(r.relaxed.hidden, r.portable.hidden, `BERT hidden states, a batch of 8 texts (${bits}-bit activations)`);
  assert.deepEqual(r.relaxed.embeddings, r.portable.embeddings);
  assert.deepEqual(r.relaxed.ids, r.portable.ids, 'Llama (GQA, ragged panels) greedy generation');
  assert.equal(r.threads2.relaxedSimd, true, 'the threads build has the module too');
  assert.equal(r.threads2.int8ActivationBits, bits, 'the threads build finds what the one-thread build finds');
  assert.deepEqual(r.threads2.hidden, r.relaxed.hidden, '2 threads: the same bits');
  assert.deepEqual(r.threads2.embeddings, r.relaxed.embeddings);
  assert.deepEqual(r.threads2.ids, r.relaxed.ids);
  // 'auto': true's choice where it has 8-bit activations, else the 8-bit pair loop (x86 without
  // AVX-VNNI, where the relaxed dot product is no faster).
  assert.equal(r.auto.relaxedSimd, bits === 8, "'auto' runs the relaxed loop exactly where it has 8-bit activations");
  assert.equal(r.auto.int8ActivationBits, 8);
  if (r.auto.relaxedSimd) {
    assert.deepEqual(r.auto.hidden, r.relaxed.hidden, "'auto' gives its k-loop's bits");
    assert.deepEqual(r.auto.ids, r.relaxed.ids);
  }
  for (const k of ['relaxed', 'threads2', 'auto', 'portable', 'off', 'f32', 'f32threads2', 'f32off']) assert.equal(r[k].live, 0, `${k}: every model freed`);
});

test("f32 on relaxed SIMD's multiply-add in Chromium: the same bits on 1 and 2 threads, within rounding of multiply and add", async () => {
  const r = await pageResult();
  assert.equal(r.f32.relaxedF32, true, "'auto' runs the module's f32 loops in Chromium");
  assert.equal(r.f32threads2.relaxedF32, true, 'the threads build has them too');
  assert.equal(r.f32off.relaxedF32, false);
  assert.equal(r.relaxed.relaxedF32, true, 'true turns on both paths');
  assert.equal(r.off.relaxedF32, false, 'false neither');
  assert.deepEqual(r.f32threads2.hidden, r.f32.hidden, 'BERT hidden states, 2 threads: the same bits');
  assert.deepEqual(r.f32threads2.embeddings, r.f32.embeddings);
  assert.deepEqual(r.f32threads2.ids, r.f32.ids, 'Llama greedy generation (GEMV steps)');
  assert.notDeepEqual(r.f32.hidden, r.f32off.hidden, 'fused multiply-adds round differently somewhere');
  for (const what of ['embeddings', 'hidden']) {
    const worst = Math.min(...r.f32[what].map((v, i) => cosine(v, r.f32off[what][i])));
    assert.ok(worst >= 0.99999, `${what}: relaxed f32 cosine to multiply-and-add f32 ${worst}`);
  }
});

// The page's texts (fixtures/relaxed.html).
const TEXTS = ['The quick brown fox jumps over the lazy dog.', 'Hello, world!', 'a', 'Time flies like an arrow; fruit flies like a banana.',
  'Colorless green ideas sleep furiously, said the linguist to the statistician.', 'numbers: 3.14159 2.71828 1.41421',
  'Über naïve café façades', 'The end.'];

test('7-bit and 8-bit activations stay within the int8 accuracy bound of the f32 model', async () => {
  const r = await pageResult();
  const worst = (got, want) => Math.min(...got.map((v, i) => cosine(v, want[i])));
  // Where the page's CPU keeps 8 bits (AVX-VNNI), the 7-bit numerics still run in Node: 'portable'
  // without relaxed SIMD is the 7-bit loop.
  const sf = await init({ backend: 'wasm' }), portable = await init({ relaxedSimd: 'portable', backend: 'wasm' });
  assert.equal(portable.int8ActivationBits, 7, "Node has no relaxed SIMD: 'portable' is the 7-bit loop");
  const run = async (engine, weights) => {
    const m = await engine.loadPretrained(join(DATA, 'hf/bert'), { weights });
    const out = { hidden: m.encodeText(TEXTS).map((x) => Array.from(x.lastHiddenState)), embeddings: m.embed(TEXTS).map((e) => Array.from(e)),
                  int8ActivationBits: engine.int8ActivationBits };
    m.dispose();
    return out;
  };
  const node = { f32: await run(sf, 'f32'), portable: await run(portable, 'int8') };
  for (const what of ['embeddings', 'hidden']) {
    for (const name of ['relaxed', 'portable', 'off']) {
      const c = worst(r[name][what], r.f32[what]);
      assert.ok(c >= 0.999, `${what}: page ${name} int8 (${r[name].int8ActivationBits}-bit activations) cosine to f32 ${c}`);
    }
    const c = worst(node.portable[what], node.f32[what]);
    assert.ok(c >= 0.999, `${what}: Node portable int8 (7-bit activations) cosine to f32 ${c}`);
  }
  sf.dispose();
  portable.dispose();
});

test('the scalar build refuses relaxedSimd: true', async () => {
  const r = await pageResult();
  assert.match(r.scalarRelaxed, /^SimdformerError unsupported: init: relaxedSimd: true needs a SIMD128 wasm build \(true: in an engine with relaxed SIMD\)$/);
});

test('Node: relaxedSimd is refused where the engine cannot run the module, and portable runs anywhere', async () => {
  const sf = await init();
  if (!sf.relaxedSimd) {
    await assert.rejects(init({ relaxedSimd: true }), { name: 'SimdformerError', code: 'unsupported' });
  }
  await assert.rejects(init({ relaxedSimd: 'fast' }), { name: 'SimdformerError', code: 'invalid_argument' });
  if (sf.backend === 'native') {
    await assert.rejects(init({ relaxedSimd: 'portable' }), { code: 'unsupported' });
    return;
  }
  const portable = await init({ relaxedSimd: 'portable' });
  assert.equal(portable.relaxedSimd, false);
  const model = await portable.loadPretrained(join(DATA, 'hf/bert'), { weights: 'int8' });
  const e = model.embed('Hello, world!');
  model.dispose();
  const f32 = await sf.loadPretrained(join(DATA, 'hf/bert'));
  assert.ok(cosine(e, f32.embed('Hello, world!')) >= 0.999);
  f32.dispose();
});

test("Node 20's experimental relaxed SIMD runs the f32 loops: rows do not depend on the batch, results within rounding", () => {
  // relaxed_madd lowers to one vfmadd in V8 11.3 (Node 20) behind its flag: 'auto' turns the f32
  // path on there (the int8 one stays off, see the next test); false keeps multiply and add.
  const script = `
    import { init } from ${JSON.stringify(join(ROOT, 'dist/node.mjs'))};
    const texts = ['Hello, world!', 'The quick brown fox jumps over the lazy dog.', 'a b c d e f g h i j k l m n o p q r s t u v w x y z'];
    const run = async (relaxedSimd) => {
      const sf = await init({ relaxedSimd, backend: 'wasm' });
      const m = await sf.loadPretrained(${JSON.stringify(join(DATA, 'hf/bert'))});
      const batch = m.embed(texts).map((v) => Array.from(v));
      const single = texts.map((t) => Array.from(m.embed(t)));
      m.dispose();
      const gpt2 = await sf.loadPretrained(${JSON.stringify(join(DATA, 'hf/gpt2'))});
      const ids = (await gpt2.generateText(texts.slice(0, 2), { maxNewTokens: 8 })).map((g) => Array.from(g.ids));
      gpt2.dispose();
      return { relaxedF32: sf.relaxedF32, batch, single, ids, live: sf.liveBytes };
    };
    console.log(JSON.stringify({ auto: await run('auto'), off: await run(false) }));`;
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const { auto, off } = JSON.parse(out.trim().split('\n').pop());
  assert.equal(auto.relaxedF32, true);
  assert.equal(off.relaxedF32, false);
  assert.deepEqual(auto.batch, auto.single, 'a text embeds to the same bits alone and in a batch');
  assert.deepEqual(off.batch, off.single);
  assert.notDeepEqual(auto.batch, off.batch, 'fused multiply-adds round differently somewhere');
  for (let i = 0; i < auto.batch.length; i++) assert.ok(cosine(auto.batch[i], off.batch[i]) >= 0.99999);
  assert.equal(auto.live + off.live, 0);
});

test("Node 20's experimental relaxed SIMD: every tile of 1 to 13 rows within the float error bound of float64, rows alone = rows in a batch", () => {
  // The relaxed path's tiles (gemm.cpp: 2 x 3 main tiles over groups of 6 panels, the short tiles
  // of a block's last 1 to 4 rows, the GEMV's 1 x 4): every row count from 1 to 13, panel counts
  // that leave short groups (99 columns: 13 panels, groups of 6 then 1), and a depth past one
  // k-block (1100 > 1024: the accumulators are reloaded), against float64 sums computed here.
  const shapes = [[37, 99], [1100, 50], [384, 24]];
  const input = (n, seed) => Array.from({ length: n }, (_, i) => (((i + seed) * 2654435761) % 2001) / 1000 - 1);
  const script = `
    import { init } from ${JSON.stringify(join(ROOT, 'dist/node.mjs'))};
    const input = ${input.toString()};
    const out = {};
    for (const relaxedSimd of ['auto', false]) {
      const sf = await init({ relaxedSimd, backend: 'wasm' });
      const runs = [];
      for (const [K, N] of ${JSON.stringify(shapes)}) {
        const layer = sf.linear(Float32Array.from(input(N * K, 1)), Float32Array.from(input(N, 2)), K, N);
        for (let M = 1; M <= 13; M++) {
          const X = Float32Array.from(input(M * K, 3 + M));
          const batch = Array.from(layer.forward(X));
          const alone = [];
          for (let r = 0; r < M; r++) alone.push(...layer.forward(X.subarray(r * K, (r + 1) * K)));
          runs.push({ K, N, M, batch, alone });
        }
        layer.dispose();
      }
      out[String(relaxedSimd)] = { relaxedF32: sf.relaxedF32, runs, live: sf.liveBytes };
    }
    console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const result = JSON.parse(out.trim().split('\n').pop());
  assert.equal(result.auto.relaxedF32, true);
  assert.equal(result.false.relaxedF32, false);
  for (const mode of ['auto', 'false']) {
    assert.equal(result[mode].live, 0);
    for (const { K, N, M, batch, alone } of result[mode].runs) {
      assert.deepEqual(batch, alone, `${mode}: ${M} x ${K} x ${N}: each row alone gives the bits it gets in the batch`);
      // float64 reference with the classic bound for a float sum of K + 1 terms: |error| <= gamma * sum |terms|.
      const W = input(N * K, 1).map(Math.fround), B = input(N, 2).map(Math.fround), X = input(M * K, 3 + M).map(Math.fround);
      const gamma = ((K + 1) * 2 ** -24) / (1 - (K + 1) * 2 ** -24);
      for (let r = 0; r < M; r++)
        for (let j = 0; j < N; j++) {
          let ref = B[j], mag = Math.abs(B[j]);
          for (let k = 0; k < K; k++) { ref += X[r * K + k] * W[j * K + k]; mag += Math.abs(X[r * K + k] * W[j * K + k]); }
          const err = Math.abs(batch[r * N + j] - ref);
          assert.ok(err <= gamma * mag, `${mode}: ${M} x ${K} x ${N}, element (${r}, ${j}): ${batch[r * N + j]} vs ${ref}`);
        }
    }
  }
});

test("Node 20's experimental relaxed SIMD: the module's self-check turns it off or its results equal the portable twin's", () => {
  // V8 11.3 (Node 20) validates relaxed SIMD behind a flag, and its lowering of the int8 dot
  // product loses an accumulator in a 4-row tile: init()'s check against the portable loop must
  // catch that (a later engine that lowers it right must give the portable results exactly).
  const script = `
    import { init } from ${JSON.stringify(join(ROOT, 'dist/node.mjs'))};
    const texts = ['Hello, world!', 'The quick brown fox jumps over the lazy dog.'];
    const run = async (relaxedSimd) => {
      const sf = await init({ relaxedSimd, backend: 'wasm' });
      const m = await sf.loadPretrained(${JSON.stringify(join(DATA, 'hf/bert'))}, { weights: 'int8' });
      const e = m.embed(texts).map((v) => Array.from(v));
      m.dispose();
      return { relaxedSimd: sf.relaxedSimd, bits: sf.int8ActivationBits, e };
    };
    const auto = await run('auto'), twin = await run('portable');
    console.log(JSON.stringify({ relaxedSimd: auto.relaxedSimd, same: JSON.stringify(auto.e) === JSON.stringify(twin.e) }));`;
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const { relaxedSimd, same } = JSON.parse(out.trim().split('\n').pop());
  if (relaxedSimd) assert.ok(same, 'an engine that runs the module gives the results of its portable twin');
  else assert.equal(relaxedSimd, false);
});
