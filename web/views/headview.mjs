// Head view (as bertviz draws it): queries on the left, keys on the right, one line per
// (query, key, head) with opacity = weight and one colour per head.
import { headColor } from './colors.mjs';

const SVG = 'http://www.w3.org/2000/svg';

export function drawHeadView(svg, heads, visible, rowLabels, colLabels) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  if (!heads.length) return 0;
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
        if (w < 0.02) continue;  // keep the drawing readable
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
