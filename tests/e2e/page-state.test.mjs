// The demo page describes the model that is loaded, never the one before it: five models in turn
// (bundled GPT-2, bundled BERT, a dropped BERT folder, a dropped GPT-2 folder, the torch-dialect
// digit reversal), and after each one the Model choice, the note under it, the input hint, the file
// status, the measured-pattern line and the output belong to that model alone. Folders are dropped
// while another Model choice is marked, as a user who drags a folder onto the page does.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { closeDemo, openDemo } from './demo-page.mjs';
import { DATA, ROOT } from '../js/helpers.mjs';

let server, browser, page;
const demo = (expr, arg) => page.evaluate(expr, arg);

before(async () => {
  ({ server, browser, page } = await openDemo());
});

after(() => closeDemo({ server, browser }));

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

test('a link reproduces a view: model, text, view, layer and head in the URL fragment, and back', async () => {
  const text = 'A stitch in [MASK] saves nine.';
  const link = `${server.url}#model=bert&text=${encodeURIComponent(text)}&view=encoder&layer=2&head=3`;
  const view = (p) => p.evaluate(() => ({
    choice: document.querySelector('input[name=model]:checked')?.value, text: document.getElementById('text').value,
    layer: window.__demo.layer, head: window.__demo.head, kind: window.__demo.kind, hash: location.hash,
    title: document.getElementById('heatmap-title').textContent,
    map: Array.from(window.__demo.result.encoder[window.__demo.layer][window.__demo.head].data),
  }));
  const open = async (url) => {
    const p = await browser.newPage();
    await p.goto(url);
    await p.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0 && window.__demo.model === 'bert', null, { timeout: 60000 });
    return p;
  };
  const first = await open(link);
  let v = await view(first);
  assert.deepEqual([v.choice, v.text, v.kind, v.layer, v.head], ['bert', text, 'encoder', 2, 3]);
  assert.match(v.title, /layer 2, head 3/);
  // Choosing another head rewrites the URL in place.
  await first.selectOption('#head', '1');
  await first.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('head') === '1');
  v = await view(first);
  const params = new URLSearchParams(v.hash.slice(1));
  assert.deepEqual(Object.fromEntries(params), { model: 'bert', text, view: 'encoder', layer: '2', head: '1' });
  // The rewritten URL opens the same picture in a fresh page.
  const second = await open(`${server.url}${v.hash}`);
  const w = await view(second);
  assert.deepEqual([w.choice, w.text, w.kind, w.layer, w.head], ['bert', text, 'encoder', 2, 1]);
  assert.deepEqual(w.map, v.map);
  // Out-of-range values are clamped to what the model has, not an error.
  const third = await open(`${server.url}#model=bert&layer=99&head=-4&view=cross`);
  const x = await view(third);
  assert.deepEqual([x.kind, x.layer, x.head], ['encoder', 3, 0]);
  for (const p of [first, second, third]) await p.close();
});

// A BERT folder that takes 512 tokens: the 2-layer fixture with its position table grown to 512
// rows (the first 40 kept) and its limits raised.
function bert512Folder() {
  const src = join(DATA, 'hf', 'bert');
  const dir = mkdtempSync(join(tmpdir(), 'simdformer-bert512-'));
  const config = JSON.parse(readFileSync(join(src, 'config.json'), 'utf8'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, max_position_embeddings: 512 }));
  const tc = JSON.parse(readFileSync(join(src, 'tokenizer_config.json'), 'utf8'));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...tc, model_max_length: 512 }));
  copyFileSync(join(src, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  const bytes = readFileSync(join(src, 'model.safetensors'));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const tensors = [];
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    let data = bytes.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]);
    let shape = t.shape;
    if (name === 'embeddings.position_embeddings.weight') {
      const grown = new Float32Array(512 * shape[1]).map((_, i) => 0.02 * Math.sin(i * 0.37));
      grown.set(new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
      data = Buffer.from(grown.buffer);
      shape = [512, shape[1]];
    }
    tensors.push({ name, dtype: t.dtype, shape, data });
  }
  let offset = 0;
  const out = { __metadata__: header.__metadata__ };
  for (const t of tensors) { out[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.length] }; offset += t.data.length; }
  const text = Buffer.from(JSON.stringify(out));
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(text.length));
  writeFileSync(join(dir, 'model.safetensors'), Buffer.concat([size, text, ...tensors.map((t) => t.data)]));
  return dir;
}

test('512 tokens: every layer and head drawn on canvases, with hover values, zoom and scrolling', async () => {
  const dir = bert512Folder();
  try {
    await page.check('input[value=file]');
    let n = await demo(() => window.__demo.runs);
    await page.setInputFiles('#file-input', readdirSync(dir).map((f) => join(dir, f)));
    await waitForRun(n);
    n = await demo(() => window.__demo.runs);
    const steps = await demo(() => window.__demo.stepRuns);
    await page.fill('#text', Array.from({ length: 150 }, (_, i) => `the cat number ${i} sat on the mat`).join(' '));
    await waitForRun(n);
    await page.waitForFunction((s) => window.__demo.stepRuns > s, steps, { timeout: 30000 });
    const s = await demo(() => ({
      tokens: window.__demo.labels.encoder[0].length, note: document.getElementById('input-note').textContent,
      cells: document.querySelectorAll('#modelview .cell').length, svgShown: getComputedStyle(document.getElementById('headview')).display !== 'none',
      svgNodes: document.querySelectorAll('#headview *').length, canvasShown: !document.getElementById('headview-canvas').hidden,
      headLines: window.__demo.headLines, heatmapHeight: document.getElementById('heatmap').height,
      viewNodes: document.querySelectorAll('.views *').length, stepRows: document.querySelectorAll('#steps tr[data-key]').length,
      drawMs: window.__demo.drawMs, stepsDrawMs: window.__demo.stepsDrawMs,
    }));
    console.log(`# 512 tokens x 2 layers x 4 heads: views drawn ${s.drawMs.toFixed(0)} ms after the encode returned, step view ${s.stepsDrawMs.toFixed(0)} ms (logged, not asserted)`);
    assert.equal(s.tokens, 512);
    assert.match(s.note, /the page shows the first 512/);
    assert.equal(s.cells, 8);
    assert.deepEqual([s.svgShown, s.svgNodes, s.canvasShown], [false, 0, true]);
    assert.ok(s.headLines > 512, `${s.headLines} lines`);
    assert.ok(s.heatmapHeight > 0);
    assert.ok(s.viewNodes < 3000, `${s.viewNodes} DOM nodes in the views`);
    assert.equal(s.stepRows, 32);
    // Hover names the cell under the pointer, at 1-2 px per cell too.
    const box = await page.locator('#heatmap').boundingBox();
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.6);
    assert.match(await page.textContent('#tooltip'), /^pos \d+ ".+" → pos \d+ ".+": \d\.\d+$/);
    mkdirSync(join(ROOT, 'tests', 'artifacts'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'tests', 'artifacts', 'demo-512-tokens.png') });
    // Zoom makes the cells larger and the heatmap scrolls inside its frame.
    await page.selectOption('#zoom', '8');
    const scroll = await demo(() => { const w = document.querySelector('.heatmap-wrap'); return { sw: w.scrollWidth, cw: w.clientWidth, sh: w.scrollHeight, ch: w.clientHeight }; });
    assert.ok(scroll.sw > scroll.cw && scroll.sh > scroll.ch, JSON.stringify(scroll));
    await page.selectOption('#zoom', '1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Bytes the worker's engine holds, asked of the worker directly.
const workerHeap = () => demo(() => new Promise((resolve) => {
  const worker = window.simdformerWorker;
  const id = `heap-${Math.random()}`;
  const listen = ({ data }) => { if (data.id === id) { worker.removeEventListener('message', listen); resolve(data.liveBytes); } };
  worker.addEventListener('message', listen);
  worker.postMessage({ id, type: 'heap' });
}));

// What the page drew, for comparing two runs of one model on one text.
const drawn = () => demo(() => ({
  model: window.__demo.modelName, family: window.__demo.family, loading: window.__demo.loading, error: window.__demo.error,
  labels: window.__demo.labels, layers: window.__demo.result?.encoder?.length ?? 0, text: document.getElementById('text').value,
}));

test('five models clicked without waiting: the picture and labels are the last one\'s, the heap is flat', async () => {
  let n = await demo(() => window.__demo.runs);
  await page.check('input[value=gpt2]');
  await page.check('input[value=bert]');
  await waitForRun(n);
  await page.waitForFunction(() => !window.__demo.loading && window.__demo.modelName === 'fortune-bert' && window.__demo.labels, null, { timeout: 30000 });
  const want = await drawn();
  const heap = await workerHeap();
  for (let round = 0; round < 4; round++) {  // (each round a new chance for overlapping loads to interleave)
    n = await demo(() => window.__demo.runs);
    await demo(() => {
      for (const kind of ['gpt2', 'reverse', 'random', 'gpt2', 'bert']) document.querySelector(`input[name=model][value=${kind}]`).click();
    });
    await page.waitForFunction((r) => window.__demo.runs > r && !window.__demo.loading && window.__demo.labels, n, { timeout: 60000 });
    await page.waitForTimeout(300);  // any older load still answering would show now
    const got = await drawn();
    assert.deepEqual(got, want, `round ${round}: the last model clicked is drawn`);
    assert.equal(await workerHeap(), heap, `round ${round}: the older loads left nothing in the wasm heap`);
  }
});
