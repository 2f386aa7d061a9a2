// The browser entry in headless Chromium on 127.0.0.1 computes what Node computes; a Vite build
// of a tiny app that depends on the packed tarball works too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

async function pageResult(url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
  const result = await page.evaluate(() => window.__result);
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(page.errors, []);
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

test('a Vite build of an app using the packed package runs in Chromium', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'simdformer-vite-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vite-consumer', private: true, type: 'module' }));
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
      window.__result = { simd: sf.simd, tokens: g.map((r) => Array.from(r.tokens)) };
    `);
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: dir, stdio: 'inherit' });
    writeFileSync(join(dir, 'dist', 'model.safetensors'), model);
    const built = await startServer({ mounts: [['/', join(dir, 'dist')]] });
    try {
      const r = await pageResult(built.url);
      assert.equal(r.simd, true);
      assert.deepEqual(r.tokens, expected.tokens);
    } finally {
      await built.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
