// The demo page in headless Chromium: loads without console errors, the bundled model reverses
// digit strings, its cross-attention is the anti-diagonal, toggles recompute, user files load,
// every view renders at laptop and phone widths. Screenshots go to tests/artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { startServer } from '../../web/serve.mjs';
import { launch } from '../js/chromium.mjs';
import { ROOT, DATA } from '../js/helpers.mjs';

const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
let server, browser, page;

const demo = (expr) => page.evaluate(expr);
const runs = () => demo(() => window.__demo.runs);

async function waitForRun(previous) {
  await page.waitForFunction((n) => window.__demo.runs > n || window.__demo.error, previous, { timeout: 30000 });
  const error = await demo(() => window.__demo.error);
  assert.equal(error, '', `page error: ${error}`);
}

async function typeInput(text) {
  const before = await runs();
  await page.fill('#text', text);
  await waitForRun(before);
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer({ mounts: [['/dist/', join(ROOT, 'dist')], ['/', join(ROOT, 'web')]] });
  browser = await launch({ viewport: { width: 1366, height: 900 } });
  page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the page loads with no console errors and says which build runs', async () => {
  assert.deepEqual(page.errors, []);
  assert.equal(await page.textContent('#build'), 'wasm SIMD128');
  assert.match(await page.textContent('#timing'), /^\d+\.\d\d ms$/);
});

test('the bundled model reverses several digit strings', async () => {
  for (const digits of ['0123456789', '31415', '987', '2718281828', '55']) {
    await typeInput(digits);
    const { output, correct } = await demo(() => ({ output: window.__demo.output, correct: window.__demo.correct }));
    assert.equal(output, digits.split('').reverse().join(''), `input ${digits}`);
    assert.equal(correct, true);
  }
  assert.match(await page.textContent('#output'), /✓/);
});

test('cross-attention shows the reversal: output row i attends to input position n-1-i', async () => {
  await typeInput('01234567');
  const cross = await demo(() => window.__demo.result.cross.map((heads) => heads.map((h) => ({ shape: h.shape, data: Array.from(h.data) }))));
  const n = 8;
  // Rows 0..n-1 predict the n reversed digits (row n predicts eos); count rows per head whose
  // strongest key is the mirrored input position.
  const mirrored = cross.flatMap((heads, layer) => heads.map((h, head) => {
    const [nq, nk] = h.shape;
    assert.equal(nk, n);
    let ok = 0;
    for (let q = 0; q < Math.min(n, nq); q++) {
      const row = h.data.slice(q * nk, (q + 1) * nk);
      ok += row.indexOf(Math.max(...row)) === n - 1 - q;
    }
    return { layer, head, ok };
  }));
  assert.ok(mirrored.some((m) => m.ok === n), `no cross-attention head is the anti-diagonal: ${JSON.stringify(mirrored)}`);
  // The page opens on the last layer, where the reversal head lives.
  assert.equal(await demo(() => window.__demo.layer), cross.length - 1);
  await page.locator('#heatmap').screenshot({ path: join(ARTIFACTS, 'demo-heatmap.png') });
});

test('toggles recompute the weights immediately', async () => {
  const snapshot = () => demo(() => Array.from(window.__demo.result.cross[0][0].data));
  const base = await snapshot();
  for (const [selector, value] of [['#normalize', 'relu'], ['#score', 'dot']]) {
    const n = await runs();
    await page.selectOption(selector, value);
    await waitForRun(n);
    assert.notDeepEqual(await snapshot(), base, `${selector}=${value} changed nothing`);
  }
  let n = await runs();
  await page.selectOption('#normalize', 'softmax');
  await waitForRun(n);
  n = await runs();
  await page.selectOption('#score', 'scaled-dot');
  await waitForRun(n);
  assert.deepEqual(await snapshot(), base, 'back to the defaults gives the original weights');
  // Masking a source token removes it from every cross-attention row.
  n = await runs();
  await page.click('#mask-tokens button >> nth=2');
  await waitForRun(n);
  const masked = await demo(() => window.__demo.result.cross[0].map((h) => Array.from(h.data)));
  const nk = 8;
  for (const h of masked) for (let q = 0; q < h.length / nk; q++) assert.equal(h[q * nk + 2], 0);
  n = await runs();
  await page.click('#mask-tokens button >> nth=2');
  await waitForRun(n);
  n = await runs();
  await page.check('#causal');
  await waitForRun(n);
  const enc = await demo(() => Array.from(window.__demo.result.encoder[0][0].data));
  assert.equal(enc[1], 0, 'causal encoder: position 0 cannot see position 1');
  n = await runs();
  await page.uncheck('#causal');
  await waitForRun(n);
});

test('head view, model view and the heatmap tooltip render', async () => {
  await page.selectOption('#kind', 'encoder');
  const layers = await demo(() => window.__demo.result.encoder.length);
  const heads = await demo(() => window.__demo.result.encoder[0].length);
  assert.equal(await page.locator('#modelview .cell').count(), layers * heads);
  await page.click(`#modelview .cell >> nth=${layers * heads - 1}`);
  assert.deepEqual(await demo(() => [window.__demo.layer, window.__demo.head]), [layers - 1, heads - 1]);
  const lines = await page.locator('#headview line').count();
  assert.ok(lines > 0);
  await page.uncheck('#head-toggles input >> nth=0');
  assert.ok((await page.locator('#headview line').count()) < lines, 'hiding a head removes its lines');
  await page.check('#head-toggles input >> nth=0');
  const box = await page.locator('#heatmap').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  assert.match(await page.textContent('#tooltip'), /→ .*: \d\.\d{4}/);
  await page.selectOption('#kind', 'cross');
});

test('weights export as JSON and the view as PNG', async () => {
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  assert.equal(json.suggestedFilename(), 'attention.json');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  assert.equal(png.suggestedFilename(), 'attention.png');
});

test('the random-weights playground runs every score function', async () => {
  let n = await runs();
  await page.check('input[value=random]');
  await waitForRun(n);
  const kinds = await demo(() => Object.keys(window.__demo.result).filter((k) => Array.isArray(window.__demo.result[k])));
  assert.deepEqual(kinds.sort(), ['cross', 'decoder', 'encoder']);
  n = await runs();
  await page.selectOption('#rand-h', '4');
  await waitForRun(n);
  assert.equal(await demo(() => window.__demo.result.encoder[0].length), 4);
  n = await runs();
  await page.selectOption('#score', 'additive');
  await waitForRun(n);
  await page.screenshot({ path: join(ARTIFACTS, 'demo-playground.png'), fullPage: true });
  n = await runs();
  await page.selectOption('#score', 'scaled-dot');
  await waitForRun(n);
});

test("a user's safetensors file and config load through the file picker", async () => {
  await page.check('input[value=file]');
  const n = await runs();
  await page.setInputFiles('#file-input', [join(DATA, 'encoder.safetensors'), join(DATA, 'encoder.json')]);
  await waitForRun(n);
  assert.match(await page.textContent('#file-status'), /encoder\.safetensors: encoder, d_model 12, 3 heads, 2392 parameters/);
  assert.equal(await demo(() => window.__demo.result.encoder.length), 2);
  assert.equal(await page.locator('#modelview .cell').count(), 6);
  const bad = await runs();
  await page.setInputFiles('#file-input', [join(DATA, 'encoder.json')]);
  assert.match(await page.textContent('#error'), /choose a \.safetensors file/);
  assert.equal(await runs(), bad);
});

test('the layout fits a phone screen', async () => {
  await page.check('input[value=reverse]');
  await page.waitForFunction(() => window.__demo.config?.src_vocab_size === 13);
  await typeInput('0123456789');
  await page.selectOption('#kind', 'cross');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const overflow = await demo(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than the phone screen`);
  await page.screenshot({ path: join(ARTIFACTS, 'demo-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.screenshot({ path: join(ARTIFACTS, 'demo.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
});
