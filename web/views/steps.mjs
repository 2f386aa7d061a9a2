// The step-by-step view of one attention head for one query token, from what the engine
// computed (TextModel.attentionSteps): q, every key k_j with its score a(q, k_j) and weight α_j,
// every value v_j, the output b = Σ_j α_j v_j; then the same for all queries at once in matrix
// form, Q K V → S = QKᵀ·scale (+ mask) → A = softmax(S) → B = A V, masked cells marked.
// Every number shown carries its full value in data-value(s), so tests can compare it.
import { largestMagnitude, paintPixels, signedColor, weightColor } from './colors.mjs';

const fmt = (x) => (x === -Infinity ? '−∞' : x.toFixed(3));

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A vector as a strip of coloured cells (blue < 0 < red), full numbers on hover and in data-values.
function vector(values, name) {
  const span = el('span', 'vec');
  span.dataset.name = name;
  span.dataset.values = JSON.stringify(Array.from(values));
  const top = Math.max(1e-6, ...Array.from(values, Math.abs));
  for (const x of values) {
    const cell = el('i');
    cell.style.background = signedColor(x / top);
    span.appendChild(cell);
  }
  span.title = `${name} = [${Array.from(values, (x) => x.toFixed(4)).join(', ')}]`;
  return span;
}

function number(x, name) {
  const td = el('td', 'num', fmt(x));
  td.dataset.name = name;
  td.dataset.value = String(x);
  return td;
}

const row = (s, dh, i) => s.subarray(i * dh, (i + 1) * dh);

// Every key up to 64 tokens; for longer inputs the 32 with the largest weights (a row of the
// table per key is a few hundred DOM nodes), in position order.
const ALL_KEYS = 64, TOP_KEYS = 32;
function keysToShow(weights) {
  const keys = Array.from(weights.keys());
  if (keys.length <= ALL_KEYS) return keys;
  return keys.sort((a, b) => weights[b] - weights[a]).slice(0, TOP_KEYS).sort((a, b) => a - b);
}

/** box: container; s: an attentionSteps result; labels: token labels; query: the token index. */
export function drawSteps(box, s, labels, query) {
  const n = s.tokens.length, dh = s.dHead;
  box.replaceChildren();
  const scaleText = s.scale === 1 ? '' : ` · ${s.scale === 1 / Math.sqrt(dh) ? `1/√${dh}` : s.scale.toPrecision(4)}`;
  const intro = el('p', 'formula');
  intro.textContent = `Layer ${s.layer}, head ${s.head}, query pos ${query} "${labels[query]}":  a(q, kⱼ) = q·kⱼ${scaleText}   αⱼ = softmax(a)ⱼ${s.causal ? ' over the keys j ≤ ' + query + ' (causal mask)' : ''}   b = Σⱼ αⱼ vⱼ   (d_head = ${dh})`;
  box.appendChild(intro);
  const qLine = el('p', 'qline');
  qLine.append(el('span', 'sym', 'q = '), vector(row(s.q, dh, query), 'q'));
  box.appendChild(qLine);

  const table = el('table', 'steps');
  const head = el('tr');
  for (const h of ['pos', 'token', 'key kⱼ', 'a(q, kⱼ)', 'αⱼ', 'value vⱼ', 'αⱼ vⱼ']) head.appendChild(el('th', '', h));
  table.appendChild(head);
  const shown = keysToShow(s.weights.subarray(query * n, (query + 1) * n));
  if (shown.length < n) {
    box.insertBefore(el('p', 'hint', `The ${shown.length} keys with the largest weights of ${n}, in order; every key enters the sum b below.`), qLine);
  }
  for (const j of shown) {
    const visible = s.mask[query * n + j] === 1;
    const tr = el('tr', visible ? '' : 'masked');
    tr.dataset.key = String(j);
    tr.append(el('td', 'num', String(j)), el('td', 'tok', labels[j]));
    const kCell = el('td');
    kCell.appendChild(vector(row(s.k, dh, j), `k${j}`));
    tr.appendChild(kCell);
    tr.appendChild(number(s.scores[query * n + j], `score${j}`));
    const alpha = s.weights[query * n + j];
    const aCell = number(alpha, `alpha${j}`);
    aCell.style.background = weightColor(alpha);
    tr.appendChild(aCell);
    const vCell = el('td');
    vCell.appendChild(vector(row(s.v, dh, j), `v${j}`));
    tr.appendChild(vCell);
    const wv = Float32Array.from(row(s.v, dh, j), (x) => alpha * x);
    const wvCell = el('td');
    wvCell.appendChild(vector(wv, `alpha_v${j}`));
    tr.appendChild(wvCell);
    if (!visible) tr.title = 'masked: this key comes after the query (causal)';
    table.appendChild(tr);
  }
  box.appendChild(table);
  const bLine = el('p', 'qline');
  bLine.append(el('span', 'sym', 'b = Σⱼ αⱼ vⱼ = '), vector(row(s.context, dh, query), 'b'));
  // The sum, redone here from the numbers above, against the engine's own output.
  let diff = 0;
  for (let c = 0; c < dh; c++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += s.weights[query * n + j] * s.v[j * dh + c];
    diff = Math.max(diff, Math.abs(sum - s.context[query * dh + c]));
  }
  const check = el('span', 'hint', ` (the engine's output; Σ αⱼ vⱼ from the rows above differs by ${diff.toExponential(1)})`);
  check.dataset.diff = String(diff);
  bLine.appendChild(check);
  box.appendChild(bLine);
  box.appendChild(matrixForm(s, labels, query));
}

// Q, K, V [n, dh] and S, A [n, n], B [n, dh] as small pictures, the query's row outlined.
function matrixForm(s, labels, query) {
  const n = s.tokens.length, dh = s.dHead;
  const wrap = el('div', 'matrix-form');
  const title = el('p', 'formula', `All queries at once: Q = XWᵠ, K = XWᵏ, V = XWᵛ;  S = QKᵀ${s.scale === 1 ? '' : '·scale'}${s.causal ? ' + causal mask (−∞ above the diagonal)' : ''};  A = softmax(S);  B = AV`);
  wrap.appendChild(title);
  const row1 = el('div', 'matrices');
  const picture = (name, data, cols, kind, useMask = false) => {
    const fig = el('figure');
    const canvas = el('canvas');
    const px = Math.max(3, Math.min(10, Math.floor(160 / Math.max(cols, n))));
    canvas.width = cols * px;
    canvas.height = n * px;
    canvas.dataset.name = name;
    const ctx = canvas.getContext('2d');
    const top = largestMagnitude(data);
    const masked = (i, c) => useMask && s.mask[i * n + c] === 0;
    const pixels = paintPixels(document.createElement('canvas'), n, cols, (i, c) => data[i * cols + c] / top,
                               { kind: kind === 'weights' ? 'weights' : 'signed', grey: masked });
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(pixels, 0, 0, cols * px, n * px);
    if (px >= 5) {  // masked cells crossed, where they are large enough to show it
      ctx.strokeStyle = '#8a929c';
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < cols; c++) {
          if (!masked(i, c)) continue;
          ctx.beginPath();
          ctx.moveTo(c * px, (i + 1) * px);
          ctx.lineTo((c + 1) * px, i * px);
          ctx.stroke();
        }
      }
    }
    ctx.strokeStyle = '#2a6fdb';
    ctx.lineWidth = 1.5;
    if (name !== 'K' && name !== 'V') ctx.strokeRect(0.75, query * px + 0.75, cols * px - 1.5, px - 1.5);
    fig.append(canvas, el('figcaption', '', `${name} [${n}×${cols}]`));
    return fig;
  };
  row1.append(picture('Q', s.q, dh, 'signed'), picture('K', s.k, dh, 'signed'), picture('V', s.v, dh, 'signed'),
    picture('S', s.scores, n, 'signed', true), picture('A', s.weights, n, 'weights', true), picture('B', s.context, dh, 'signed'));
  wrap.appendChild(row1);
  if (s.causal) wrap.appendChild(el('p', 'hint', 'Grey crossed cells of S and A are masked: a token never attends to tokens after it.'));
  return wrap;
}
