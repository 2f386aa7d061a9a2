// The demo page: wires the controls to the worker that runs simdformer and draws the result.
import { drawHeatmap, cellAt } from './views/heatmap.mjs';
import { drawHeadView } from './views/headview.mjs';
import { drawModelView } from './views/modelview.mjs';
import { headColor } from './views/colors.mjs';
import { RANDOM_VOCAB } from './random-model.mjs';

const $ = (id) => document.getElementById(id);
const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
const pending = new Map();
let nextId = 1;
worker.onmessage = ({ data }) => {
  const p = pending.get(data.id);
  pending.delete(data.id);
  if (data.ok) p.resolve(data); else p.reject(new Error(data.error));
};
const call = (type, payload = {}) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  worker.postMessage({ id, type, ...payload }, payload.source?.bytes ? [payload.source.bytes.buffer] : []);
});

// Everything the page shows; exposed for the end-to-end tests.
const state = {
  ready: false, runs: 0, model: 'reverse', config: null, vocab: null, result: null, labels: null,
  kind: 'cross', layer: 0, head: 0, masked: new Set(), visible: [], error: '', output: '',
};
window.__demo = state;

function showError(message) {
  state.error = message;
  $('error').textContent = message;
}

// ---- inputs per model ---------------------------------------------------------------------------
function readInput() {
  const text = $('text').value;
  const c = state.config;
  if (state.model === 'reverse') {
    const digits = text.replace(/[^0-9]/g, '').slice(0, 10);
    if (digits.length < 2) throw new Error('type at least two digits (the model was trained on 2 to 10)');
    const tokens = Array.from(digits, (d) => 3 + Number(d));
    return { mode: 'generate', tokens, srcLabels: Array.from(digits), maxLength: digits.length + 2 };
  }
  if (state.model === 'random') {
    const chars = Array.from(text).filter((ch) => ch >= ' ' && ch <= '~').slice(0, 48);
    if (!chars.length) throw new Error('type some text');
    const tokens = chars.map((ch) => 3 + ch.charCodeAt(0) - 32);
    const shown = chars.map((ch) => (ch === ' ' ? '␣' : ch));
    return { mode: 'forward', tokens, target: [1, ...tokens], srcLabels: shown, tgtLabels: ['<bos>', ...shown] };
  }
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
  if (scheduled || !state.config) return;
  scheduled = true;
  queueMicrotask(async () => {
    scheduled = false;
    await runModel();
  });
}

async function runModel() {
  const serial = ++runSerial;
  let input;
  try {
    input = readInput();
  } catch (e) {
    showError(e.message);
    return;
  }
  const padding = input.srcLabels.map((_, i) => state.masked.has(i));
  if (padding.every(Boolean)) padding[0] = false;  // keep at least one key
  const options = { score: $('score').value, normalize: $('normalize').value, causal: $('causal').checked };
  try {
    const r = await call('run', { mode: input.mode, options, input: { ...input, padding: padding.some(Boolean) ? padding : undefined } });
    if (serial !== runSerial) return;  // a newer run superseded this one
    showError('');
    state.result = r;
    state.runs++;
    state.labels = labelsFor(input, r);
    $('timing').textContent = `${r.ms.toFixed(2)} ms`;
    renderOutput(input, r);
    renderKinds();
    render();
  } catch (e) {
    if (serial === runSerial) showError(e.message);
  }
}

function labelsFor(input, r) {
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

function renderOutput(input, r) {
  const out = $('output');
  if (state.model === 'reverse') {
    const digits = r.tokens.slice(1).filter((t) => t >= 3).map((t) => String(t - 3)).join('');
    const expected = input.srcLabels.slice().reverse().join('');
    const ok = digits === expected && state.masked.size === 0 && $('score').value === 'scaled-dot' && $('normalize').value === 'softmax' && !$('causal').checked;
    out.innerHTML = '';
    const span = document.createElement('span');
    span.className = digits === expected ? 'ok' : 'bad';
    span.textContent = `→ ${digits} ${digits === expected ? '✓' : '✗'}`;
    out.appendChild(span);
    state.output = digits;
    state.correct = ok;
  } else if (r.tokens) {
    out.textContent = `→ ${r.tokens.join(' ')}`;
    state.output = r.tokens.join(' ');
  } else {
    out.textContent = '';
    state.output = '';
  }
}

// ---- drawing -------------------------------------------------------------------------------------
const KIND_NAMES = { encoder: 'encoder self-attention', decoder: 'decoder self-attention (causal)', cross: 'cross-attention (decoder → encoder)' };

function renderKinds() {
  const available = Object.keys(KIND_NAMES).filter((k) => state.result?.[k]?.length);
  const select = $('kind');
  const current = select.value;
  select.replaceChildren(...available.map((k) => new Option(state.config.model_type === 'multihead_attention' && k === 'encoder' ? 'attention' : KIND_NAMES[k], k)));
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
  canvas.width = Math.round(Math.min(560, canvas.parentElement.clientWidth || 480) * scale);
  geometry = drawHeatmap(canvas, map, rows, cols, { scale });
  $('heatmap-title').textContent = `Heatmap — ${KIND_NAMES[state.kind]}, layer ${state.layer}, head ${state.head} (colour 0 … ${geometry.top.toFixed(3)})`;
  renderHeadToggles(layers[state.layer].length);
  state.headLines = drawHeadView($('headview'), layers[state.layer], state.visible, rows, cols);
  state.thumbnails = drawModelView($('modelview'), layers, state, (l, h) => {
    state.layer = l;
    state.head = h;
    $('layer').value = l;
    $('head').value = h;
    render();
  });
  renderMaskTokens();
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

function renderMaskTokens() {
  const src = state.labels.encoder[0];
  const box = $('mask-tokens');
  box.replaceChildren(...src.map((l, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = l;
    b.title = state.masked.has(i) ? 'masked: click to unmask' : 'click to mask this source token';
    if (state.masked.has(i)) b.className = 'masked';
    b.addEventListener('click', () => {
      if (state.masked.has(i)) state.masked.delete(i); else state.masked.add(i);
      schedule();
    });
    return b;
  }));
}

$('heatmap').addEventListener('mousemove', (e) => {
  const tip = $('tooltip');
  if (!geometry) return;
  const canvas = e.currentTarget;
  const ratio = canvas.width / canvas.getBoundingClientRect().width;
  const hit = cellAt(geometry, e.offsetX * ratio, e.offsetY * ratio);
  if (!hit) { tip.hidden = true; return; }
  const map = state.result[state.kind][state.layer][state.head];
  const [rows, cols] = state.labels[state.kind];
  tip.textContent = `${rows[hit.q]} → ${cols[hit.k]}: ${map.data[hit.q * map.shape[1] + hit.k].toFixed(4)}`;
  tip.style.left = `${e.offsetX + 12}px`;
  tip.style.top = `${e.offsetY + 12}px`;
  tip.hidden = false;
});
$('heatmap').addEventListener('mouseleave', () => { $('tooltip').hidden = true; });

// ---- model loading -------------------------------------------------------------------------------
async function loadModel(source, vocab) {
  state.config = null;
  const r = await call('load', { source });
  state.config = r.config;
  state.vocab = vocab;
  state.masked.clear();
  // Open on the last layer: in trained models the most legible heads (e.g. the reversal's
  // anti-diagonal) usually sit there.
  state.layer = Math.max(0, (r.config.num_decoder_layers || r.config.num_encoder_layers || 1) - 1);
  state.head = 0;
  state.visible = [];
  $('score').querySelector('[value=additive]').disabled = !(r.config.additive_dim > 0);
  if ($('score').value === 'additive' && !(r.config.additive_dim > 0)) $('score').value = 'scaled-dot';
  schedule();
  return r;
}

async function selectModel(kind) {
  state.model = kind;
  $('random-options').hidden = kind !== 'random';
  $('file-options').hidden = kind !== 'file';
  try {
    if (kind === 'reverse') {
      $('input-help').textContent = '2 to 10 digits: the model writes them backwards';
      if (!/^[0-9]+$/.test($('text').value)) $('text').value = '0123456789';
      const [config, vocab] = await Promise.all([fetch('models/reverse/config.json').then((r) => r.json()),
                                                 fetch('models/reverse/vocab.json').then((r) => r.json())]);
      await loadModel({ kind: 'url', url: 'models/reverse/model.safetensors', config }, vocab);
    } else if (kind === 'random') {
      $('input-help').textContent = 'any text (up to 48 characters); weights are random';
      if (/^[0-9]+$/.test($('text').value)) $('text').value = 'attention is all you need';
      await loadRandom();
    } else {
      $('input-help').textContent = 'token ids separated by spaces, or a sequence length for vector models';
      $('file-status').textContent = 'no file loaded yet';
    }
  } catch (e) {
    showError(e.message);
  }
}

async function loadRandom() {
  const d = Number($('rand-d').value), h = Number($('rand-h').value);
  if (d % h) { showError(`d_model=${d} is not divisible by ${h} heads`); return; }
  await loadModel({ kind: 'random', d_model: d, nhead: h, layers: Number($('rand-l').value), seed: Number($('rand-seed').value) || 0 },
                  RANDOM_VOCAB);
}

async function loadFiles(files) {
  const list = Array.from(files);
  const weights = list.find((f) => f.name.endsWith('.safetensors'));
  const configFile = list.find((f) => f.name.endsWith('.json'));
  if (!weights) { showError('choose a .safetensors file (and optionally its config .json)'); return; }
  try {
    const bytes = new Uint8Array(await weights.arrayBuffer());
    const config = configFile ? JSON.parse(await configFile.text()) : undefined;
    const r = await loadModel({ kind: 'bytes', bytes, config }, null);
    $('file-status').textContent = `${weights.name}: ${r.config.model_type}, d_model ${r.config.d_model}, ${r.config.nhead} heads, ${r.parameterCount} parameters`;
    const c = r.config;
    if (c.src_vocab_size > 0 || c.tgt_vocab_size > 0) {
      if (!/^[\d\s]+$/.test($('text').value) || !$('text').value.trim()) $('text').value = '3 4 5 6';
    } else {
      $('text').value = '6';
    }
    schedule();
  } catch (e) {
    showError(`cannot load ${weights.name}: ${e.message}`);
  }
}

// ---- wiring --------------------------------------------------------------------------------------
document.querySelectorAll('input[name=model]').forEach((r) => r.addEventListener('change', () => selectModel(r.value)));
for (const id of ['rand-d', 'rand-h', 'rand-l', 'rand-seed']) $(id).addEventListener('change', () => loadRandom().catch((e) => showError(e.message)));
$('text').addEventListener('input', () => { state.masked.clear(); schedule(); });
for (const id of ['score', 'normalize', 'causal']) $(id).addEventListener('change', schedule);
$('kind').addEventListener('change', () => { state.kind = $('kind').value; renderKinds(); render(); });
$('layer').addEventListener('change', () => { state.layer = Number($('layer').value); render(); });
$('head').addEventListener('change', () => { state.head = Number($('head').value); render(); });
$('file-input').addEventListener('change', (e) => loadFiles(e.target.files));
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); loadFiles(e.dataTransfer.files); });
window.addEventListener('resize', () => render());

function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
}
$('export-json').addEventListener('click', () => {
  if (!state.result) return;
  const plain = (layers) => layers?.map((heads) => heads.map((h) => ({ shape: h.shape, data: Array.from(h.data) })));
  const json = JSON.stringify({ config: state.config, labels: state.labels, options: { score: $('score').value, normalize: $('normalize').value },
                                encoder: plain(state.result.encoder), decoder: plain(state.result.decoder), cross: plain(state.result.cross) });
  download('attention.json', URL.createObjectURL(new Blob([json], { type: 'application/json' })));
});
$('export-png').addEventListener('click', () => download('attention.png', $('heatmap').toDataURL('image/png')));

const ready = await call('init', { simd: new URLSearchParams(location.search).get('simd') === 'off' ? false : 'auto' });
$('build').textContent = ready.simd ? 'wasm SIMD128' : 'wasm scalar';
state.build = ready.simd ? 'simd' : 'scalar';
state.ready = true;
await selectModel('reverse');
