// Model view: a grid of thumbnails, one per layer (rows) and head (columns). topOf(layer) gives
// the layer's shared colour scale; without it each thumbnail uses its own largest weight.
import { largestMagnitude, paintPixels } from './colors.mjs';

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
    const [nq, nk] = shape;
    const top = topOf ? topOf(l) : largestMagnitude(data);
    const canvas = paintPixels(document.createElement('canvas'), nq, nk, (q, k) => data[q * nk + k] / top);
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
