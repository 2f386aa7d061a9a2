// The text-classification pipeline's post-processing (Hugging Face's
// pipelines/text_classification.py), on one item's logits from a ...ForSequenceClassification
// head: the function it applies by default, the scores, and the labels sorted by score.
import { describe, oneOf } from './options.mjs';
import { fail } from './errors.mjs';

export const FUNCTIONS = ['softmax', 'sigmoid', 'none'];
export const functionToApply = () => oneOf(FUNCTIONS, undefined, true);

/**
 * The pipeline's default, in its order of tests: regression -> 'none'; multi-label or a single
 * label -> 'sigmoid'; single-label or several labels -> 'softmax'.
 */
export function defaultFunction(problemType, numLabels) {
  if (problemType === 'regression') return 'none';
  if (problemType === 'multi_label_classification' || numLabels === 1) return 'sigmoid';
  return 'softmax';
}

/**
 * topK: an integer >= 0 (more than the labels gives them all; 0 none, as the pipeline's
 * scores[:top_k] and CrossEncoder.rank's results[:top_k]), or null for every label.
 */
export const topK = (fallback) => ({
  fallback,
  read: (v, what) => {
    if (v === null) return Infinity;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`${what} must be an integer >= 0 or null (every one), got ${describe(v)}`);
    return v;
  },
});

/** scores [numLabels] (doubles) from float32 logits: softmax shifted by the max, as the pipeline. */
export function classificationScores(logits, fn) {
  const x = Float64Array.from(logits);
  if (fn === 'sigmoid') return x.map((v) => 1 / (1 + Math.exp(-v)));
  if (fn === 'none') return x;
  let max = -Infinity;
  for (const v of x) if (v > max) max = v;
  const e = x.map((v) => Math.exp(v - max));
  let sum = 0;
  for (const v of e) sum += v;
  return e.map((v) => v / sum);
}

/** [{label, score}] by score, highest first (a stable sort: equal scores keep label order), the first k. */
export function rankLabels(scores, labels, k) {
  const ranked = Array.from(scores, (score, i) => ({ label: labels[i], score }));
  ranked.sort((a, b) => b.score - a.score);
  return ranked.slice(0, Math.min(k, ranked.length));
}

/** What a checkpoint has instead of the head a call needs, for its error. */
export function headsOf(info) {
  const heads = [];
  if (info.has_pooler) heads.push('pooler');
  if (info.has_mlm_head) heads.push('masked-LM head');
  if (info.has_lm_head) heads.push('LM head');
  if (info.has_classifier) heads.push('sequence-classification head');
  if (info.has_token_classifier === true) heads.push('token-classification head');
  if (info.has_qa_head === true) heads.push('question-answering head');
  const unused = info.unused_tensors ?? [];
  const listed = unused.slice(0, 4).join(', ') + (unused.length > 4 ? `, ... (${unused.length} in all)` : '');
  return (heads.length ? heads.join(', ') : 'no head (a bare encoder)') + (unused.length ? `; tensors it does not run: ${listed}` : '');
}

/** Throws unsupported unless info[flag]: "<call>: this checkpoint has no <head>; it has: ...". */
export function requireHead(info, flag, head, call, classSuffix) {
  if (info[flag] === true) return;
  const cls = Array.isArray(info.config?.architectures) ? ` (config architectures: ${info.config.architectures.join(', ')})` : '';
  fail(`${call}: this checkpoint has no ${head}; it has: ${headsOf(info)}${cls}; load a ...${classSuffix} checkpoint`, 'unsupported');
}

// The activations a CrossEncoder config may name, by torch.nn class, as score functions.
const CROSS_ENCODER_ACTIVATIONS = {
  Sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  Identity: (x) => x,
  Tanh: (x) => Math.tanh(x),
};

/**
 * The score function of a one-label cross-encoder, as sentence-transformers' CrossEncoder picks
 * its default activation from config.json: sentence_transformers.activation_fn (v4 and later),
 * else sbert_ce_default_activation_function (earlier versions: ms-marco rerankers name Identity,
 * i.e. raw logits), else sigmoid. A path outside torch.* is what CrossEncoder ignores without
 * trust_remote_code (the default then); a torch activation not computed here is an error.
 */
export function crossEncoderActivation(config) {
  const st = config?.sentence_transformers;
  let path = null;
  if (st && typeof st === 'object' && !Array.isArray(st) && 'activation_fn' in st) path = st.activation_fn;
  else if (config?.sbert_ce_default_activation_function != null) path = config.sbert_ce_default_activation_function;
  if (path == null) return CROSS_ENCODER_ACTIVATIONS.Sigmoid;
  if (typeof path !== 'string') fail(`rerank: config's cross-encoder activation must be a string, got ${describe(path)}`);
  if (!path.startsWith('torch.')) return CROSS_ENCODER_ACTIVATIONS.Sigmoid;
  // CrossEncoder imports the path, so torch.nn.Sigmoid names the class that sentence-transformers
  // writes as torch.nn.modules.activation.Sigmoid.
  const cls = /^torch\.nn\.(?:modules\.(?:activation|linear)\.)?(Sigmoid|Identity|Tanh)$/.exec(path)?.[1];
  if (!cls) fail(`rerank: the config's cross-encoder activation ${path} is not supported (supported: torch.nn Sigmoid, Identity, Tanh)`, 'unsupported');
  return CROSS_ENCODER_ACTIVATIONS[cls];
}

/**
 * sentence-transformers' CrossEncoder.rank on a one-label model: each document's score is its
 * [query, document] logit through the CrossEncoder's activation (crossEncoderActivation: sigmoid
 * by default); documents highest first (a stable sort), the first k.
 */
export function rankDocuments(logits, k, activation = CROSS_ENCODER_ACTIVATIONS.Sigmoid) {
  const ranked = Array.from(logits, (x, index) => ({ index, score: activation(x) }));
  ranked.sort((a, b) => b.score - a.score);
  return ranked.slice(0, Math.min(k, ranked.length));
}
