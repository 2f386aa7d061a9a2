// The models that open with the page, and what the page says about them: the held-out metrics
// and the measured head patterns that the training script wrote next to each model.
import { fetchKept } from './model-store.mjs';

export const BUNDLED = {
  gpt2: {
    url: 'models/fortune-gpt2/', example: 'The meaning of life is to find your gift. The meaning of life is',
    help: 'any English text: GPT-2 sees each token and only the tokens before it',
  },
  llama: {
    url: 'models/fortune-llama/', example: 'The meaning of life is to find your gift. The meaning of life is',
    help: 'any English text: the Llama-architecture model sees each token and only the tokens before it',
  },
  bert: {
    url: 'models/fortune-bert/', example: 'A [MASK] in the hand is worth two in the bush.',
    help: 'English text with [MASK] where a word is missing: BERT sees the whole sentence',
  },
  topics: {
    url: 'models/fortune-topics/', example: 'The program crashed because the compiler ran out of memory on the old disk.',
    help: 'any English text: the classifier says which fortune file (computers, politics, science, work) it reads like, and which words [CLS] attends to',
  },
};

/** The bundled model of that name, or null: names come from links, so only BUNDLED's own keys count. */
export const bundledModel = (name) => (typeof name === 'string' && Object.hasOwn(BUNDLED, name) ? BUNDLED[name] : null);

async function json(url) {
  const r = await fetchKept(url);
  return r.ok ? r.json() : null;
}

// One line of metrics: perplexity for the language model, masked-token accuracy for BERT, label
// accuracy for the classifier (held_out or test, as the training script names the unseen fortunes).
function metricsText(m) {
  const h = m?.held_out ?? m?.test;
  if (!h) return '';
  const on = [h.tokens && `${h.tokens} tokens`, h.fortunes && `${h.fortunes} unseen fortunes`].filter(Boolean).join(' of ');
  if (h.perplexity !== undefined) return `held-out perplexity ${h.perplexity.toFixed(1)}${on ? ` on ${on}` : ''}`;
  if (h.accuracy !== undefined) {
    const base = h.baseline_majority_label;
    return `held-out accuracy ${(100 * h.accuracy).toFixed(1)} % on ${h.fortunes} unseen fortunes`
      + (base ? ` (always answering "${base.label}": ${(100 * base.accuracy).toFixed(1)} %)` : '');
  }
  if (h.top1_accuracy !== undefined) {
    return `held-out masked-token accuracy: top-1 ${(100 * h.top1_accuracy).toFixed(1)} %, top-5 ${(100 * h.top5_accuracy).toFixed(1)} %`
      + `${h.masked_tokens ? ` (${h.masked_tokens} masks)` : ''}`;
  }
  return '';
}

const headName = (layer, head) => `L${layer} H${head}`;
const readable = (pattern) => pattern.replace(/_/g, '-');

// Which heads do what, as measured (heads.json): the labelled heads, else the strongest per
// pattern. Two layouts: {heads: [{layer, head, <pattern>: score, pattern: [...]}]} and
// {labels: {<pattern>: [[layer, head] | {layer, head}]}, scores: {<pattern>: [layer][head]}}.
function headsText(h) {
  const labelled = [];
  const strongest = [];
  if (Array.isArray(h?.heads) && h.heads.length) {
    for (const x of h.heads) for (const p of x.pattern ?? []) labelled.push(`${headName(x.layer, x.head)} ${readable(p)}`);
    for (const key of ['previous_token', 'induction', 'next_token']) {
      if (h.heads[0][key] === undefined) continue;
      const b = h.heads.reduce((a, c) => ((c[key] ?? -1) > (a[key] ?? -1) ? c : a));
      strongest.push(`${readable(key)} ${headName(b.layer, b.head)} (${b[key].toFixed(2)})`);
    }
  } else if (h?.scores && typeof h.scores === 'object') {
    for (const [key, list] of Object.entries(h.labels ?? {})) {
      for (const e of Array.isArray(list) ? list : []) {
        const [layer, head] = Array.isArray(e) ? e : [e?.layer, e?.head];
        if (Number.isInteger(layer) && Number.isInteger(head)) labelled.push(`${headName(layer, head)} ${readable(key)}`);
      }
    }
    for (const [key, grid] of Object.entries(h.scores)) {
      if (!Array.isArray(grid)) continue;
      let best = null;
      grid.forEach((heads, layer) => (Array.isArray(heads) ? heads : []).forEach((v, head) => {
        if (typeof v === 'number' && (!best || v > best.v)) best = { layer, head, v };
      }));
      if (best) strongest.push(`${readable(key)} ${headName(best.layer, best.head)} (${best.v.toFixed(2)})`);
    }
  }
  if (labelled.length) return `Measured head patterns: ${labelled.join('; ')}.`;
  if (strongest.length) return `Measured: no head passes the pattern thresholds; strongest: ${strongest.join(', ')}.`;
  return '';
}

// The heads that pass the thresholds, each with its score and, where heads.json has one, the
// sentence that shows it: [{layer, head, pattern, score, text}] (labels + scores layout only).
// The score shown is the one the label was given on (heads.json label_scores), else the text one.
export function measuredHeads(h) {
  const out = [];
  if (!h?.labels || typeof h.labels !== 'object' || !h.scores) return out;
  const examples = Array.isArray(h.examples) ? h.examples : [];
  for (const [pattern, list] of Object.entries(h.labels)) {
    for (const e of Array.isArray(list) ? list : []) {
      const [layer, head] = Array.isArray(e) ? e : [e?.layer, e?.head];
      if (!Number.isInteger(layer) || !Number.isInteger(head)) continue;
      const grid = h.scores[h.label_scores?.[pattern]] ?? h.scores[pattern] ?? h.scores[`${pattern}_text`] ?? h.scores[`${pattern}_random`];
      const score = grid?.[layer]?.[head];
      const ex = examples.find((x) => x.layer === layer && x.head === head && x.pattern === pattern);
      out.push({ layer, head, pattern: readable(pattern), score: typeof score === 'number' ? score : null, text: ex?.text ?? null });
    }
  }
  return out;
}

/** Thresholds as heads.json states them, as one line ("previous-token >= 0.4, induction >= 0.3"), or ''. */
function thresholdsText(h) {
  const t = h?.thresholds;
  if (!t || typeof t !== 'object') return '';
  return Object.entries(t).map(([k, v]) => `${readable(k)} ≥ ${v}`).join(', ');
}

/** {metrics, heads, measured, thresholds} for a bundled model folder (empty when the files are absent). */
export async function describeBundled(url) {
  const [m, h] = await Promise.all([json(`${url}metrics.json`).catch(() => null), json(`${url}heads.json`).catch(() => null)]);
  const measured = measuredHeads(h);
  return { metrics: metricsText(m), heads: measured.length ? '' : headsText(h), measured, thresholds: thresholdsText(h) };
}
