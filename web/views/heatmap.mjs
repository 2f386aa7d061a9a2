// Heatmap of one attention matrix [n_q, n_k] with token labels on both axes. Pure drawing:
// draw() paints a canvas and returns the geometry that cellAt() uses for hover look-ups.
// Column labels are written upwards so word pieces of any length fit; colours run from 0 to
// `top` (shared by the heads of a layer, or the matrix's own largest weight).
import { weightColor } from './colors.mjs';

const MAX_LABEL = 14;  // characters; longer labels are cut with an ellipsis
const fit = (s) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

export function drawHeatmap(canvas, { data, shape }, rowLabels, colLabels, { scale = 1, top = null, maxWidth = 560 } = {}) {
  const [nq, nk] = shape;
  const ctx = canvas.getContext('2d');
  const n = Math.max(nk, nq, 1);
  const available = Math.min(canvas.width, maxWidth * scale);
  // Cells first (so labels can be sized to them), then label room from the measured text.
  const fontFor = (cell) => Math.max(9 * scale, Math.min(14 * scale, cell * 0.6));
  const measure = (labels, font) => {
    ctx.font = `${font}px ui-monospace, monospace`;
    return Math.max(0, ...labels.map((l) => ctx.measureText(fit(String(l))).width));
  };
  let cell = Math.max(8 * scale, Math.min(44 * scale, Math.floor((available - 60 * scale) / n)));
  let fontSize = fontFor(cell);
  const labelW = Math.ceil(measure(rowLabels, fontSize) + 10 * scale);
  // Column labels lean right (60° up): the last one needs half its width beyond the last cell.
  const rightPad = Math.ceil(measure(colLabels.slice(-1), fontSize) * 0.5);
  cell = Math.max(8 * scale, Math.min(44 * scale, Math.floor((available - labelW - rightPad) / n)));
  fontSize = fontFor(cell);
  const labelH = Math.ceil(measure(colLabels, fontSize) * 0.8 + 12 * scale);
  canvas.height = Math.max(labelH + cell * nq + 4, 120 * scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.font = `${fontSize}px ui-monospace, monospace`;
  ctx.fillStyle = '#1b1f24';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  colLabels.forEach((l, k) => {
    ctx.save();
    ctx.translate(labelW + k * cell + cell / 2, labelH - 4 * scale);
    ctx.rotate(-Math.PI / 3);
    ctx.fillText(fit(String(l)), 0, 0);
    ctx.restore();
  });
  ctx.textAlign = 'right';
  rowLabels.forEach((l, q) => ctx.fillText(fit(String(l)), labelW - 6 * scale, labelH + q * cell + cell / 2));
  const max = top ?? Math.max(1e-6, ...data);
  for (let q = 0; q < nq; q++) {
    for (let k = 0; k < nk; k++) {
      ctx.fillStyle = weightColor(data[q * nk + k] / max);
      ctx.fillRect(labelW + k * cell, labelH + q * cell, cell - 1, cell - 1);
    }
  }
  return { labelW, labelH, cell, nq, nk, top: max };
}

// The (query, key) cell under canvas pixel (x, y), or null.
export function cellAt(geometry, x, y) {
  const { labelW, labelH, cell, nq, nk } = geometry;
  const k = Math.floor((x - labelW) / cell), q = Math.floor((y - labelH) / cell);
  return q >= 0 && q < nq && k >= 0 && k < nk ? { q, k } : null;
}

/** The largest weight of any head of a layer: the shared colour scale. */
export function layerTop(heads) {
  let top = 1e-6;
  for (const h of heads) for (const w of h.data) if (w > top) top = w;
  return top;
}
