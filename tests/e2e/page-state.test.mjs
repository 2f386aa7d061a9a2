// The demo page describes the model that is loaded, never the one before it: five models in turn
// (bundled GPT-2, bundled BERT, a dropped BERT folder, a dropped GPT-2 folder, the torch-dialect
// digit reversal), and after each one the Model choice, the note under it, the input hint, the file
// status, the measured-pattern line and the output belong to that model alone. Folders are dropped
// while another Model choice is marked, as a user who drags a folder onto the page does.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { demoMounts, startServer } from '../../web/serve.mjs';
import { launch } from '../js/chromium.mjs';
import { DATA, ROOT } from '../js/helpers.mjs';

let server, browser, page;
const demo = (expr, arg) => page.evaluate(expr, arg);

before(async () => {
  server = await startServer({ mounts: demoMounts(ROOT) });
  browser = await launch();
  page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function waitForRun(previous) {
  await page.waitForFunction((n) => window.__demo.runs > n || window.__demo.error, previous, { timeout: 30000 });
  assert.equal(await demo(() => window.__demo.error), '');
}

// Everything the page says about the loaded model.
const snapshot = () => demo(() => {
  const text = (id) => document.getElementById(id).textContent;
  const info = window.__demo.info;
  const layers = window.__demo.result?.[window.__demo.kind] ?? [];
  return {
    choice: document.querySelector('input[name=model]:checked')?.value,
    about: text('model-about'), help: text('input-help'), heads: text('heads-about'), status: text('file-status'),
    output: text('output'), fileOptionsShown: !document.getElementById('file-options').hidden,
    layers: info?.n_layers ?? layers.length, headsPerLayer: info?.n_heads ?? layers[0]?.length ?? 0,
  };
});

function dropFolder(dir) {
  const files = readdirSync(dir).map((name) => ({ name, base64: readFileSync(join(dir, name)).toString('base64') }));
  return demo((list) => {
    const transfer = new DataTransfer();
    for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    const zone = document.getElementById('drop');
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files);
}

// Every head the measured-pattern line names exists in the loaded model.
function assertHeadsExist(s) {
  for (const [, l, h] of s.heads.matchAll(/L(\d+) H(\d+)/g)) {
    assert.ok(Number(l) < s.layers && Number(h) < s.headsPerLayer, `"${s.heads}" names L${l} H${h}; the model has ${s.layers} × ${s.headsPerLayer}`);
  }
}

// The model-specific lines of the previous model are gone (a line may only repeat when both
// models say nothing there).
function assertNothingStale(previous, now) {
  for (const field of ['about', 'help', 'heads', 'status', 'output']) {
    if (previous[field]) assert.notEqual(now[field], previous[field], `${field} still reads "${previous[field]}"`);
  }
  assertHeadsExist(now);
}

const steps = [
  ['bundled GPT-2', async () => {}, (s) => {
    assert.equal(s.choice, 'gpt2');
    assert.match(s.about, /perplexity/);
    assert.match(s.help, /GPT-2 sees each token and only the tokens before it/);
  }],
  ['bundled BERT', async () => {
    const n = await demo(() => window.__demo.runs);
    await page.check('input[value=bert]');
    await waitForRun(n);
  }, (s) => {
    assert.equal(s.choice, 'bert');
    assert.match(s.about, /masked-token accuracy/);
    assert.match(s.help, /BERT sees the whole sentence/);
  }],
  ['a dropped BERT folder', async () => {
    const n = await demo(() => window.__demo.runs);
    await dropFolder(join(DATA, 'hf', 'bert_mlm_f16'));
    await waitForRun(n);
  }, (s) => {
    assert.equal(s.choice, 'file');
    assert.ok(s.fileOptionsShown, 'the file options (and its status) are shown');
    assert.equal(s.about, '');
    assert.equal(s.heads, '');
    assert.match(s.status, /bert, 2 layers × 4 heads/);
    assert.match(s.help, /\[MASK\] where a word is missing: BERT sees the whole sentence/);
  }],
  ['a dropped GPT-2 folder', async () => {
    const n = await demo(() => window.__demo.runs);
    await page.check('input[value=bert]');  // dropped while the bundled BERT is marked
    await waitForRun(n);
    const m = await demo(() => window.__demo.runs);
    await dropFolder(join(DATA, 'hf', 'gpt2'));
    await waitForRun(m);
  }, (s) => {
    assert.equal(s.choice, 'file');
    assert.equal(s.about, '');
    assert.equal(s.heads, '');
    assert.match(s.status, /gpt2, \d+ layers/);
    assert.match(s.help, /GPT-2 sees each token and only the tokens before it/);
    assert.doesNotMatch(s.output, /MASK|guesses/);
  }],
  ['the torch-dialect digit reversal', async () => {
    const n = await demo(() => window.__demo.runs);
    await page.check('input[value=reverse]');
    await waitForRun(n);
  }, (s) => {
    assert.equal(s.choice, 'reverse');
    assert.equal(s.about, '');
    assert.equal(s.heads, '');
    assert.equal(s.status, '');
    assert.match(s.help, /digits/);
    assert.match(s.output, /→ \d+/);
  }],
];

test('five models in turn: every label, hint, note and head line describes the loaded one', async () => {
  let previous = null;
  for (const [name, load, check] of steps) {
    await load();
    // The bundled models' notes arrive a moment after the model (metrics.json, heads.json).
    if (name.startsWith('bundled')) await page.waitForFunction(() => document.getElementById('model-about').textContent !== '', null, { timeout: 10000 });
    const now = await snapshot();
    try {
      check(now);
      if (previous) assertNothingStale(previous, now);
    } catch (e) {
      e.message = `${name}: ${e.message}\n${JSON.stringify(now, null, 1)}`;
      throw e;
    }
    previous = now;
  }
});
