// The demo page as a tool people keep open: the models it loaded are kept in the browser (Cache
// API) and listed with size, date and a delete button; a second visit works with the server
// stopped (web/sw.js keeps the page, the engine and the tokenizer library).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';

import { closeDemo, openDemo } from './demo-page.mjs';
import { ROOT } from '../js/helpers.mjs';

let server, browser, page;

before(async () => {
  ({ server, browser, page } = await openDemo());
});

after(() => closeDemo({ server, browser }));

const kept = () => page.evaluate(() => ({
  items: Array.from(document.querySelectorAll('#kept-list li'), (li) => ({ folder: li.dataset.folder, text: li.textContent })),
  total: document.getElementById('kept-total').textContent,
}));

test('the service worker keeps every file the page is served from web/', () => {
  const sw = readFileSync(join(ROOT, 'web', 'sw.js'), 'utf8');
  const paths = JSON.parse(`[${sw.match(/const PAGE = \[([\s\S]*?)\];/)[1].replace(/'/g, '"').replace(/,\s*$/, '')}]`);
  assert.ok(paths.every((p) => !p.startsWith('/')), 'paths relative to the scope (the page may be served from a sub-path)');
  const listed = new Set(paths.map((p) => `/${p.replace(/^\.\//, '')}`));
  const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? (f === 'models' ? [] : walk(join(dir, f))) : [join(dir, f)]));
  const served = walk(join(ROOT, 'web')).map((f) => `/${relative(join(ROOT, 'web'), f)}`)
    .filter((f) => /\.(mjs|css|html)$/.test(f) && f !== '/serve.mjs');
  for (const f of served) assert.ok(listed.has(f), `web/sw.js does not keep ${f}`);
});

test('loaded models are listed with size and date, and the total', async () => {
  await page.waitForFunction(() => document.querySelectorAll('#kept-list li').length >= 1, null, { timeout: 20000 });
  const n = await page.evaluate(() => window.__demo.runs);
  await page.check('input[value=bert]');
  await page.waitForFunction((r) => window.__demo.runs > r, n, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#kept-list li').length >= 2, null, { timeout: 20000 });
  const k = await kept();
  const names = k.items.map((i) => i.folder).sort();
  assert.deepEqual(names, ['/models/fortune-bert/', '/models/fortune-gpt2/']);
  // Sizes as the page writes them: fortune-gpt2 about 0.6 MB, fortune-bert about 1.9 MB.
  for (const i of k.items) assert.match(i.text, /^fortune-(bert|gpt2) · [0-2]\.\d\d MB · \w{3} \d+, \d{4}.* delete$/, i.text);
  assert.match(k.total, /^2 models, 2\.\d\d MB in all$/);
});

test('a second visit opens without the network', async () => {
  // The page's own files are kept once the service worker has installed.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(async () => (await (await caches.open('simdformer-page')).keys()).length > 20, null, { timeout: 20000 });
  await server.close();
  server = null;
  const offline = await browser.newPage();
  await offline.goto(page.url().replace(/\?.*/, '') + '?model=bert');
  await offline.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
  const s = await offline.evaluate(() => ({ error: window.__demo.error, model: window.__demo.model, tokens: window.__demo.labels.encoder[0].length }));
  assert.deepEqual([s.error, s.model], ['', 'bert']);
  assert.ok(s.tokens > 5);
  // Forgetting a model takes it off the list and out of the cache.
  await offline.click('#kept-list li[data-folder="/models/fortune-gpt2/"] button');
  await offline.waitForFunction(() => document.querySelectorAll('#kept-list li').length === 1);
  const left = await offline.evaluate(async () => (await (await caches.open('simdformer-models')).keys()).map((r) => new URL(r.url).pathname));
  assert.ok(left.length > 0 && left.every((p) => p.startsWith('/models/fortune-bert/')), left.join(' '));
  await offline.close();
});

test('served from a sub-path: kept there (one file missing keeps the rest), a 500 answered with the kept copy, metrics.json not stale, offline', async () => {
  const prefix = '/some/path/';
  const answers = new Map([[`${prefix}dist/simdformer-scalar.wasm`, { status: 500 }]]);  // never needed by this (SIMD) browser
  const sub = await openDemo(undefined, { prefix, answer: (path) => answers.get(path) });
  try {
    assert.ok(sub.server.url.endsWith(prefix), sub.server.url);
    const keys = () => sub.page.evaluate(async () => (await (await caches.open('simdformer-page')).keys()).map((r) => r.url));
    const sw = readFileSync(join(ROOT, 'web', 'sw.js'), 'utf8');
    const listed = sw.match(/const PAGE = \[([\s\S]*?)\];/)[1].match(/'[^']+'/g).length;
    let kept = [];
    for (const until = Date.now() + 30000; kept.length < listed - 1 && Date.now() < until;) {
      await new Promise((ok) => setTimeout(ok, 200));
      kept = await keys();
    }
    assert.equal(kept.length, listed - 1, 'every page file but the one the server failed');
    assert.ok(kept.every((u) => u.startsWith(sub.server.url)), kept.join(' '));
    assert.ok(!kept.some((u) => u.endsWith('simdformer-scalar.wasm')));

    answers.set(`${prefix}style.css`, { status: 500 });
    const css = await sub.page.evaluate(async () => { const r = await fetch('style.css'); return { status: r.status, failed: r.headers.get('x-simdformer-network-failed'), length: (await r.text()).length }; });
    assert.deepEqual({ ...css, length: css.length > 100 }, { status: 200, failed: 'HTTP 500', length: true }, 'the kept copy, saying the network failed');

    // The server's metrics.json changes: the next visit says so, not the kept copy.
    const metrics = JSON.stringify({ held_out: { perplexity: 1.5, tokens: 7 } });
    answers.set(`${prefix}models/fortune-gpt2/metrics.json`, { status: 200, body: metrics, type: 'application/json' });
    const again = await sub.browser.newPage();
    await again.goto(sub.server.url);
    await again.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
    await again.waitForFunction(() => /perplexity 1\.5 on 7 tokens/.test(document.getElementById('model-about').textContent), null, { timeout: 10000 })
      .catch(async () => assert.fail(`stale: ${await again.textContent('#model-about')}`));
    await again.close();

    await sub.server.close();
    sub.server = null;
    const offline = await sub.browser.newPage();
    await offline.goto(`${sub.page.url().replace(/[?#].*/, '')}`);
    await offline.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
    assert.equal(await offline.evaluate(() => window.__demo.error), '');
    await offline.close();
  } finally {
    await closeDemo(sub);
  }
});
