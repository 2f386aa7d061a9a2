// The models that open with the page, and what the page says about them: the held-out metrics
// and the measured head patterns that the training script wrote next to each model.
export const BUNDLED = {
  gpt2: {
    url: 'models/fortune-gpt2/', example: 'The meaning of life is to find your gift. The meaning of life is',
    help: 'any English text: GPT-2 sees each token and only the tokens before it',
  },
  bert: {
    url: 'models/fortune-bert/', example: 'A [MASK] in the hand is worth two in the bush.',
    help: 'English text with [MASK] where a word is missing: BERT sees the whole sentence',
  },
};

async function json(url) {
  const r = await fetch(url);
  return r.ok ? r.json() : null;
}

// One line of metrics: perplexity for the language model, masked-token accuracy for BERT.
function metricsText(m) {
  const h = m?.held_out;
  if (!h) return '';
  if (h.perplexity !== undefined) return `held-out perplexity ${h.perplexity.toFixed(1)} on ${h.tokens} tokens of ${h.fortunes} unseen fortunes`;
  if (h.top1_accuracy !== undefined) {
    return `held-out masked-token accuracy: top-1 ${(100 * h.top1_accuracy).toFixed(1)} %, top-5 ${(100 * h.top5_accuracy).toFixed(1)} % (${h.masked_tokens} masks)`;
  }
  return '';
}

// Which heads do what, as measured (heads.json): the labelled heads, else the strongest ones.
function headsText(h) {
  if (!h?.heads?.length) return '';
  const labelled = h.heads.filter((x) => x.pattern?.length);
  const name = (x) => `L${x.layer} H${x.head}`;
  if (labelled.length) return `Measured head patterns: ${labelled.map((x) => `${name(x)} ${x.pattern.join(' + ')}`).join('; ')}.`;
  const best = (key) => h.heads.reduce((a, b) => ((b[key] ?? -1) > (a[key] ?? -1) ? b : a));
  const parts = [['previous_token', 'previous-token'], ['induction', 'induction'], ['next_token', 'next-token']]
    .filter(([k]) => h.heads[0][k] !== undefined)
    .map(([k, label]) => { const b = best(k); return `${label} ${name(b)} (${b[k].toFixed(2)})`; });
  return `Measured on repeated random tokens, no head passes the pattern thresholds; strongest: ${parts.join(', ')}.`;
}

/** {metrics, heads} lines for a bundled model folder (empty strings when the files are absent). */
export async function describeBundled(url) {
  const [m, h] = await Promise.all([json(`${url}metrics.json`).catch(() => null), json(`${url}heads.json`).catch(() => null)]);
  return { metrics: metricsText(m), heads: headsText(h) };
}
