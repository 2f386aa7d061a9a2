// The zero-shot-classification pipeline (Hugging Face's pipelines/zero_shot_classification.py,
// transformers 4.46) on an NLI sequence classifier: each candidate label becomes the pair
// [text, hypothesisTemplate with the label], and the pairs' logits give the scores:
//   one label at a time (multiLabel, or a single candidate): softmax over the [contradiction,
//     entailment] columns of each pair, the entailment share;
//   otherwise: softmax of the entailment column over the candidates.
// The entailment column is found by name, never assumed: the first label of label2id (or
// id2label) starting with "entail", case-insensitive. Contradiction is column 0, or the last
// column when entailment is column 0. Unlike the pipeline (which warns and uses the last column),
// a model without such a label is an error.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';
import { readList } from './text-inputs.mjs';

/** The entailment column: label2id's order when the config has it, else id2label's. */
export function entailmentId(info) {
  const label2id = info.config?.label2id;
  const pairs = label2id && typeof label2id === 'object' && !Array.isArray(label2id)
    ? Object.entries(label2id)
    : info.labels.map((label, i) => [label, i]);
  for (const [label, id] of pairs) {
    if (label.toLowerCase().startsWith('entail') && Number.isSafeInteger(id) && id >= 0 && id < info.num_labels) return id;
  }
  return fail(`zeroShot: this model's labels (${info.labels.join(', ')}) have no entailment label (one starting with 'entail'): it is not an NLI model zero-shot classification can use`, 'unsupported');
}

/** The candidate labels: a non-empty array of strings, or a comma-separated string (as the pipeline parses it). */
export function candidateLabels(labels) {
  const wrong = (what) => fail(`zeroShot: labels must be an array of strings or a comma-separated string, got ${what}`);
  let list;
  if (typeof labels === 'string') list = labels.split(',').map((l) => l.trim()).filter((l) => l);
  else if (Array.isArray(labels)) list = readList(labels, (l, i) => { if (typeof l !== 'string') wrong(`${describe(l)} at index ${i}`); });
  else wrong(describe(labels));
  if (list.length === 0) fail('zeroShot: give at least one candidate label');
  return list;
}

/**
 * hypothesisTemplate.format(label), as the pipeline makes each hypothesis (Python's str.format
 * with the label as its one argument): '{}' or '{0}' (any number of times) is the label, '{{' and
 * '}}' are braces. What Python refuses is refused by name: a second '{}' (index 1 of one label),
 * '{1}' or '{name}', mixed '{}' and '{0}', a lone brace; and as the pipeline refuses a template
 * that formats to itself (no field), so is one here. Conversions, format specs and '{0[0]}' /
 * '{0.x}' are refused as unsupported. (replaceAll('{}') took '{} and {}' -- an IndexError in
 * Python -- and refused 'This is {0}.', which the pipeline takes.)
 */
export function hypothesis(template, label) {
  let out = '', auto = 0, manual = false;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if ((c === '{' || c === '}') && template[i + 1] === c) { out += c; i++; continue; }
    if (c !== '{') { out += c === '}' ? badTemplate(template, "a lone '}'") : c; continue; }
    const end = template.indexOf('}', i + 1), field = template.slice(i + 1, end);
    // A field Python refuses with one value (or that simdformer does not format): named.
    if (end < 0 || (field ? auto || !/^0+$/.test(field) : manual || auto++)) badTemplate(template, `'${end < 0 ? '{' : `{${field}}`}'`);
    manual ||= field !== '';
    out += label;
    i = end;
  }
  return out === template ? badTemplate(template, 'no {} where the label goes') : out;
}

const badTemplate = (template, what) => fail(`zeroShot: hypothesisTemplate ${describe(template)} has ${what}: `
  + "it is formatted as Python's str.format(label), where only {} or {0} (the label), '{{' and '}}' are valid");

// softmax(x), shifted by the max (Math.exp overflows past 709: Infinity / Infinity is NaN).
function softmax(x) {
  const max = x.reduce((a, b) => (b > a ? b : a), -Infinity);
  const e = x.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** logits [nCandidates, numLabels] -> {labels, scores} highest first. */
export function zeroShotScores(logits, numLabels, labels, entailment, multiLabel) {
  const row = (k) => logits.subarray(k * numLabels, (k + 1) * numLabels);
  let scores;
  if (multiLabel || labels.length === 1) {
    const contradiction = entailment === 0 ? numLabels - 1 : 0;
    scores = labels.map((_, k) => softmax([row(k)[contradiction], row(k)[entailment]])[1]);
  } else {
    scores = softmax(labels.map((_, k) => row(k)[entailment]));
  }
  const order = labels.map((_, k) => k).sort((a, b) => scores[b] - scores[a]);
  return { labels: order.map((k) => labels[k]), scores: order.map((k) => scores[k]) };
}
