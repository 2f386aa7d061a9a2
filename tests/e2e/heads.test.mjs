// Issue 34 (and issue 32's page part): the page names the measured heads of whichever bundled
// decoder is loaded (heads.json next to the model: previous-token and induction heads, with their
// scores and a sentence each), a click on one runs its sentence with that layer and head
// selected, and a model without measured heads (the playground) names none. The Llama model's
// head view groups its query heads by the key/value head they read, and it generates token by
// token with attention. Screenshots go to tests/artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { demoMounts, startServer } from '../../web/serve.mjs';
import { launch } from '../js/chromium.mjs';
import { ROOT } from '../js/helpers.mjs';

const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
const MODELS = join(ROOT, 'web', 'models');
let server, browser, page;

const demo = (expr, arg) => page.evaluate(expr, arg);
const runs = () => demo(() => window.__demo.runs);

async function waitForRun(previous) {
  await page.waitForFunction((n) => window.__demo.runs > n || window.__demo.error, previous, { timeout: 60000 });
  assert.equal(await demo(() => window.__demo.error), '');
}

async function chooseModel(value) {
  const n = await runs();
  await page.check(`input[value=${value}]`);
  await waitForRun(n);
}

// The heads heads.json labels, as the page should name them: "L1 H2 induction" (none for a
// heads.json of the older per-head layout, which labels nothing that passes).
function expectedHeads(folder) {
  const h = JSON.parse(readFileSync(join(MODELS, folder, 'heads.json'), 'utf8'));
  return Object.entries(h.labels ?? {}).flatMap(([p, list]) => list.map(([l, hd]) => `L${l} H${hd} ${p.replace(/_/g, '-')}`));
}

async function namedHeads(count) {
  // The list comes from heads.json after the model loads: wait for the line under the model view.
  await page.waitForFunction((n) => document.querySelectorAll('#heads-about button.measured-head').length === n
    && (n > 0 || document.querySelector('#heads-about').textContent.length > 0), count, { timeout: 30000 });
  return page.$$eval('#heads-about button.measured-head', (bs) => bs.map((b) => b.textContent.replace(/ [0-9.]+$/, '')));
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer({ mounts: demoMounts(ROOT) });
  browser = await launch({ viewport: { width: 1280, height: 1000 } });
  page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

for (const [choice, folder] of [['gpt2', 'fortune-gpt2'], ['llama', 'fortune-llama']]) {
  test(`${folder}: the model view names its measured heads, and a click shows each one`, async () => {
    if ((await demo(() => window.__demo.model)) !== choice) await chooseModel(choice);
    const want = expectedHeads(folder);
    console.log(`# ${folder}: heads.json labels ${want.length ? want.join(', ') : 'no head'}`);
    assert.deepEqual((await namedHeads(want.length)).sort(), want.sort());
    const buttons = await page.$$('#heads-about button.measured-head');
    for (const b of buttons) {
      const [layer, head] = await b.evaluate((e) => [Number(e.dataset.layer), Number(e.dataset.head)]);
      const n = await runs();
      await b.click();
      await waitForRun(n);
      const s = await demo(() => ({ layer: window.__demo.layer, head: window.__demo.head, text: window.__demo.text }));
      assert.deepEqual([s.layer, s.head], [layer, head]);
      assert.equal(await page.inputValue('#layer'), String(layer));
      assert.equal(await page.inputValue('#head'), String(head));
      assert.equal(await page.$eval('#modelview .cell.selected', (c) => `${c.dataset.layer}/${c.dataset.head}`), `${layer}/${head}`);
    }
    await page.screenshot({ path: join(ARTIFACTS, `heads-${folder}.png`), fullPage: true });
  });
}

test('fortune-llama: the head view groups query heads by key/value head; generation works with attention', async () => {
  if ((await demo(() => window.__demo.model)) !== 'llama') await chooseModel('llama');
  const info = await demo(() => window.__demo.info);
  assert.equal(info.architecture, 'llama');
  assert.equal(info.n_heads, 4);
  assert.equal(info.n_kv_heads, 2);
  const groups = await page.$$eval('#head-toggles .kv-group', (gs) => gs.map((g) => [g.dataset.kvHead, g.querySelectorAll('label').length]));
  assert.deepEqual(groups, [['0', 2], ['1', 2]]);
  const kvOf = await page.$$eval('#modelview .cell', (cs) => cs.map((c) => `${c.dataset.head}:${c.dataset.kvHead}`));
  assert.deepEqual([...new Set(kvOf)].sort(), ['0:0', '1:0', '2:1', '3:1']);
  let n = await runs();
  await page.fill('#text', 'The meaning of life is');
  await waitForRun(n);
  const contextLength = await demo(() => window.__demo.labels.encoder[0].length);
  n = await runs();
  await page.click('#generate');
  await page.waitForFunction((k) => window.__demo.runs > k && !document.getElementById('generate').disabled, n, { timeout: 60000 });
  assert.equal(await demo(() => window.__demo.error), '');
  const g = await demo(() => window.__demo.generated);
  assert.ok(g.length >= 1 && g.length <= 8, `${g.length} tokens`);
  g.forEach((step, i) => {
    assert.equal(step.attention.length, contextLength + i, `token ${i} attends over the prompt and the tokens before it`);
    assert.ok(Math.abs(step.attention.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  });
  assert.equal(await page.locator('#generated .gen-step').count(), g.length);
  await page.screenshot({ path: join(ARTIFACTS, 'heads-llama-generated.png'), fullPage: true });
});

test('a model without measured heads names none', async () => {
  await chooseModel('random');
  assert.equal(await page.$$eval('#heads-about button.measured-head', (bs) => bs.length), 0);
  assert.equal((await page.textContent('#heads-about')).trim(), '');
});
