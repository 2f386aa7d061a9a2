// The text a user types stays on the machine (issue 27): the page keeps its view state (model,
// text, view, layer, head) in the URL's fragment, which browsers never send, so no request line,
// server log or Referer header carries it, and the worker's URL carries none of it. An old
// ?model=...&text=... link still opens, and is rewritten into the fragment at once. A name from a
// link is never looked up on Object.prototype, and a long text makes a link that reopens.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { closeDemo, openDemo } from './demo-page.mjs';

const requests = [];  // {url, headers} of every request the demo server got, in order
let server, browser, page;

before(async () => {
  ({ server, browser, page } = await openDemo(undefined, { onRequest: (req) => requests.push({ url: req.url, headers: req.rawHeaders }) }));
});
after(() => closeDemo({ server, browser }));

// The forms a text takes in a URL or a header: as is, percent-encoded, form-encoded.
const encodings = (text) => [text, encodeURIComponent(text), new URLSearchParams({ t: text }).toString().slice(2)];
const carrying = (text, list = requests) => list.filter((r) => [r.url, ...r.headers].some((v) => encodings(text).some((e) => v.includes(e))));
const linkedText = (p) => p.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('text'));

// A fresh page at url, once it has drawn its first picture; fails at once on an HTTP error.
async function open(url) {
  const p = await browser.newPage();
  const response = await p.goto(url);
  assert.equal(response.status(), 200, `${url.slice(0, 80)}... answered HTTP ${response.status()}`);
  await p.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
  return p;
}

// Types text into the page and waits until its URL holds it (in whichever part the page uses).
async function type(p, text) {
  await p.fill('#text', text);
  await p.waitForFunction((t) => decodeURIComponent(location.href.replace(/\+/g, ' ')).includes(t), text, { timeout: 30000 });
}

test('a typed text reaches no request: not a URL, not a Referer, not the worker; reload and a new tab keep it', async () => {
  const secret = 'quokka zebra 7731 тайна';
  await type(page, secret);
  await page.reload();
  await page.waitForFunction((t) => window.__demo?.ready && window.__demo.runs > 0 && document.getElementById('text').value === t, secret, { timeout: 60000 });
  const tab = await open(page.url());
  assert.equal(await tab.evaluate(() => document.getElementById('text').value), secret);
  await tab.close();
  assert.deepEqual(carrying(secret).map((r) => r.url), []);
  const workers = requests.filter((r) => new URL(r.url, 'http://x').pathname === '/worker.mjs');
  assert.ok(workers.length >= 1);
  for (const w of workers) assert.equal(w.url, '/worker.mjs');
  assert.equal(await linkedText(page), secret);
  assert.equal(new URL(page.url()).search, '');
});

test('an old ?model=bert&text=... link opens, and is moved into the fragment before anything else is requested', async () => {
  const secret = 'platypus 4412 секрет';
  const before = requests.length;
  const p = await open(`${server.url}?model=bert&text=${encodeURIComponent(secret)}&view=encoder&layer=1&head=1`);
  const s = await p.evaluate(() => ({ model: window.__demo.model, text: document.getElementById('text').value, search: location.search, layer: window.__demo.layer, head: window.__demo.head }));
  assert.deepEqual(s, { model: 'bert', text: secret, search: '', layer: 1, head: 1 });
  assert.equal(await linkedText(p), secret);
  // The link's own request carries it (sent before the page could act); nothing after it does.
  const since = requests.slice(before);
  const link = since.findIndex((r) => r.url.startsWith('/?model=bert&text='));
  assert.ok(link >= 0, 'the link was not requested');
  assert.deepEqual(carrying(secret, since.filter((_, i) => i !== link)).map((r) => r.url), []);
  await p.close();
});

test('#model=__proto__, constructor, toString (and the old ?model= form) give the default model and a picture', async () => {
  for (const path of ['#model=__proto__', '#model=constructor', '#model=toString', '?model=__proto__', '?model=constructor']) {
    const p = await open(`${server.url}${path}`);
    const s = await p.evaluate(() => ({ model: window.__demo.model, error: window.__demo.error, tokens: window.__demo.labels.encoder?.[0]?.length ?? window.__demo.labels.decoder?.[0]?.length ?? 0 }));
    assert.equal(s.model, 'gpt2', path);
    assert.equal(s.error, '', path);
    assert.ok(s.tokens > 1, `${path}: no picture`);
    await p.close();
  }
});

test('a 4,000-character Cyrillic paragraph makes a link that reopens with the text (no HTTP 431)', async () => {
  const sentence = 'Съешь же ещё этих мягких французских булок, да выпей чаю. ';
  const paragraph = sentence.repeat(Math.ceil(4000 / sentence.length)).slice(0, 4000);
  const p = await open(server.url);
  await type(p, paragraph);
  const link = p.url();
  await p.close();
  const reopened = await open(link);
  assert.equal(await reopened.evaluate(() => document.getElementById('text').value), paragraph);
  await reopened.close();
});
