// Head view (as bertviz draws it): queries on the left, keys on the right, one line per
// (query, key, head) with opacity = weight and one colour per head. Up to 64 tokens it is an SVG
// (labels as text, every line of weight >= 0.02); longer inputs (to 512 tokens) draw on a canvas:
// thousands of SVG nodes are what makes bertviz crawl there. The canvas keeps each query's 8
// strongest keys per head and writes labels only where rows are tall enough to read them.
import { headColor } from './colors.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const SHORT = 64;
const MIN_WEIGHT = 0.02;  // lighter lines only blur the drawing
const KEYS_PER_QUERY = 8;  // canvas view: the strongest keys of each query and head

// views: { svg, canvas }; returns the number of lines drawn.
export function drawHeadView(views, heads, visible, rowLabels, colLabels, scale = 1) {
  const { svg, canvas } = views;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const long = heads.length > 0 && Math.max(...heads[0].shape) > SHORT;
  svg.style.display = long ? 'none' : '';  // an SVGElement has no `hidden` property
  canvas.hidden = !long;
  if (!heads.length) return 0;
  return long ? drawOnCanvas(canvas, heads, visible, rowLabels, colLabels, scale) : drawSvg(svg, heads, visible, rowLabels, colLabels);
}

function drawSvg(svg, heads, visible, rowLabels, colLabels) {
  const [nq, nk] = heads[0].shape;
  const rowH = 22, top = 14, width = 300, xl = 70, xr = 230;
  const height = top * 2 + Math.max(nq, nk) * rowH;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const text = (x, y, s, anchor) => {
    const t = document.createElementNS(SVG, 'text');
    t.setAttribute('x', x); t.setAttribute('y', y); t.setAttribute('text-anchor', anchor);
    t.setAttribute('dominant-baseline', 'middle');
    t.textContent = s;
    svg.appendChild(t);
  };
  rowLabels.forEach((l, q) => text(xl - 8, top + q * rowH + rowH / 2, l, 'end'));
  colLabels.forEach((l, k) => text(xr + 8, top + k * rowH + rowH / 2, l, 'start'));
  let lines = 0;
  heads.forEach((head, h) => {
    if (!visible[h]) return;
    for (let q = 0; q < nq; q++) {
      for (let k = 0; k < nk; k++) {
        const w = head.data[q * nk + k];
        if (w < MIN_WEIGHT) continue;
        const line = document.createElementNS(SVG, 'line');
        line.setAttribute('x1', xl); line.setAttribute('y1', top + q * rowH + rowH / 2);
        line.setAttribute('x2', xr); line.setAttribute('y2', top + k * rowH + rowH / 2);
        line.setAttribute('stroke', headColor(h, heads.length));
        line.setAttribute('stroke-width', 2);
        line.setAttribute('stroke-opacity', Math.min(1, w).toFixed(3));
        svg.appendChild(line);
        lines++;
      }
    }
  });
  return lines;
}

function strongestKeys(data, q, nk) {
  const best = [];  // [weight, key], at most KEYS_PER_QUERY, lightest first
  for (let k = 0; k < nk; k++) {
    const w = data[q * nk + k];
    if (w < MIN_WEIGHT || (best.length === KEYS_PER_QUERY && w <= best[0][0])) continue;
    if (best.length === KEYS_PER_QUERY) best.shift();
    let i = best.findIndex(([x]) => x > w);
    if (i < 0) i = best.length;
    best.splice(i, 0, [w, k]);
  }
  return best;
}

function drawOnCanvas(canvas, heads, visible, rowLabels, colLabels, scale) {
  const [nq, nk] = heads[0].shape;
  const rowH = Math.max(2, Math.min(22, Math.floor(2400 / Math.max(nq, nk))));
  const top = 14, width = 300, xl = 70, xr = 230;
  canvas.width = width * scale;
  canvas.height = (top * 2 + Math.max(nq, nk) * rowH) * scale;
  canvas.style.width = `${width}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, canvas.height / scale);
  const y = (i) => top + i * rowH + rowH / 2;
  if (rowH >= 9) {
    ctx.font = `${Math.min(12, rowH - 2)}px ui-sans-serif, sans-serif`;
    ctx.fillStyle = '#1b1f24';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'end';
    rowLabels.forEach((l, q) => ctx.fillText(l, xl - 8, y(q)));
    ctx.textAlign = 'start';
    colLabels.forEach((l, k) => ctx.fillText(l, xr + 8, y(k)));
  }
  ctx.lineWidth = Math.min(2, Math.max(0.75, rowH / 4));
  let lines = 0;
  heads.forEach((head, h) => {
    if (!visible[h]) return;
    ctx.strokeStyle = headColor(h, heads.length);
    for (let q = 0; q < nq; q++) {
      for (const [w, k] of strongestKeys(head.data, q, nk)) {
        ctx.globalAlpha = Math.min(1, w);
        ctx.beginPath();
        ctx.moveTo(xl, y(q));
        ctx.lineTo(xr, y(k));
        ctx.stroke();
        lines++;
      }
    }
  });
  ctx.globalAlpha = 1;
  return lines;
}
