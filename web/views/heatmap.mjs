// Heatmap of one attention matrix [n_q, n_k] with token labels on both axes. Pure drawing:
// draw() paints a canvas and returns the geometry that cellAt() uses for hover look-ups.
// Column labels are written upwards so word pieces of any length fit; colours run from 0 to
// `top` (shared by the heads of a layer, or the matrix's own largest weight).
import { largestMagnitude, paintPixels } from './colors.mjs';

const MAX_LABEL = 14;  // characters; longer labels are cut with an ellipsis
const cut = (s) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

// Up to this many tokens every cell is at least 8 px with its labels; longer inputs (up to 512)
// fit the cells to the width (down to 1 px) and drop the labels when cells get too small to read
// them (hover names every cell); `zoom` multiplies the cell size and the wrapper scrolls.
const SHORT = 64;

export function drawHeatmap(canvas, { data, shape }, rowLabels, colLabels, { scale = 1, top = null, available = 560, zoom = 1 } = {}) {
  const [nq, nk] = shape;
  const ctx = canvas.getContext('2d');
  const n = Math.max(nk, nq, 1);
  const width = available * scale;
  const minCell = n <= SHORT ? 8 * scale : 1;
  const fit = (room) => Math.max(minCell, Math.min(44 * scale, Math.floor(room / n))) * zoom;
  // Cells first (so labels can be sized to them), then label room from the measured text.
  const fontFor = (cell) => Math.max(9 * scale, Math.min(14 * scale, cell * 0.6));
  const measure = (labels, font) => {
    ctx.font = `${font}px ui-monospace, monospace`;
    return Math.max(0, ...labels.map((l) => ctx.measureText(cut(String(l))).width));
  };
  let cell = fit(width - 60 * scale);
  let labelled = cell >= 7 * scale;
  let fontSize = fontFor(cell);
  const labelW = labelled ? Math.ceil(measure(rowLabels, fontSize) + 10 * scale) : 2;
  // Column labels lean right (60° up): the last one needs half its width beyond the last cell.
  const rightPad = labelled ? Math.ceil(measure(colLabels.slice(-1), fontSize) * 0.5) : 2;
  cell = fit(width - labelW - rightPad);
  labelled = labelled && cell >= 7 * scale;
  fontSize = fontFor(cell);
  const labelH = labelled ? Math.ceil(measure(colLabels, fontSize) * 0.8 + 12 * scale) : 2;
  canvas.width = Math.max(Math.round(width), labelW + cell * nk + rightPad);
  canvas.height = Math.max(labelH + cell * nq + 4, 120 * scale);
  canvas.style.width = `${canvas.width / scale}px`;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (labelled) drawLabels(ctx, rowLabels, colLabels, { labelW, labelH, cell, fontSize, scale });
  const max = top ?? largestMagnitude(data);
  const pixels = paintPixels(document.createElement('canvas'), nq, nk, (q, k) => data[q * nk + k] / max);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(pixels, labelW, labelH, cell * nk, cell * nq);
  if (cell >= 6) {  // a 1 px white gap between cells, as fillRect(cell - 1) drew them
    ctx.fillStyle = '#fff';
    for (let k = 1; k <= nk; k++) ctx.fillRect(labelW + k * cell - 1, labelH, 1, cell * nq);
    for (let q = 1; q <= nq; q++) ctx.fillRect(labelW, labelH + q * cell - 1, cell * nk, 1);
  }
  return { labelW, labelH, cell, nq, nk, top: max };
}

function drawLabels(ctx, rowLabels, colLabels, { labelW, labelH, cell, fontSize, scale }) {
  ctx.font = `${fontSize}px ui-monospace, monospace`;
  ctx.fillStyle = '#1b1f24';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  colLabels.forEach((l, k) => {
    ctx.save();
    ctx.translate(labelW + k * cell + cell / 2, labelH - 4 * scale);
    ctx.rotate(-Math.PI / 3);
    ctx.fillText(cut(String(l)), 0, 0);
    ctx.restore();
  });
  ctx.textAlign = 'right';
  rowLabels.forEach((l, q) => ctx.fillText(cut(String(l)), labelW - 6 * scale, labelH + q * cell + cell / 2));
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
