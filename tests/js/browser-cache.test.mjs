// loadPretrained(url, { cache: 'browser' }): a folder loaded once is kept in the Cache API and
// loads again with the server stopped; keptModels lists it, forgetModel removes it. In Node
// (no Cache API) the option is refused as unsupported, not ignored.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import * as node from '../../dist/node.mjs';
import { startServer } from '../../web/serve.mjs';
import { launch } from './chromium.mjs';
import { ROOT } from './helpers.mjs';

const FOLDER = join(ROOT, 'tests/data/hf/bert');
const TEXT = 'Hello, world!';

// The files loadPretrained reads from this folder (it holds others: golden outputs, vocab.txt);
// sentence_bert_config.json is the Transformer module's settings (embed's max_seq_length).
const READ = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'modules.json', '1_Pooling/config.json',
  'sentence_bert_config.json'];
const folderFiles = () => READ.map((name) => ({ name, size: statSync(join(FOLDER, name)).size }));

let browser;
after(async () => { await browser?.close(); });

test('Node: cache "browser" is unsupported (no Cache API), a bad value is invalid_argument', async () => {
  const sf = await init();
  const url = 'http://127.0.0.1:9/tests/data/hf/bert/';
  await assert.rejects(sf.loadPretrained(url, { cache: 'browser' }),
    (e) => e.name === 'SimdformerError' && e.code === 'unsupported' && /Cache API/.test(e.message));
  for (const bad of ['Browser', 'disk', true, 1, null, {}]) {
    await assert.rejects(sf.loadPretrained(url, { cache: bad }),
      (e) => e.name === 'SimdformerError' && e.code === 'invalid_argument' && /loadPretrained: cache must be 'browser' or 'none'/.test(e.message), String(bad));
  }
  // A folder path with cache 'none' loads as before (the option is the default).
  const model = await sf.loadPretrained(FOLDER, { cache: 'none' });
  model.dispose();
  await assert.rejects(node.keptModels(), (e) => e.code === 'unsupported');
  await assert.rejects(node.forgetModel(url), (e) => e.code === 'unsupported');
});

test('Chromium: a folder loaded with cache "browser" loads again with the server stopped, until forgotten', async () => {
  const sf = await init();
  const want = await sf.loadPretrained(FOLDER);
  const embedding = Array.from(want.embed(TEXT));
  want.dispose();
  const files = folderFiles();
  const bytes = files.reduce((sum, f) => sum + f.size, 0);

  const server = await startServer({ mounts: [['/', ROOT]] });
  let serverUp = true;
  try {
    browser = await launch();
    const page = await browser.newPage();
    await page.goto(`${server.url}tests/js/fixtures/cache.html`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
    assert.equal((await page.evaluate(() => window.__result)).error, undefined);
    const folderUrl = `${server.url}tests/data/hf/bert/`;
    // One load: {error} or {embedding, downloads: [[file, loaded, total]]}.
    const load = (url) => page.evaluate(async ([u, text]) => {
      const downloads = [];
      try {
        const m = await window.__sf.loadPretrained(u, { cache: 'browser', onProgress: (p) => { if (p.stage === 'download') downloads.push([p.file, p.loaded, p.total]); } });
        const e = Array.from(m.embed(text));
        m.dispose();
        return { embedding: e, downloads };
      } catch (e) {
        return { error: { name: e.name, code: e.code, message: e.message } };
      }
    }, [url, TEXT]);
    const kept = () => page.evaluate(() => window.__lib.keptModels());

    const first = await load(folderUrl);
    assert.equal(first.error, undefined, JSON.stringify(first.error));
    assert.deepEqual(first.embedding, embedding, 'the same numbers as Node');
    const list = await kept();
    assert.equal(list.length, 1, JSON.stringify(list));
    assert.equal(list[0].url, folderUrl);
    assert.equal(list[0].files, files.length, 'every file, also 1_Pooling/config.json, under the folder');
    assert.equal(list[0].bytes, bytes);
    assert.ok(Math.abs(Date.parse(list[0].date) - Date.now()) < 60_000, list[0].date);

    await server.close();
    serverUp = false;
    const second = await load(folderUrl);
    assert.equal(second.error, undefined, JSON.stringify(second.error));
    assert.deepEqual(second.embedding, embedding, 'bit for bit the same from the kept copy');
    const weights = second.downloads.filter(([file]) => file === 'model.safetensors');
    const size = files.find((f) => f.name === 'model.safetensors').size;
    assert.deepEqual(weights, [['model.safetensors', size, size]], 'a kept file: one progress event, loaded = total');

    await page.evaluate((u) => window.__lib.forgetModel(u), folderUrl);
    assert.deepEqual(await kept(), []);
    const third = await load(folderUrl);
    assert.equal(third.error?.name, 'SimdformerError', JSON.stringify(third));
    assert.equal(third.error.code, 'io_error');
    assert.deepEqual(page.errors.filter((e) => !/status of 404|ERR_CONNECTION_REFUSED/.test(e)), []);
  } finally {
    if (serverUp) await server.close();
  }
});

// A Cache API in memory (what the library uses of it), to check what is stored in Node.
function memoryCaches() {
  const stores = new Map();
  const open = async (name) => {
    if (!stores.has(name)) stores.set(name, new Map());
    const m = stores.get(name);
    return {
      async match(req) { const r = m.get(String(req.url ?? req)); return r?.clone(); },
      async put(req, res) { m.set(String(req.url ?? req), res.clone()); },
      async keys() { return [...m.keys()].map((url) => ({ url })); },
      async delete(req) { return m.delete(String(req.url ?? req)); },
    };
  };
  return { open, stores };
}

test('what cache "browser" stores: OK responses with their headers and the kept-at date, a record of the folder, never a 404', async () => {
  // The folder without modules.json and the files only modules.json names (1_Pooling/, the
  // Transformer module's sentence_bert_config.json): loading it asks for modules.json, a 404.
  const dir = mkdtempSync(join(tmpdir(), 'simdformer-kept-'));
  const names = READ.filter((n) => !/modules|Pooling|sentence_bert/.test(n));
  for (const n of names) copyFileSync(join(FOLDER, n), join(dir, n));
  const server = await startServer({ mounts: [['/m/', dir]] });
  const fake = memoryCaches();
  globalThis.caches = fake;
  try {
    const sf = await init();
    const url = `${server.url}m/`;
    const model = await sf.loadPretrained(url, { cache: 'browser' });
    const want = Array.from(model.embed(TEXT));
    model.dispose();
    const kept = fake.stores.get('simdformer-models');
    assert.deepEqual([...kept.keys()].map((u) => u.slice(url.length)).filter(Boolean).sort(), [...names].sort(), 'the files read, not the 404');
    const record = await kept.get(url).clone().json();
    assert.equal(kept.get(url).headers.get('x-simdformer-record'), '1', 'the folder record, under the folder URL');
    assert.deepEqual(record.files.map((f) => f.name).sort(), [...names].sort());
    assert.deepEqual(record.absent, ['modules.json'], 'the 404, recorded as absent');
    const config = kept.get(`${url}config.json`);
    assert.equal(config.headers.get('content-type'), 'application/json', "the server's headers are kept");
    assert.equal(config.headers.get('x-simdformer-folder'), url);
    assert.ok(Math.abs(Date.parse(config.headers.get('x-simdformer-kept-at')) - Date.now()) < 60_000);
    const [entry] = await node.keptModels();
    const bytes = names.reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    assert.deepEqual({ ...entry, date: undefined }, { url, files: names.length, bytes, date: undefined });
    // Offline, the kept folder loads: modules.json, which it lacks, was absent.
    await server.close();
    const again = await sf.loadPretrained(url, { cache: 'browser' });
    assert.deepEqual(Array.from(again.embed(TEXT)), want);
    again.dispose();
    assert.equal(await node.forgetModel(url.slice(0, -1)), names.length, 'the URL without its trailing slash names the same folder');
    assert.deepEqual(await node.keptModels(), []);
    await assert.rejects(sf.loadPretrained(url, { cache: 'browser' }), (e) => e.code === 'io_error');
    await assert.rejects(sf.loadPretrained(FOLDER, { cache: 'browser' }), (e) => e.code === 'invalid_argument' && /not a URL/.test(e.message));
  } finally {
    delete globalThis.caches;
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Chromium: a redirect to another origin without CORS is named as such, not as a missing file', async () => {
  const { misbehavingServer, folderFiles } = await import('./misbehaving-server.mjs');
  const other = await misbehavingServer({ folders: { '/m/': folderFiles(FOLDER) }, maxRequests: 50 });  // no CORS headers
  const server = await startServer({ mounts: [['/', ROOT]],
    answer: (path) => (path.startsWith('/redirected/') ? { status: 302, headers: { location: `${other.url}m/${path.slice('/redirected/'.length)}` } } : undefined) });
  try {
    browser ??= await launch();
    const page = await browser.newPage();
    await page.goto(`${server.url}tests/js/fixtures/cache.html`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
    const error = await page.evaluate(async (u) => {
      try {
        (await window.__sf.loadPretrained(u)).dispose();
        return null;
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      }
    }, `${server.url}redirected/`);
    assert.equal(error?.code, 'io_error', JSON.stringify(error));
    assert.match(error.message, /cannot fetch config\.json from .*redirected\/: the server redirects it .* to a place this page may not read \(another origin without CORS/);
    assert.doesNotMatch(error.message, /missing/);
    await page.close();
  } finally {
    await server.close();
    await other.close();
  }
});
