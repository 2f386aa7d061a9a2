// Model view: a grid of thumbnails, one per layer (rows) and head (columns). topOf(layer) gives
// the layer's shared colour scale; without it each thumbnail uses its own largest weight.
// groups (grouped-query attention): [[query heads of kv head 0], ...]; the thumbnails then say
// which key/value head each query head reads, and a gap separates the groups.
import { largestMagnitude, paintPixels } from './colors.mjs';

export function drawModelView(container, layers, selected, onPick, topOf = null, groups = null) {
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
    const g = groups ? groups.findIndex((hs) => hs.includes(h)) : -1;
    label.textContent = g >= 0 ? `L${l} H${h} · kv${g}` : `L${l} H${h}`;
    if (g >= 0) {
      cell.dataset.kvHead = g;
      if (g > 0 && groups[g][0] === h) cell.classList.add('kv-first');
    }
    cell.append(canvas, label);
    cell.addEventListener('click', () => onPick(l, h));
    container.appendChild(cell);
    count++;
  }));
  return count;
}
