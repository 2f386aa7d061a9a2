// The token-classification ("ner") pipeline's post-processing (Hugging Face's
// pipelines/token_classification.py, transformers 4.46), on one text's per-token logits from a
// ...ForTokenClassification head: softmax per token, the special tokens dropped, then the
// aggregation strategy, then the ignored labels filtered out.
//
//   none    every token: its best label, score, index, word (the token), start, end
//   simple  tokens grouped: a token joins the group before it when its tag (the label without
//           B-/I-) is the same and it is not a B- (a label without B-/I- counts as I-)
//   first / average / max   tokens of one word first get one label (the first token's, the one
//           of the averaged scores, or the most confident token's), then words are grouped as in
//           simple. Words are told by subwords: with a ## prefix (WordPiece) a token whose text is
//           longer than its span in the sentence; otherwise a token that starts neither the text
//           nor after a space (the pipeline's fallback heuristic for BPE and SentencePiece).
// With a stride (not with 'none', as in the pipeline) a text longer than maxLength is read in
// overlapping windows, each window's entities found as above, and the overlaps merged.
import { oneOf } from './options.mjs';

export const AGGREGATIONS = ['none', 'simple', 'first', 'average', 'max'];
export const aggregation = () => oneOf(AGGREGATIONS, 'none', true);

/** Scores [n, L] (doubles): softmax of each token's float32 logits, shifted by its max. */
function tokenScores(logits, n, L) {
  const scores = [];
  for (let i = 0; i < n; i++) {
    const row = logits.subarray(i * L, (i + 1) * L);
    let max = -Infinity;
    for (const v of row) if (v > max) max = v;
    const e = Array.from(row, (v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    scores.push(e.map((v) => v / sum));
  }
  return scores;
}

const argmax = (xs) => xs.reduce((best, v, i) => (v > xs[best] ? i : best), 0);

/**
 * The entities of one text. seq: the encoding (tokens, ids, offsets, sequenceIds: null for the
 * special tokens); logits [seq.length, L] float32; tok: {hasSubwordPrefix, unkId,
 * convertTokensToString}.
 */
export function tokenEntities(text, seq, logits, labels, tok, { aggregation: strategy, ignoreLabels }) {
  const scores = tokenScores(logits, seq.length, labels.length);
  const pre = [];
  for (let i = 0; i < seq.length; i++) {
    if (seq.sequenceIds[i] === null) continue;  // special tokens only sit at the text's ends
    const [start, end] = seq.offsets[i];
    let word = seq.tokens[i];
    let isSubword = tok.hasSubwordPrefix
      ? word.length !== end - start
      : start > 0 && !text.slice(start - 1, start + 1).includes(' ');
    if (seq.ids[i] === tok.unkId) {
      word = text.slice(start, end);
      isSubword = false;
    }
    pre.push({ word, scores: scores[i], start, end, index: i, isSubword });
  }
  let entities;
  if (strategy === 'none' || strategy === 'simple') {
    entities = pre.map((p) => {
      const k = argmax(p.scores);
      return { entity: labels[k], score: p.scores[k], index: p.index, word: p.word, start: p.start, end: p.end };
    });
  } else {
    entities = wordEntities(pre, strategy, labels, tok);
  }
  if (strategy !== 'none') entities = groupEntities(entities, tok);
  const ignored = new Set(ignoreLabels);
  return entities.filter((e) => !ignored.has(e.entity ?? e.entityGroup));
}

// One entity per word: consecutive subword tokens join the token before them.
function wordEntities(pre, strategy, labels, tok) {
  const words = [];
  let group = null;
  for (const p of pre) {
    if (group && p.isSubword) group.push(p);
    else {
      if (group) words.push(wordEntity(group, strategy, labels, tok));
      group = [p];
    }
  }
  if (group) words.push(wordEntity(group, strategy, labels, tok));
  return words;
}

function wordEntity(group, strategy, labels, tok) {
  let scores;
  if (strategy === 'first') scores = group[0].scores;
  else if (strategy === 'max') {
    // the token with the highest score (the first of equal ones), and its label
    let best = group[0];
    for (const p of group) if (Math.max(...p.scores) > Math.max(...best.scores)) best = p;
    scores = best.scores;
  } else {
    scores = group[0].scores.map((_, k) => group.reduce((s, p) => s + p.scores[k], 0) / group.length);
  }
  const k = argmax(scores);
  return {
    entity: labels[k], score: scores[k], word: tok.convertTokensToString(group.map((p) => p.word)),
    start: group[0].start, end: group[group.length - 1].end,
  };
}

/**
 * The entities of a text read in overlapping windows (the pipeline's
 * aggregate_overlapping_entities): sorted by start; an entity starting inside the one kept
 * before it replaces that one when it is longer, or as long with a higher score.
 */
export function mergeOverlapping(entities) {
  const sorted = [...entities].sort((a, b) => a.start - b.start);  // stable, as Python's sorted
  const out = [];
  let previous = sorted[0];
  for (const e of sorted) {
    if (previous.start <= e.start && e.start < previous.end) {
      const length = e.end - e.start, previousLength = previous.end - previous.start;
      if (length > previousLength || (length === previousLength && e.score > previous.score)) previous = e;
    } else {
      out.push(previous);
      previous = e;
    }
  }
  if (previous) out.push(previous);
  return out;
}

// B-X -> ['B', 'X'], I-X -> ['I', 'X'], anything else -> ['I', label]: a continuation.
function tag(label) {
  if (label.startsWith('B-')) return ['B', label.slice(2)];
  if (label.startsWith('I-')) return ['I', label.slice(2)];
  return ['I', label];
}

function groupEntities(entities, tok) {
  const groups = [];
  let current = [];
  const close = () => {
    const first = current[0].entity;
    groups.push({
      entityGroup: first.slice(first.lastIndexOf('-') + 1),  // the pipeline's split("-")[-1]
      score: current.reduce((s, e) => s + e.score, 0) / current.length,
      word: tok.convertTokensToString(current.map((e) => e.word)),
      start: current[0].start, end: current[current.length - 1].end,
    });
  };
  for (const e of entities) {
    if (current.length) {
      const [bi, t] = tag(e.entity);
      if (t !== tag(current[current.length - 1].entity)[1] || bi === 'B') {
        close();
        current = [];
      }
    }
    current.push(e);
  }
  if (current.length) close();
  return groups;
}
