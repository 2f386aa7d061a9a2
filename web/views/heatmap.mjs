// Heatmap of one attention matrix [n_q, n_k] with token labels on both axes. Pure drawing:
// draw() paints a canvas and returns the geometry that cellAt() uses for hover look-ups.
import { weightColor } from './colors.mjs';

export function drawHeatmap(canvas, { data, shape }, rowLabels, colLabels, { scale = 1 } = {}) {
  const [nq, nk] = shape;
  const ctx = canvas.getContext('2d');
  const labelW = 54 * scale, labelH = 40 * scale;
  const cell = Math.max(8 * scale, Math.min(44 * scale, Math.floor((Math.min(canvas.width, 560 * scale) - labelW) / Math.max(nk, nq, 1))));
  canvas.height = Math.max(labelH + cell * nq + 4, 120 * scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const fontSize = Math.max(9, Math.min(14, cell * 0.6)) ;
  ctx.font = `${fontSize}px ui-monospace, monospace`;
  ctx.fillStyle = '#1b1f24';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  colLabels.forEach((l, k) => ctx.fillText(String(l), labelW + k * cell + cell / 2, labelH - 4));
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  rowLabels.forEach((l, q) => ctx.fillText(String(l), labelW - 6, labelH + q * cell + cell / 2));
  // Colours run from 0 to the matrix's largest weight, so near-uniform attention stays visible;
  // the tooltip shows exact values.
  const top = Math.max(1e-6, ...data);
  for (let q = 0; q < nq; q++) {
    for (let k = 0; k < nk; k++) {
      ctx.fillStyle = weightColor(data[q * nk + k] / top);
      ctx.fillRect(labelW + k * cell, labelH + q * cell, cell - 1, cell - 1);
    }
  }
  return { labelW, labelH, cell, nq, nk, top };
}

// The (query, key) cell under canvas pixel (x, y), or null.
export function cellAt(geometry, x, y) {
  const { labelW, labelH, cell, nq, nk } = geometry;
  const k = Math.floor((x - labelW) / cell), q = Math.floor((y - labelH) / cell);
  return q >= 0 && q < nq && k >= 0 && k < nk ? { q, k } : null;
}
