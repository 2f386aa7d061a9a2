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

test('gzip-encoded responses load, with and without the cache; totals are not the encoded length', async () => {
  for (const cache of ['none', 'browser']) {
    if (cache === 'browser') withCache();
    const s = await start(() => ({ gzip: true }));
    const events = [];
    const got = await embedOf(`${s.url}m/`, { cache, onProgress: (p) => { if (p.stage === 'download') events.push(p); } });
    assert.deepEqual(got, want, cache);
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
