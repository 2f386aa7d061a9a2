// The colour bar under the heatmap: the ramp weightColor() draws, from 0 to `top`, and whether
// that top is shared by the layer's heads or the head's own.
import { weightColor } from './colors.mjs';

export function drawColorBar(box, top, shared) {
  const ramp = Array.from({ length: 11 }, (_, i) => weightColor(i / 10)).join(', ');
  box.replaceChildren();
  const bar = document.createElement('div');
  bar.className = 'bar';
  bar.style.background = `linear-gradient(to right, ${ramp})`;
  const low = document.createElement('span');
  low.textContent = '0';
  const high = document.createElement('span');
  high.className = 'top';
  high.textContent = top.toFixed(3);
  const what = document.createElement('span');
  what.className = 'hint';
  what.textContent = shared ? ' (one scale for every head of this layer)' : ' (this head\'s own scale)';
  box.append(low, bar, high, what);
  box.dataset.top = String(top);
}
