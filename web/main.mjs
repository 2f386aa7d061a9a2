// The demo page: wires the controls to the worker that runs simdformer and draws the result.
// Text models (GPT-2, BERT, any Hugging Face folder) and torch-dialect models (digit reversal,
// random playground, a user's safetensors file) share the views; errors appear next to the
// control that caused them, and every failure or model change clears the previous picture.
import { BUNDLED, describeBundled } from './catalogue.mjs';
import { exportPng } from './export-png.mjs';
import { hoverText, tokenLabels } from './labels.mjs';
import { RANDOM_VOCAB } from './random-model.mjs';
import { drawColorBar } from './views/colorbar.mjs';
import { headColor } from './views/colors.mjs';
import { cellAt, drawHeatmap, layerTop } from './views/heatmap.mjs';
import { drawHeadView } from './views/headview.mjs';
import { drawModelView } from './views/modelview.mjs';
import { drawSteps } from './views/steps.mjs';

const $ = (id) => document.getElementById(id);
const TEXT_TOKENS = 64;  // longest text shown: more tokens make unreadable pictures (announced)

// ---- the worker ----------------------------------------------------------------------------------
// index.html started it (and so the engine's download and compile) before this module loaded.
const worker = window.simdformerWorker;
const pending = new Map();
let nextId = 1;
worker.onmessage = ({ data }) => {
  const p = pending.get(data.id);
  if (!p) return;
  if (data.progress) { p.onProgress?.(data.progress); return; }
  pending.delete(data.id);
  if (data.ok) p.resolve(data); else p.reject(Object.assign(new Error(data.error), { code: data.code }));
};
const call = (type, payload = {}, onProgress) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject, onProgress });
  worker.postMessage({ id, type, ...payload }, payload.source?.bytes ? [payload.source.bytes.buffer] : []);
});

// Everything the page shows; exposed for the end-to-end tests.
const state = {
  ready: false, runs: 0, model: 'gpt2', family: null, config: null, info: null, vocab: null, result: null, labels: null,
  kind: 'encoder', layer: 0, head: 0, query: 0, masked: { src: new Set(), tgt: new Set() }, visible: [], error: '', errorsShown: 0,
  output: '', text: null, steps: null, stepRuns: 0, modelName: '', firstPictureMs: null, loading: false, predictions: null,
  timeline: {},  // ms after navigation: engine ready, first model loaded, first picture (logged by the e2e test)
};
window.__demo = state;

// ---- messages next to where the user acted -------------------------------------------------------
function showError(message, where = 'input') {
  state.error = message;
  if (message) state.errorsShown++;  // lets a test see an error a later run already replaced
  for (const [id, place] of [['input-error', 'input'], ['file-error', 'file'], ['error', 'page']]) $(id).textContent = place === where ? message : '';
}
const clearErrors = () => showError('', 'none');
const note = (message) => { $('input-note').textContent = message; state.note = message; };

// Removes every trace of the previous model's run: a failed load or a new model never leaves
// an old picture on the page.
function clearPicture() {
  state.result = null;
  state.labels = null;
  state.steps = null;
  state.predictions = null;
  state.output = '';
  const canvas = $('heatmap');
  canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  canvas.height = 0;
  for (const id of ['headview', 'modelview', 'steps', 'colorbar', 'mask-tokens', 'head-toggles', 'output', 'query', 'generated']) $(id).replaceChildren();
  $('heatmap-title').textContent = 'Heatmap';
  $('steps-panel').hidden = true;
  note('');
}

// ---- inputs of torch-dialect models ---------------------------------------------------------------
function readTorchInput() {
  const text = $('text').value;
  const c = state.config;
  if (state.model === 'reverse') {
    const all = Array.from(text);
    const dropped = all.filter((ch) => !/[0-9]/.test(ch));
    let digits = all.filter((ch) => /[0-9]/.test(ch)).join('');
    const notes = [];
    if (dropped.length) notes.push(`ignored ${dropped.length} character${dropped.length > 1 ? 's' : ''} that ${dropped.length > 1 ? 'are' : 'is'} not a digit (${[...new Set(dropped)].map((ch) => JSON.stringify(ch)).join(' ')})`);
    if (digits.length > 10) { notes.push(`kept the first 10 of ${digits.length} digits (the model was trained on 2 to 10)`); digits = digits.slice(0, 10); }
    note(notes.length ? `Input changed: ${notes.join('; ')}.` : '');
    if (digits.length < 2) throw new Error('type at least two digits (the model was trained on 2 to 10)');
    const tokens = Array.from(digits, (d) => 3 + Number(d));
    return { mode: 'generate', tokens, srcLabels: Array.from(digits), maxLength: digits.length + 2 };
  }
  if (state.model === 'random') {
    const all = Array.from(text);
    const printable = all.filter((ch) => ch >= ' ' && ch <= '~');
    const chars = printable.slice(0, 48);
    const notes = [];
    if (printable.length < all.length) notes.push(`ignored ${all.length - printable.length} character(s) outside printable ASCII`);
    if (printable.length > 48) notes.push(`kept the first 48 of ${printable.length} characters`);
    note(notes.length ? `Input changed: ${notes.join('; ')}.` : '');
    if (!chars.length) throw new Error('type some text');
    const tokens = chars.map((ch) => 3 + ch.charCodeAt(0) - 32);
    const shown = chars.map((ch) => (ch === ' ' ? '␣' : ch));
    return { mode: 'forward', tokens, target: [1, ...tokens], srcLabels: shown, tgtLabels: ['<bos>', ...shown] };
  }
  note('');
  if (c.src_vocab_size > 0 || c.tgt_vocab_size > 0) {
    const tokens = text.split(/[\s,]+/).filter(Boolean).map(Number);
    if (!tokens.length || tokens.some((t) => !Number.isInteger(t))) throw new Error('type token ids separated by spaces');
    if (c.model_type === 'transformer' && c.tgt_vocab_size) {
      return { mode: 'generate', tokens, srcLabels: tokens.map(String), maxLength: Math.min(c.max_len, tokens.length + 8) };
    }
    return { mode: 'encode', sequence: tokens, srcLabels: tokens.map(String) };
  }
  const n = Number.parseInt(text, 10);
  if (!Number.isInteger(n) || n < 1 || n > Math.min(64, c.max_len)) throw new Error(`type a sequence length in [1, ${Math.min(64, c.max_len)}]`);
  const vectors = Float32Array.from({ length: n * c.d_model }, (_, i) => Math.sin(i * 0.731 + 0.3) * Math.cos(i * 0.117));
  const labels = Array.from({ length: n }, (_, i) => `p${i}`);
  const decoder = c.model_type === 'decoder' || c.model_type === 'decoder_layer';
  return { mode: 'encode', sequence: vectors, memory: decoder ? vectors : undefined, srcLabels: labels };
}

// ---- running -------------------------------------------------------------------------------------
let scheduled = false;
let runSerial = 0;
function schedule() {
  if (scheduled || !state.family) return;
  scheduled = true;
  queueMicrotask(async () => {
    scheduled = false;
    await (state.family === 'text' ? runText() : runTorch());
  });
}

async function runTorch() {
  const serial = ++runSerial;
  let input;
  try {
    input = readTorchInput();
  } catch (e) {
    clearPicture();
    showError(e.message);
    return;
  }
  const mask = (labels, set) => {
    const m = labels.map((_, i) => set.has(i));
    if (m.every(Boolean)) m[0] = false;  // keep at least one key
    return m.some(Boolean) ? m : undefined;
  };
  const srcPadding = mask(input.srcLabels, state.masked.src);
  const tgtPadding = input.mode === 'forward' ? mask(input.tgtLabels, state.masked.tgt) : undefined;
  const options = { score: $('score').value, normalize: $('normalize').value, causal: $('causal').checked };
  try {
    const r = await call('run', { mode: input.mode, options, input: { ...input, padding: srcPadding, tgtPadding } });
    if (serial !== runSerial) return;  // a newer run superseded this one
    clearErrors();
    state.result = r;
    state.labels = torchLabels(input, r);
    state.input = input;
    finishRun(r.ms);
    renderTorchOutput(input, r);
  } catch (e) {
    if (serial === runSerial) { clearPicture(); showError(e.message); }
  }
}

async function runText() {
  const serial = ++runSerial;
  const text = $('text').value;
  if (!text.trim()) { clearPicture(); showError('type some text'); return; }
  const maxLength = Math.min(state.maxLength, TEXT_TOKENS);
  try {
    const r = await call('text', { text, maxLength });
    if (serial !== runSerial) return;
    clearErrors();
    const labels = tokenLabels(text, r.tokens, r.offsets);
    state.text = { text, maxLength, tokens: r.tokens, ids: r.ids, labels };
    state.result = { encoder: r.attentions };
    state.labels = { encoder: [labels, labels] };
    note(r.truncated
      ? `Input cut: the text has ${r.originalLength} tokens, the page shows the first ${r.length} (at most ${maxLength}${maxLength < state.maxLength ? ` here; the model takes ${state.maxLength}` : ''}), special tokens kept.`
      : '');
    state.predictions = r.fill ?? null;
    if (r.fill?.length) state.query = r.fill[0].index;
    else if (state.query >= r.tokens.length || state.queryText !== text) state.query = state.info.causal ? r.tokens.length - 1 : Math.min(1, r.tokens.length - 1);
    state.queryText = text;
    finishRun(r.ms);
    renderTextOutput(r, labels);
    await runSteps();
  } catch (e) {
    if (serial === runSerial) { clearPicture(); showError(e.message); }
  }
}

// The step-by-step numbers for the selected layer, head and query token (text models).
async function runSteps() {
  if (state.family !== 'text' || !state.text) return;
  const serial = runSerial;
  const { text, maxLength, labels } = state.text;
  try {
    const s = await call('steps', { text, maxLength, layer: state.layer, head: state.head });
    if (serial !== runSerial) return;
    state.steps = s;
    state.stepRuns++;
    $('steps-panel').hidden = false;
    $('query').replaceChildren(...labels.map((l, i) => new Option(`pos ${i} "${l}"`, i)));
    $('query').value = String(state.query);
    drawSteps($('steps'), s, labels, state.query);
  } catch (e) {
    if (serial === runSerial) showError(`step-by-step view: ${e.message}`, 'page');
  }
}

function finishRun(ms) {
  state.runs++;
  $('timing').textContent = `${ms.toFixed(2)} ms`;
  renderKinds();
  render();
  if (state.firstPictureMs === null) {
    state.firstPictureMs = performance.now();
    state.timeline.firstPicture = state.firstPictureMs;
    console.info(`simdformer demo: first picture ${state.firstPictureMs.toFixed(0)} ms after navigation`);
  }
}

function torchLabels(input, r) {
  const src = input.srcLabels;
  if (input.mode === 'generate') {
    const vocab = state.vocab;
    const name = (t) => (vocab ? vocab[t] ?? String(t) : String(t));
    const steps = r.tokens.slice(0, -1).map(name);  // decoder inputs: bos + all but the last output
    return { encoder: [src, src], decoder: [steps, steps], cross: [steps, src] };
  }
  if (input.mode === 'forward') return { encoder: [src, src], decoder: [input.tgtLabels, input.tgtLabels], cross: [input.tgtLabels, src] };
  return { encoder: [src, src], decoder: [src, src], cross: [src, src] };
}

function renderTorchOutput(input, r) {
  const out = $('output');
  out.replaceChildren();
  state.correct = undefined;
  if (state.model === 'reverse') {
    const digits = r.tokens.slice(1).filter((t) => t >= 3).map((t) => String(t - 3)).join('');
    const expected = input.srcLabels.slice().reverse().join('');
    const span = document.createElement('span');
    span.className = digits === expected ? 'ok' : 'bad';
    span.textContent = `→ ${digits} ${digits === expected ? '✓' : '✗'}`;
    out.appendChild(span);
    state.output = digits;
    state.correct = digits === expected && state.masked.src.size === 0 && $('score').value === 'scaled-dot'
      && $('normalize').value === 'softmax' && !$('causal').checked;
  } else if (r.tokens) {
    out.textContent = `→ ${r.tokens.join(' ')}`;
    state.output = r.tokens.join(' ');
  } else {
    state.output = '';
  }
}

function renderTextOutput(r, labels) {
  const out = $('output');
  out.replaceChildren();
  state.output = '';
  if (r.fill) {
    for (const m of r.fill) {
      const p = document.createElement('div');
      p.className = 'predictions';
      p.append(`pos ${m.index} ${labels[m.index]} → `);
      m.predictions.forEach((x, i) => {
        const s = document.createElement('span');
        s.className = 'prediction';
        s.textContent = `${x.token.trim()} ${(100 * x.score).toFixed(1)} %`;
        p.append(i ? ', ' : '', s);
      });
      out.appendChild(p);
    }
    state.output = r.fill.map((m) => m.predictions.map((x) => x.token.trim()).join(' ')).join(' | ');
  } else if (state.info?.has_mlm_head && state.maskToken) {
    out.textContent = `type ${state.maskToken} where a word is missing to see BERT's guesses`;
  }
}

// ---- drawing -------------------------------------------------------------------------------------
const KIND_NAMES = { encoder: 'encoder self-attention', decoder: 'decoder self-attention (causal)', cross: 'cross-attention (decoder → encoder)' };
function kindName(k) {
  if (state.family === 'text') return state.info.causal ? 'causal self-attention' : 'self-attention';
  if (state.config?.model_type === 'multihead_attention' && k === 'encoder') return 'attention';
  return KIND_NAMES[k];
}

function renderKinds() {
  const available = Object.keys(KIND_NAMES).filter((k) => state.result?.[k]?.length);
  const select = $('kind');
  const current = select.value;
  select.replaceChildren(...available.map((k) => new Option(kindName(k), k)));
  state.kind = available.includes(current) ? current : available[0];
  select.value = state.kind;
  const layers = state.result[state.kind];
  fillSelect($('layer'), layers.length, (i) => `layer ${i}`, Math.min(state.layer, layers.length - 1));
  fillSelect($('head'), layers[0].length, (i) => `head ${i}`, Math.min(state.head, layers[0].length - 1));
  state.layer = Number($('layer').value);
  state.head = Number($('head').value);
  if (state.visible.length !== layers[0].length) state.visible = layers[0].map(() => true);
}

function fillSelect(select, n, label, value) {
  if (select.options.length !== n) select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(label(i), i)));
  select.value = String(value);
}

let geometry = null;
function render() {
  const layers = state.result?.[state.kind];
  if (!layers) return;
  const [rows, cols] = state.labels[state.kind];
  const map = layers[state.layer][state.head];
  const canvas = $('heatmap');
  const scale = window.devicePixelRatio || 1;
  const shared = $('scale-mode').value === 'layer';
  canvas.width = Math.round(Math.min(560, canvas.parentElement.clientWidth || 480) * scale);
  geometry = drawHeatmap(canvas, map, rows, cols, { scale, top: shared ? layerTop(layers[state.layer]) : null });
  state.colorTop = geometry.top;
  drawColorBar($('colorbar'), geometry.top, shared);
  $('heatmap-title').textContent = `Heatmap — ${kindName(state.kind)}, layer ${state.layer}, head ${state.head}`;
  renderHeadToggles(layers[state.layer].length);
  state.headLines = drawHeadView($('headview'), layers[state.layer], state.visible, rows, cols);
  const tops = layers.map((heads) => layerTop(heads));
  state.thumbnails = drawModelView($('modelview'), layers, state, (l, h) => {
    state.layer = l;
    state.head = h;
    $('layer').value = l;
    $('head').value = h;
    render();
    runSteps();
  }, shared ? (l) => tops[l] : null);
  renderMaskTokens(cols);
}

function renderHeadToggles(n) {
  const box = $('head-toggles');
  if (box.childElementCount === n) return;
  box.replaceChildren(...Array.from({ length: n }, (_, h) => {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = state.visible[h] !== false;
    input.addEventListener('change', () => { state.visible[h] = input.checked; render(); });
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = headColor(h, n);
    label.append(input, swatch, `head ${h}`);
    return label;
  }));
}

// Padding-mask buttons: one per column of the current view, masking exactly that key. Source
// keys (encoder and cross views) and, where the engine takes a target mask (playground), the
// decoder's keys; generated decoder inputs cannot be masked, so their buttons are disabled.
function renderMaskTokens(cols) {
  const box = $('mask-tokens');
  const help = $('mask-help');
  if (state.family === 'text') {
    $('mask-box').hidden = true;
    return;
  }
  $('mask-box').hidden = false;
  const side = state.kind === 'decoder' ? 'tgt' : 'src';
  const maskable = side === 'src' || state.input?.mode === 'forward';
  help.textContent = !maskable ? 'Decoder keys: the causal mask hides later tokens; generated tokens cannot be masked.'
    : `Click a key (column) to mask it: padding mask on the ${side === 'src' ? 'source' : 'decoder input'}.`;
  const set = state.masked[side];
  box.replaceChildren(...cols.map((l, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = l;
    b.disabled = !maskable;
    b.dataset.side = side;
    b.title = set.has(i) ? 'masked: click to unmask' : 'click to mask this key';
    if (set.has(i)) b.className = 'masked';
    b.addEventListener('click', () => {
      if (set.has(i)) set.delete(i); else set.add(i);
      schedule();
    });
    return b;
  }));
}

$('heatmap').addEventListener('mousemove', (e) => {
  const tip = $('tooltip');
  if (!geometry || !state.result) return;
  const canvas = e.currentTarget;
  const ratio = canvas.width / canvas.getBoundingClientRect().width;
  const hit = cellAt(geometry, e.offsetX * ratio, e.offsetY * ratio);
  if (!hit) { tip.hidden = true; return; }
  const map = state.result[state.kind][state.layer][state.head];
  const [rows, cols] = state.labels[state.kind];
  tip.textContent = hoverText(hit.q, rows[hit.q], hit.k, cols[hit.k], map.data[hit.q * map.shape[1] + hit.k]);
  tip.style.left = `${e.offsetX + 12}px`;
  tip.style.top = `${e.offsetY + 12}px`;
  tip.hidden = false;
});
$('heatmap').addEventListener('mouseleave', () => { $('tooltip').hidden = true; });

// ---- model loading -------------------------------------------------------------------------------
let loadSerial = 0;
function beginLoad() {
  state.family = null;
  state.config = null;
  state.info = null;
  state.loading = true;
  state.masked.src.clear();
  state.masked.tgt.clear();
  state.visible = [];
  state.head = 0;
  clearPicture();
  clearErrors();
  return ++loadSerial;
}

// `prepareInput(r)` fits the input box to the loaded model before the first run is scheduled, so
// that run never sees the previous model's input.
async function loadTorch(source, vocab, name, prepareInput = () => {}) {
  const serial = beginLoad();
  const r = await call('load', { source });
  if (serial !== loadSerial) return null;
  state.family = 'torch';
  state.loading = false;
  state.config = r.config;
  state.vocab = vocab;
  state.modelName = name;
  // Open on the last layer: in trained models the most legible heads (e.g. the reversal's
  // anti-diagonal) usually sit there.
  state.layer = Math.max(0, (r.config.num_decoder_layers || r.config.num_encoder_layers || 1) - 1);
  $('precision').hidden = true;
  $('generate-box').hidden = true;
  $('score').querySelector('[value=additive]').disabled = !(r.config.additive_dim > 0);
  if ($('score').value === 'additive' && !(r.config.additive_dim > 0)) $('score').value = 'scaled-dot';
  $('torch-options').hidden = false;
  prepareInput(r);
  schedule();
  return r;
}

// A Hugging Face folder (bundled URL or the user's files), with progress.
async function loadText(source, name, onProgress, prepareInput = () => {}) {
  const serial = beginLoad();
  state.textSource = { source, name };
  $('precision-report').textContent = '';
  const weights = $('weights').value;
  const r = await call('load', { source: { ...source, weights: weights === 'f32' ? undefined : weights } }, onProgress);
  if (serial !== loadSerial) return null;
  state.family = 'text';
  state.loading = false;
  state.timeline.modelLoaded ??= performance.now();
  state.info = r.info;
  state.maxLength = r.maxLength;
  state.maskToken = r.maskToken;
  state.modelName = name;
  state.layer = 0;
  state.loadMs = r.loadMs;
  state.canGenerate = r.canGenerate;
  $('generate-box').hidden = !r.canGenerate;
  $('torch-options').hidden = true;
  $('precision').hidden = false;
  prepareInput(r);
  schedule();
  return r;
}

async function selectModel(kind) {
  state.model = kind;
  clearErrors();  // messages about the previous model or input no longer apply
  $('random-options').hidden = kind !== 'random';
  $('file-options').hidden = kind !== 'file';
  $('model-about').textContent = '';
  $('heads-about').textContent = '';
  try {
    if (BUNDLED[kind]) {
      const m = BUNDLED[kind];
      $('input-help').textContent = m.help;
      $('text').value = m.example;
      describeBundled(m.url).then((d) => {
        if (state.model !== kind) return;
        $('model-about').textContent = d.metrics;
        $('heads-about').textContent = d.heads;
      });
      await loadText({ kind: 'hf-url', url: m.url }, `fortune-${kind}`);
    } else if (kind === 'reverse') {
      $('input-help').textContent = '2 to 10 digits: the model writes them backwards';
      if (!/^[0-9]{2,10}$/.test($('text').value)) $('text').value = '0123456789';
      const [config, vocab] = await Promise.all([fetch('models/reverse/config.json').then((r) => r.json()),
                                                 fetch('models/reverse/vocab.json').then((r) => r.json())]);
      await loadTorch({ kind: 'url', url: 'models/reverse/model.safetensors', config }, vocab, 'reverse digits');
    } else if (kind === 'random') {
      $('input-help').textContent = 'any text (up to 48 characters); weights are random';
      if (/^[0-9]+$/.test($('text').value)) $('text').value = 'attention is all you need';
      await loadRandom();
    } else {
      beginLoad();
      state.loading = false;
      $('input-help').textContent = 'text for a Hugging Face model; token ids (or a length) for a torch-dialect file';
      $('file-status').textContent = 'no model loaded yet';
    }
  } catch (e) {
    clearPicture();
    showError(`cannot load the model: ${e.message}`, 'page');
  }
}

async function loadRandom() {
  const d = Number($('rand-d').value), h = Number($('rand-h').value);
  if (d % h) { clearPicture(); showError(`d_model=${d} is not divisible by ${h} heads`); return; }
  await loadTorch({ kind: 'random', d_model: d, nhead: h, layers: Number($('rand-l').value), seed: Number($('rand-seed').value) || 0 },
                  RANDOM_VOCAB, `random d${d} h${h}`);
}

// Picked or dropped files: a Hugging Face folder when config.json is among them, else a torch-
// dialect .safetensors with its config .json.
async function loadFiles(files) {
  const list = Array.from(files);
  const relative = (f) => (f.webkitRelativePath ? f.webkitRelativePath.split('/').slice(1).join('/') : f.name);
  const status = $('file-status');
  const progress = $('load-progress');
  if (!list.length) return;
  if (list.some((f) => relative(f) === 'config.json')) {
    const folder = list[0].webkitRelativePath ? list[0].webkitRelativePath.split('/')[0] : 'the chosen files';
    status.textContent = `loading ${folder}…`;
    progress.hidden = false;
    progress.value = 0;
    try {
      const textFor = (r) => {
        if ($('text').value.trim() && !/^[\d\s]+$/.test($('text').value)) return;
        $('text').value = r.info.has_mlm_head ? `The cat sat on the ${r.maskToken ?? '[MASK]'}.` : 'The cat sat on the mat.';
      };
      const r = await loadText({ kind: 'files', files: list.map((file) => ({ path: file.webkitRelativePath || '', file })) }, folder, (p) => {
        if (p.total > 0) progress.value = p.loaded / p.total;
        status.textContent = `loading ${folder}: ${p.stage}${p.total ? ` ${Math.round((100 * p.loaded) / p.total)} %` : ''}`;
      }, textFor);
      if (!r) return;
      const i = r.info;
      status.textContent = `${folder}: ${i.architecture}, ${i.n_layers} layers × ${i.n_heads} heads, d_model ${i.d_model}, ${i.parameters.toLocaleString('en')} parameters, ${i.dtype} → ${i.weights}`;
    } catch (e) {
      clearPicture();
      status.textContent = '';
      showError(`cannot load ${folder}: ${e.message}`, 'file');
    } finally {
      progress.hidden = true;
    }
    return;
  }
  const weights = list.find((f) => f.name.endsWith('.safetensors'));
  const configFile = list.find((f) => f.name.endsWith('.json'));
  if (!weights) {
    beginLoad();
    state.loading = false;
    showError('choose a model folder with config.json, or a .safetensors file with its config .json', 'file');
    return;
  }
  try {
    const bytes = new Uint8Array(await weights.arrayBuffer());
    const config = configFile ? JSON.parse(await configFile.text()) : undefined;
    // Token-id models keep typed ids; vector models take a sequence length.
    const inputFor = ({ config: c }) => {
      if (!(c.src_vocab_size > 0 || c.tgt_vocab_size > 0)) $('text').value = '6';
      else if (!/^[\d\s]+$/.test($('text').value) || !$('text').value.trim()) $('text').value = '3 4 5 6';
    };
    const r = await loadTorch({ kind: 'bytes', bytes, config }, null, weights.name, inputFor);
    if (!r) return;
    status.textContent = `${weights.name}: ${r.config.model_type}, d_model ${r.config.d_model}, ${r.config.nhead} heads, ${r.parameterCount} parameters`;
  } catch (e) {
    clearPicture();
    showError(`cannot load ${weights.name}: ${e.message}`, 'file');
  }
}

// GPT-2 writes 8 tokens greedily; each appears with its attention over the context (the chosen
// layer and head), then the whole text is drawn again.
async function generateTokens() {
  const button = $('generate');
  const box = $('generated');
  const prompt = $('text').value;
  button.disabled = true;
  box.replaceChildren();
  const context = [...(state.text?.labels ?? [])];
  state.generated = [];
  try {
    await call('generate', { text: prompt, maxNewTokens: 8 }, (e) => {
      if (e.stage !== 'token') return;
      const weights = e.attention?.[state.layer]?.[state.head];
      const label = e.text.trim() || (e.text.includes('\n') ? '↵' : '␣');
      const line = document.createElement('div');
      line.className = 'gen-step';
      const top = weights ? Array.from(weights, (w, k) => [w, k]).sort((a, b) => b[0] - a[0]).slice(0, 3) : [];
      line.textContent = `+ "${label}" ← ${top.map(([w, k]) => `pos ${k} "${context[k] ?? '…'}" ${w.toFixed(2)}`).join(', ')}`;
      box.appendChild(line);
      context.push(label);
      state.generated.push({ text: e.text, attention: weights ? Array.from(weights) : null });
    });
    $('text').value = prompt + state.generated.map((g) => g.text).join('');
    schedule();
  } catch (e) {
    showError(`generation: ${e.message}`);
  } finally {
    button.disabled = false;
  }
}

// The f32 / int8 toggle: reload the current folder with the chosen weights, then measure both.
async function changePrecision() {
  const last = state.textSource;
  if (!last) return;
  const report = $('precision-report');
  try {
    const r = await loadText(last.source, last.name);
    if (!r) return;
    report.textContent = 'comparing f32 and int8…';
    const n = state.runs;
    while (state.runs === n && !state.error) await new Promise((ok) => setTimeout(ok, 20));
    const c = await call('compare', { text: state.text?.text ?? $('text').value, maxLength: Math.min(state.maxLength, TEXT_TOKENS) });
    const mb = (b) => `${(b / 2 ** 20).toFixed(2)} MB`;
    state.precision = c;
    report.textContent = `weights f32 ${mb(c.f32.bytes)}, int8 ${mb(c.int8.bytes)}; one pass f32 ${c.f32.ms.toFixed(2)} ms, `
      + `int8 ${c.int8.ms.toFixed(2)} ms (median of 7); largest attention difference ${c.maxDiff.toFixed(4)} on this text`;
  } catch (e) {
    report.textContent = '';
    showError(`${$('weights').value} weights: ${e.message}`, 'page');
  }
}

// ---- wiring --------------------------------------------------------------------------------------
document.querySelectorAll('input[name=model]').forEach((r) => r.addEventListener('change', () => selectModel(r.value)));
for (const id of ['rand-d', 'rand-h', 'rand-l', 'rand-seed']) $(id).addEventListener('change', () => loadRandom().catch((e) => showError(e.message, 'page')));
$('text').addEventListener('input', () => { state.masked.src.clear(); state.masked.tgt.clear(); schedule(); });
for (const id of ['score', 'normalize', 'causal']) $(id).addEventListener('change', schedule);
$('kind').addEventListener('change', () => { state.kind = $('kind').value; renderKinds(); render(); });
$('layer').addEventListener('change', () => { state.layer = Number($('layer').value); render(); runSteps(); });
$('head').addEventListener('change', () => { state.head = Number($('head').value); render(); runSteps(); });
$('scale-mode').addEventListener('change', () => render());
$('weights').addEventListener('change', changePrecision);
$('generate').addEventListener('click', generateTokens);
$('query').addEventListener('change', () => {
  state.query = Number($('query').value);
  if (state.steps) drawSteps($('steps'), state.steps, state.text.labels, state.query);
});
$('file-input').addEventListener('change', (e) => loadFiles(e.target.files));
$('folder-input').addEventListener('change', (e) => loadFiles(e.target.files));
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  loadFiles(await droppedFiles(e.dataTransfer));
});
window.addEventListener('resize', () => render());

// A dropped folder arrives as directory entries: walk them so every file keeps its path
// relative to the folder (as the folder picker gives it in webkitRelativePath).
async function droppedFiles(transfer) {
  const entries = Array.from(transfer.items ?? []).map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.some((e) => e.isDirectory)) return Array.from(transfer.files);
  const out = [];
  const walk = async (entry, path) => {
    if (entry.isFile) {
      const file = await new Promise((ok, fail) => entry.file(ok, fail));
      Object.defineProperty(file, 'webkitRelativePath', { value: `${path}${entry.name}` });
      out.push(file);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
        if (!batch.length) break;
        for (const child of batch) await walk(child, `${path}${entry.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}

function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
}
$('export-json').addEventListener('click', () => {
  if (!state.result) return;
  const plain = (layers) => layers?.map((heads) => heads.map((h) => ({ shape: h.shape, data: Array.from(h.data) })));
  const json = JSON.stringify({ model: state.modelName, config: state.config ?? state.info, labels: state.labels, text: $('text').value,
                                options: { score: $('score').value, normalize: $('normalize').value },
                                encoder: plain(state.result.encoder), decoder: plain(state.result.decoder), cross: plain(state.result.cross) });
  download('attention.json', URL.createObjectURL(new Blob([json], { type: 'application/json' })));
});
$('export-png').addEventListener('click', () => {
  if (!state.result) return;
  const title = `${state.modelName} · ${kindName(state.kind)} · layer ${state.layer} · head ${state.head}`;
  download('attention.png', exportPng($('heatmap'), title, `“${$('text').value}”`));
});

// The engine compiles while the first model downloads: the worker queues the load behind it.
const engine = call('init').then((ready) => {
  $('build').textContent = ready.simd ? 'wasm SIMD128' : 'wasm scalar';
  state.build = ready.simd ? 'simd' : 'scalar';
  state.ready = true;
  state.timeline.engineReady = performance.now();
}, (e) => showError(`cannot start the engine: ${e.message}`, 'page'));
// ?model=bert (or reverse, random, file) opens another model: links can point at one view.
const asked = document.querySelector(`input[name=model][value="${CSS.escape(new URLSearchParams(location.search).get('model') ?? '')}"]`);
if (asked) asked.checked = true;
await Promise.all([engine, selectModel(document.querySelector('input[name=model]:checked').value)]);
