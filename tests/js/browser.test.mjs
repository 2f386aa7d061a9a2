// The browser entry in headless Chromium on 127.0.0.1 computes what Node computes; a Vite build
// of a tiny app that depends on the packed tarball works too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import { startServer } from '../../web/serve.mjs';
import { launch } from './chromium.mjs';
import { ROOT, configOf, maxAbsDiff, modelPath } from './helpers.mjs';

let browser, server, expected;

before(async () => {
  const sf = await init();
  const model = await sf.loadModel(modelPath('seq2seq'), configOf('seq2seq'));
  const g = model.generate([[3, 4, 5, 6, 7, 8], [9, 10, 3, 4]], { maxLength: 8, returnAttention: true });
  const e = model.encode([3, 4, 5, 6]);
  expected = { tokens: g.map((r) => Array.from(r.tokens)), cross: g[0].crossAttentions[1][0].data, output: e.output };
  model.dispose();
  server = await startServer({ mounts: [['/', ROOT]] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// allow404: optional files a loader probes for (modules.json, ...) are 404s, which Chromium logs.
async function pageResult(url, { allow404 = false } = {}) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
  const result = await page.evaluate(() => window.__result);
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(page.errors.filter((e) => !(allow404 && /status of 404/.test(e))), []);
  await page.close();
  return result;
}

for (const simd of ['auto', 'off']) {
  test(`browser entry (${simd === 'off' ? 'scalar' : 'SIMD'}) computes the same numbers as Node`, async () => {
    const r = await pageResult(`${server.url}tests/js/fixtures/browser.html?simd=${simd}`);
    assert.equal(r.simd, simd !== 'off');
    assert.equal(r.arch, simd === 'off' ? 'scalar' : 'wasm');
    assert.deepEqual(r.tokens, expected.tokens);
    assert.ok(maxAbsDiff(Float32Array.from(r.cross), expected.cross) < 1e-5);
    assert.ok(maxAbsDiff(Float32Array.from(r.output), expected.output) < 1e-5);
  });
}

for (const simd of ['auto', 'off']) {
  test(`Hugging Face folders in the browser (${simd === 'off' ? 'scalar' : 'SIMD'}): from a URL and from dropped files, as in Node`, async () => {
    const sf = await init({ simd: simd !== 'off' });
    const texts = ['The quick brown fox jumps over the lazy [MASK].', 'Hello, world!'];
    const mlm = await sf.loadPretrained(join(ROOT, 'tests/data/hf/bert_mlm_f16'));
    const want = mlm.encodeText(texts, { returnAttention: true });
    const fill = mlm.fillMask(texts[0], { topK: 3 });
    mlm.dispose();
    const bert = await sf.loadPretrained(join(ROOT, 'tests/data/hf/bert'));
    const embedding = bert.embed(texts[1]);
    bert.dispose();
    const r = await pageResult(`${server.url}tests/js/fixtures/text.html?simd=${simd}`, { allow404: true });
    assert.equal(r.simd, simd !== 'off');
    assert.deepEqual(r.stages, ['start', 'download', 'load', 'done']);
    assert.deepEqual(r.tokens, want[0].tokens);
    assert.deepEqual(r.offsets, want[0].offsets);
    assert.ok(maxAbsDiff(Float32Array.from(r.hidden), want[0].lastHiddenState) === 0, 'same build, same numbers');
    assert.ok(maxAbsDiff(Float32Array.from(r.attention), want[1].attentions[1][2].data) === 0);
    const predicted = fill.masks[0].predictions;
    assert.deepEqual(r.predictions.map(([id]) => id), predicted.map((p) => p.id));
    r.predictions.forEach(([, score], i) => assert.ok(Math.abs(score - predicted[i].score) < 1e-12, 'Math.exp may differ in the last bit between engines'));
    assert.ok(maxAbsDiff(Float32Array.from(r.embedding), embedding) === 0);
    assert.equal(r.live, 0, 'both models freed');
  });
}

test('a Vite build of an app using the packed package runs in Chromium', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'simdformer-vite-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vite-consumer', private: true, type: 'module' }));
    // The threaded build starts its workers from an ES module; Vite bundles workers as IIFE unless told (README).
    writeFileSync(join(dir, 'vite.config.js'), "export default { worker: { format: 'es' } };\n");
    execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', join(dir, tarball)], { cwd: dir, stdio: 'inherit' });
    const model = readFileSync(modelPath('seq2seq'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="/main.js"></script></body></html>');
    writeFileSync(join(dir, 'main.js'), `
      import { init } from 'simdformer';
      const sf = await init();
      const config = ${JSON.stringify(configOf('seq2seq'))};
      const bytes = new Uint8Array(await (await fetch('/model.safetensors')).arrayBuffer());
      const model = await sf.loadModel(bytes, config);
      const g = model.generate([[3, 4, 5, 6, 7, 8], [9, 10, 3, 4]], { maxLength: 8 });
      const text = await sf.loadPretrained(new URL('/hf/bert/', location.href));  // the bundler resolves the lazy tokenizer import
      window.__result = { simd: sf.simd, relaxedF32: sf.relaxedF32, tokens: g.map((r) => Array.from(r.tokens)), embedding: Array.from(text.embed('Hello, world!')) };
    `);
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: dir, stdio: 'inherit' });
    writeFileSync(join(dir, 'dist', 'model.safetensors'), model);
    cpSync(join(ROOT, 'tests/data/hf/bert'), join(dir, 'dist', 'hf', 'bert'), { recursive: true });
    const built = await startServer({ mounts: [['/', join(dir, 'dist')]] });
    try {
      const r = await pageResult(built.url, { allow404: true });
      assert.equal(r.simd, true);
      assert.deepEqual(r.tokens, expected.tokens);
      const bert = await (await init()).loadPretrained(join(ROOT, 'tests/data/hf/bert'));
      // An app's default init() runs the f32 GEMMs on relaxed SIMD's multiply-add in Chromium, which
      // Node 20 has not: the same numbers within float rounding then, else bit for bit.
      assert.equal(r.relaxedF32, true, "Chromium runs relaxed SIMD: 'auto' turns the f32 path on");
      assert.ok(maxAbsDiff(Float32Array.from(r.embedding), bert.embed('Hello, world!')) <= (r.relaxedF32 ? 1e-5 : 0));
      bert.dispose();
    } finally {
      await built.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
