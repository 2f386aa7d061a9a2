// The task heads' views of a text model's run: a classifier's labels as bars, with the tokens
// tinted by how much each reaches the deciding position (attention rollout, issue 33); a token
// classifier's entities as marked spans of the text. DOM only, from the library's results.
import { headColor, weightColor } from './colors.mjs';

const el = (tag, className, text) => {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * predictions: [{label, score}] best first; tokens / rollout: the labels of the tokens and the
 * rollout row of the deciding position ([length]) -> the bars, then the tinted tokens.
 */
export function drawClassification(container, predictions, tokens, rollout) {
  const bars = el('div', 'label-bars');
  for (const p of predictions) {
    const row = el('div', 'label-bar');
    const fill = el('span', 'label-fill');
    fill.style.width = `${(100 * Math.max(0, Math.min(1, p.score))).toFixed(1)}%`;
    row.append(el('span', 'label-name', p.label), el('span', 'label-track'), el('span', 'label-score', p.score.toFixed(3)));
    row.children[1].append(fill);
    bars.append(row);
  }
  container.append(bars);
  if (!rollout) return;
  // Scaled to the largest share, so the strongest token is the darkest whatever the length.
  const top = Math.max(...rollout);
  const strip = el('div', 'rollout');
  strip.append(el('span', 'rollout-title', 'decided by (attention rollout to token 0): '));
  tokens.forEach((t, i) => {
    const s = el('span', 'rollout-token', t);
    s.style.background = weightColor(top > 0 ? rollout[i] / top : 0);
    s.title = `${t}: ${(100 * rollout[i]).toFixed(1)} %`;
    strip.append(s, ' ');
  });
  container.append(strip);
}

/** entities: [{entityGroup | entity, score, word, start, end}] -> the text with each span marked. */
export function drawEntities(container, text, entities) {
  const names = [...new Set(entities.map((e) => e.entityGroup ?? e.entity))].sort();
  const line = el('div', 'entities');
  let at = 0;
  for (const e of [...entities].sort((a, b) => a.start - b.start)) {
    if (e.start < at) continue;  // spans never overlap in the pipeline's output; be safe anyway
    line.append(text.slice(at, e.start));
    const name = e.entityGroup ?? e.entity;
    const mark = el('mark', 'entity', text.slice(e.start, e.end));
    mark.style.borderColor = headColor(names.indexOf(name), names.length);
    mark.dataset.label = name;
    mark.title = `${name} ${(100 * e.score).toFixed(1)} %`;
    mark.append(el('sup', 'entity-label', name));
    line.append(mark);
    at = e.end;
  }
  line.append(text.slice(at));
  container.append(line);
  if (!entities.length) container.append(el('div', 'predictions', 'no entities found (every token labelled O)'));
}
