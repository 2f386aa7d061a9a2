// loadPretrained(url) against a local server that misbehaves as real ones do (resets, 500s, gzip,
// truncated bodies, ETags), with and without cache 'browser' (a Cache API in memory): only a 404
// means absent, encoded bodies load, a folder is kept whole or not at all and revalidated, cache
// keys are defined, credentials never reach a message, an abort rejects with its reason.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';

import { init } from '../../dist/node.mjs';
import * as node from '../../dist/node.mjs';
import { ROOT } from './helpers.mjs';
import { folderFiles, memoryCaches, misbehavingServer } from './misbehaving-server.mjs';

const BERT = join(ROOT, 'tests/data/hf/bert');
const OTHER = join(ROOT, 'tests/data/hf/bert_relu_unigram');
const TEXT = 'Hello, world!';

let sf;
let want;       // bert's embedding of TEXT, from the folder on disk
let wantOther;  // the other revision's
let fake;
let server;
before(async () => {
  sf = await init();
  for (const [dir, set] of [[BERT, (e) => { want = e; }], [OTHER, (e) => { wantOther = e; }]]) {
    const m = await sf.loadPretrained(dir);
    set(Array.from(m.embed(TEXT)));
    m.dispose();
  }
});
afterEach(async () => {
  delete globalThis.caches;
  await server?.close();
  server = undefined;
});
after(() => { delete globalThis.caches; });

const withCache = () => { fake = memoryCaches(); globalThis.caches = fake; };
const start = async (misbehave, folders = { '/m/': folderFiles(BERT) }) => { server = await misbehavingServer({ folders, misbehave }); return server; };
const embedOf = async (url, options = {}) => {
  const m = await sf.loadPretrained(url, options);
  try { return Array.from(m.embed(TEXT)); } finally { m.dispose(); }
};
const ioError = (...mentions) => (e) => e.name === 'SimdformerError' && e.code === 'io_error'
  && mentions.every((m) => e.message.includes(m)) || assert.fail(`${e.code}: ${e.message}`);

test('a 500 or a reset on an optional file fails the load naming the file; nothing is kept', async () => {
  for (const [file, act, status] of [['1_Pooling/config.json', { status: 500 }, 'HTTP 500'], ['modules.json', { status: 503 }, 'HTTP 503'],
    ['tokenizer_config.json', { reset: true }, 'tokenizer_config.json'], ['1_Pooling/config.json', { reset: true }, 'cannot fetch']]) {
    for (const cache of ['none', 'browser']) {
      if (cache === 'browser') withCache();
      const s = await start((name) => (name === file ? act : undefined));
      await assert.rejects(sf.loadPretrained(`${s.url}m/`, { cache }), ioError(file, status), `${file} ${JSON.stringify(act)} ${cache}`);
      if (cache === 'browser') assert.deepEqual(await node.keptModels(), [], 'a folder whose load failed is not kept');
      await s.close();
      delete globalThis.caches;
    }
  }
});

test('a 404 or 410 on an optional file is absent: the folder loads (and, kept, loads offline the same)', async () => {
  withCache();
  const s = await start((name) => (name === 'modules.json' ? { status: 410 } : name === '1_Pooling/config.json' ? { status: 404 } : undefined));
  const online = await embedOf(`${s.url}m/`, { cache: 'browser' });
  assert.deepEqual(online, want, 'mean pooling, as both the default and the folder say');
  const [kept] = await node.keptModels();
  assert.equal(kept.files, 4, 'config, weights, tokenizer, tokenizer_config');
  await s.close();
  assert.deepEqual(await embedOf(`${s.url}m/`, { cache: 'browser' }), want);
});

test('gzip- and br-encoded responses load, with and without the cache; totals are not the encoded length', async () => {
  for (const [cache, encoding] of [['none', 'gzip'], ['browser', 'gzip'], ['none', 'br']]) {
    if (cache === 'browser') withCache();
    const s = await start(() => ({ [encoding]: true }));
    const events = [];
    const got = await embedOf(`${s.url}m/`, { cache, onProgress: (p) => { if (p.stage === 'download') events.push(p); } });
    assert.deepEqual(got, want, `${cache} ${encoding}`);
    for (const p of events) assert.ok(p.total === 0 || p.total >= p.loaded, JSON.stringify(p));
    if (cache === 'browser') {
      const config = fake.stores.get('simdformer-models').get(`${s.url}m/config.json`);
      assert.equal(config.headers.get('content-encoding'), null, 'kept decoded');
      assert.equal(Number(config.headers.get('content-length')), (await config.clone().arrayBuffer()).byteLength);
      await s.close();
      assert.deepEqual(await embedOf(`${s.url}m/`, { cache }), want, 'the kept decoded copy loads offline');
    }
    await s.close();
  }
});

test('a truncated model.safetensors or a missing tokenizer.json is never kept; the next load asks the server', async () => {
  withCache();
  let act = (name) => (name === 'model.safetensors' ? { truncate: 1000 } : undefined);
  const s = await start((name) => act(name));
  await assert.rejects(sf.loadPretrained(`${s.url}m/`, { cache: 'browser' }), (e) => e.name === 'SimdformerError');
  assert.deepEqual(await node.keptModels(), []);
  act = (name) => (name === 'tokenizer.json' ? { status: 404 } : undefined);
  await assert.rejects(sf.loadPretrained(`${s.url}m/`, { cache: 'browser' }), ioError('tokenizer.json'));
  assert.deepEqual(await node.keptModels(), [], 'a 404 on a needed file: not kept');
  act = () => undefined;
  const before = s.log.length;
  assert.deepEqual(await embedOf(`${s.url}m/`, { cache: 'browser' }), want);
  assert.ok(s.log.slice(before).some((r) => r.name === 'model.safetensors'), 'the weights were fetched again');
  assert.equal((await node.keptModels()).length, 1);
});

test('a kept folder is revalidated with one conditional request, replaced whole when it changed, used offline (and says so)', async () => {
  withCache();
  const s = await start();
  const url = `${s.url}m/`;
  const cacheEvents = [];
  const load = () => embedOf(url, { cache: 'browser', onProgress: (p) => { if (p.stage === 'cache') cacheEvents.push(p); } });
  assert.deepEqual(await load(), want);
  let before = s.log.length;
  assert.deepEqual(await load(), want);
  const asked = s.log.slice(before);
  assert.equal(asked.length, 1, `one request for the kept folder: ${asked.map((r) => r.name)}`);
  assert.equal(asked[0].name, 'model.safetensors');
  assert.match(asked[0].headers['if-none-match'] ?? '', /^".+"$/, 'a conditional request with the kept ETag');
  assert.deepEqual(cacheEvents.map((p) => p.state), ['unchanged']);

  s.state.folders = { '/m/': folderFiles(OTHER) };  // the server's folder is now another revision
  before = s.log.length;
  assert.deepEqual(await load(), wantOther, 'the new revision, not the kept one');
  assert.equal(cacheEvents.at(-1).state, 'changed');
  assert.equal(s.log.slice(before).filter((r) => r.name === 'model.safetensors').length, 1, 'the weights are not fetched twice');
  const [kept] = await node.keptModels();
  assert.equal(kept.files, 4, 'the new revision whole (it has no modules.json, no 1_Pooling): nothing of the old one stays');
  assert.deepEqual([...fake.stores.get('simdformer-models').keys()].filter((u) => /modules|Pooling/.test(u)), []);

  await s.close();
  assert.deepEqual(await load(), wantOther, 'offline: the kept copy');
  assert.equal(cacheEvents.at(-1).state, 'offline');
  assert.match(cacheEvents.at(-1).reason, /model\.safetensors/);
});

test('cache keys: the query names the folder, the fragment does not; each form loads, lists and forgets', async () => {
  withCache();
  const s = await start(undefined, { '/m/q1/': folderFiles(BERT), '/m/q2/': folderFiles(BERT) });
  assert.deepEqual(await embedOf(`${s.url}m/q1/?v=1`, { cache: 'browser' }), want);
  assert.deepEqual(await embedOf(`${s.url}m/q1/?v=2`, { cache: 'browser' }), want);
  assert.ok(s.log.filter((r) => r.name === 'config.json').every((r) => /^\?v=[12]$/.test(r.query)), 'each file is asked for with the folder query');
  assert.deepEqual(await embedOf(`${s.url}m/q1/#rev2`, { cache: 'browser' }), want);
  assert.deepEqual(await embedOf(`${s.url}m/q2?v=1`, { cache: 'browser' }), want, 'no trailing slash before the query: still the folder m/q2/');
  const urls = (await node.keptModels()).map((m) => m.url).sort();
  assert.deepEqual(urls, [`${s.url}m/q1/`, `${s.url}m/q1/?v=1`, `${s.url}m/q1/?v=2`, `${s.url}m/q2/?v=1`]);
  const before = s.log.length;
  await embedOf(`${s.url}m/q1/#rev3`, { cache: 'browser' });
  assert.deepEqual(s.log.slice(before).map((r) => r.name), ['model.safetensors'], 'the fragment names the same kept folder (one revalidation)');
  // Seven files: config, weights, tokenizer and its config, modules.json, the Pooling and the
  // Transformer module's settings (sentence_bert_config.json).
  assert.equal(await node.forgetModel(`${s.url}m/q1/?v=2`), 7, "forgetModel('m/q1/?v=2') removes that folder's seven files");
  assert.deepEqual((await node.keptModels()).map((m) => m.url).sort(), [`${s.url}m/q1/`, `${s.url}m/q1/?v=1`, `${s.url}m/q2/?v=1`]);
  assert.equal(await node.forgetModel(`${s.url}m/q2?v=1#x`), 7);
});

test('forgetModel during a load leaves no half-kept folder listed', async () => {
  withCache();
  const s = await start();
  const url = `${s.url}m/`;
  // The cache forgets the folder while the load writes its second file.
  const open = fake.open;
  let puts = 0;
  fake.open = async (name) => {
    const cache = await open(name);
    return { ...cache, async put(req, res) { if (++puts === 2) await node.forgetModel(url); return cache.put(req, res); } };
  };
  assert.deepEqual(await embedOf(url, { cache: 'browser' }), want);
  fake.open = open;
  const list = await node.keptModels();
  assert.ok(list.length === 0 || list[0].files === 7, `nothing half kept: ${JSON.stringify(list)}`);
  assert.deepEqual(await embedOf(url, { cache: 'browser' }), want, 'and the next load is whole again');
  assert.equal((await node.keptModels())[0].files, 7);
});

test('a user name and password in the URL never appear in a message', async () => {
  const s = await start();
  const url = `http://user:secret@${s.url.slice('http://'.length)}m/`;
  for (const cache of ['none', 'browser']) {
    if (cache === 'browser') withCache();
    await assert.rejects(sf.loadPretrained(url, { cache }), (e) => e.name === 'SimdformerError' && !/secret|user:/.test(e.message)
      && e.message.includes(`${s.url}m/`) || assert.fail(e.message));
  }
  await assert.rejects(node.forgetModel(url), (e) => e.name === 'SimdformerError' && !/secret/.test(e.message));
  assert.equal(s.log.length, 0);
});

test('an abort rejects with the signal\'s reason, also while asking whether pytorch_model.bin exists', async () => {
  // A folder with only pytorch_model.bin: the load asks (HEAD) whether it is there; the server is slow.
  const files = { 'config.json': folderFiles(BERT)['config.json'], 'pytorch_model.bin': Buffer.alloc(8) };
  const controller = new AbortController();
  const reason = new Error('the user went away');
  const s = await start((name) => {
    if (name !== 'pytorch_model.bin') return undefined;
    setTimeout(() => controller.abort(reason), 20);
    return { delay: 2000 };
  }, { '/m/': files });
  await assert.rejects(sf.loadPretrained(`${s.url}m/`, { signal: controller.signal }), (e) => e === reason || assert.fail(`${e.code}: ${e.message}`));
});

test('a redirect to another origin is followed; the reason a fetch failed is named, not "missing"', async () => {
  const target = await misbehavingServer({ folders: { '/m/': folderFiles(BERT) } });
  try {
    const s = await start((name) => ({ redirect: `${target.url}m/${name}` }));
    assert.deepEqual(await embedOf(`${s.url}m/`), want, 'Node has no CORS: the redirect is followed');
    await target.close();
    await assert.rejects(sf.loadPretrained(`${s.url}m/`), ioError('cannot fetch config.json', 'redirects it (HTTP 302)'));
  } finally {
    await target.close();
  }
});

test('a full disk while the folder is written keeps nothing (no half folder, no leftover files); the load still succeeds', async () => {
  withCache();
  const s = await start();
  const open = fake.open;
  let puts = 0;
  fake.open = async (name) => {
    const cache = await open(name);
    return { ...cache, async put(req, res) { if (++puts === 3) throw new DOMException('quota', 'QuotaExceededError'); return cache.put(req, res); } };
  };
  assert.deepEqual(await embedOf(`${s.url}m/`, { cache: 'browser' }), want);
  fake.open = open;
  assert.deepEqual(await node.keptModels(), []);
  assert.deepEqual([...fake.stores.get('simdformer-models').keys()], [], 'the two files written before the disk filled are removed');
});
