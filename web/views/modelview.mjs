// Model view: a grid of thumbnails, one per layer (rows) and head (columns). topOf(layer) gives
// the layer's shared colour scale; without it each thumbnail uses its own largest weight.
import { weightColor } from './colors.mjs';

export function drawModelView(container, layers, selected, onPick, topOf = null) {
  container.replaceChildren();
  if (!layers.length) return 0;
  const heads = layers[0].length;
  container.style.gridTemplateColumns = `repeat(${heads}, max-content)`;
  let count = 0;
  layers.forEach((layer, l) => layer.forEach(({ data, shape }, h) => {
    const cell = document.createElement('div');
    cell.className = 'cell' + (l === selected.layer && h === selected.head ? ' selected' : '');
    cell.dataset.layer = l;
    cell.dataset.head = h;
    const canvas = document.createElement('canvas');
    const [nq, nk] = shape;
    canvas.width = nk;
    canvas.height = nq;
    const ctx = canvas.getContext('2d');
    const top = topOf ? topOf(l) : Math.max(1e-6, ...data);
    for (let q = 0; q < nq; q++) for (let k = 0; k < nk; k++) {
      ctx.fillStyle = weightColor(data[q * nk + k] / top);
      ctx.fillRect(k, q, 1, 1);
    }
    const label = document.createElement('div');
    label.className = 'label';
    label.textContent = `L${l} H${h}`;
    cell.append(canvas, label);
    cell.addEventListener('click', () => onPick(l, h));
    container.appendChild(cell);
    count++;
  }));
  return count;
}
