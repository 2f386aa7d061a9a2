// Drawing the current run: the view / layer / head selectors, the heatmap with its colour bar and
// hover text, the head view with its toggles, the model view, and the padding-mask buttons.
import { hoverText } from '../labels.mjs';
import { drawColorBar } from '../views/colorbar.mjs';
import { headColor } from '../views/colors.mjs';
import { cellAt, drawHeatmap, layerTop } from '../views/heatmap.mjs';
import { drawHeadView } from '../views/headview.mjs';
import { drawModelView } from '../views/modelview.mjs';
import { $, state } from './state.mjs';
import { applyPendingView, syncUrl } from './url-state.mjs';

// What a click in the picture asks for: drawing never runs the model itself (runs.mjs draws with
// render()), so the page's wiring (web/main.mjs) says what picking a head or masking a key does.
const asked = { headPicked: () => {}, maskChanged: () => {} };
export function onPictureAsks(handlers) { Object.assign(asked, handlers); }

const KIND_NAMES = { encoder: 'encoder self-attention', decoder: 'decoder self-attention (causal)', cross: 'cross-attention (decoder → encoder)' };
export function kindName(k) {
  if (state.family === 'text') return state.info.causal ? 'causal self-attention' : 'self-attention';
  if (state.config?.model_type === 'multihead_attention' && k === 'encoder') return 'attention';
  return KIND_NAMES[k];
}

export function renderKinds() {
  const available = Object.keys(KIND_NAMES).filter((k) => state.result?.[k]?.length);
  const select = $('kind');
  const current = select.value;
  select.replaceChildren(...available.map((k) => new Option(kindName(k), k)));
  state.kind = available.includes(current) ? current : available[0];
  applyPendingView(available, (k) => state.result[k]);
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
export function render() {
  const layers = state.result?.[state.kind];
  if (!layers) return;
  const [rows, cols] = state.labels[state.kind];
  const map = layers[state.layer][state.head];
  const canvas = $('heatmap');
  const scale = window.devicePixelRatio || 1;
  const shared = $('scale-mode').value === 'layer';
  const available = Math.min(520, canvas.parentElement.clientWidth || 480);
  geometry = drawHeatmap(canvas, map, rows, cols, { scale, available, zoom: Number($('zoom').value), top: shared ? layerTop(layers[state.layer]) : null });
  state.colorTop = geometry.top;
  drawColorBar($('colorbar'), geometry.top, shared);
  $('heatmap-title').textContent = `Heatmap — ${kindName(state.kind)}, layer ${state.layer}, head ${state.head}`;
  renderHeadToggles(layers[state.layer].length);
  state.headLines = drawHeadView({ svg: $('headview'), canvas: $('headview-canvas') }, layers[state.layer], state.visible, rows, cols, scale);
  const tops = layers.map((heads) => layerTop(heads));
  state.thumbnails = drawModelView($('modelview'), layers, state, (l, h) => {
    state.layer = l;
    state.head = h;
    $('layer').value = l;
    $('head').value = h;
    render();
    asked.headPicked();
  }, shared ? (l) => tops[l] : null, kvGroups(layers[0].length));
  renderMaskTokens(cols);
  syncUrl();
}

// Grouped-query attention (Llama, Qwen2, Mistral with fewer key/value heads than query heads):
// query head h reads key/value head floor(h / (n_heads / n_kv_heads)). null for other models.
export function kvGroups(n) {
  const kv = state.family === 'text' ? state.info?.n_kv_heads : null;
  if (!Number.isInteger(kv) || kv <= 0 || kv >= n || n % kv) return null;
  return Array.from({ length: kv }, (_, g) => Array.from({ length: n / kv }, (_, i) => g * (n / kv) + i));
}

function renderHeadToggles(n) {
  const box = $('head-toggles');
  const groups = kvGroups(n);
  const key = `${n}/${groups?.length ?? 0}`;
  if (box.dataset.key === key && box.childElementCount) return;
  box.dataset.key = key;
  const toggles = Array.from({ length: n }, (_, h) => {
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
  });
  if (!groups) { box.replaceChildren(...toggles); return; }
  // One box per key/value head, holding the query heads that read it.
  box.replaceChildren(...groups.map((heads, g) => {
    const group = document.createElement('span');
    group.className = 'kv-group';
    group.dataset.kvHead = g;
    const name = document.createElement('span');
    name.className = 'kv-name';
    name.textContent = `kv head ${g}:`;
    group.append(name, ...heads.map((h) => toggles[h]));
    return group;
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
      asked.maskChanged();
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
  // Inside the scrolling frame: left of the pointer in the frame's right half, so it is not clipped.
  const frame = canvas.parentElement;
  const right = e.offsetX - frame.scrollLeft > frame.clientWidth / 2;
  tip.style.left = right ? '' : `${e.offsetX + 12}px`;
  tip.style.right = right ? `${frame.clientWidth - e.offsetX + 12}px` : '';
  tip.style.top = `${e.offsetY + 12}px`;
  tip.hidden = false;
});
$('heatmap').addEventListener('mouseleave', () => { $('tooltip').hidden = true; });
