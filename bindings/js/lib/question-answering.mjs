// The question-answering pipeline's scoring (Hugging Face's pipelines/question_answering.py,
// transformers 4.46, fast tokenizer, question first), on each window's start / end logits from a
// ...ForQuestionAnswering head:
//   1. p_mask: a token can be in the answer only if it is context (sequence id 1), or the CLS
//      token; padding never. The others get -10000 before the softmax (not -inf: they still
//      count, with a weight that underflows to 0).
//   2. softmax of the start and of the end logits over the window (shifted by the max);
//      handleImpossibleAnswer keeps start[0] * end[0] as the null score (the smallest of all
//      windows); then start[0] = end[0] = 0.
//   3. candidates: start[i] * end[j] for i <= j <= i + maxAnswerLength - 1; the best
//      topK * 2 + 10 of them, kept when both ends are allowed (index 0 always passes: numpy's
//      isin against the mask's nonzero() of a [1, n] array also holds the row indices, all 0).
//   4. each span widened to the words of its first and last token (word_to_chars), the answer is
//      that slice of the context; an answer equal (case-insensitive) to one found before adds its
//      score to it.
//   5. after every window: the null answer if asked, then the topK by score (a stable sort).
// Ties among equal candidate scores (only the zeros outside the band) have no defined order in
// numpy; here they go by position.

const MASKED = -10000;

/** The mask of allowed tokens of one window: 1 = context or CLS (and a real token). */
export function answerMask(seq, clsId) {
  return seq.sequenceIds.map((s, i) => (s === 1 || seq.ids[i] === clsId ? 1 : 0));
}

// Softmax over one window's logits with the masked tokens at -10000, in doubles from float32.
function maskedSoftmax(logits, allowed) {
  const x = allowed.map((a, i) => (a ? logits[i] : MASKED));
  const max = Math.max(...x);
  const e = x.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/**
 * One window's candidates: start [n], end [n] (float32 logits of the window's real tokens),
 * allowed [n]. Returns {spans: [{s, e, score}] best first, nullScore}.
 */
export function windowSpans(start, end, allowed, { topK, maxAnswerLength }) {
  const n = allowed.length;
  const ps = maskedSoftmax(start, allowed), pe = maskedSoftmax(end, allowed);
  const nullScore = ps[0] * pe[0];
  ps[0] = 0;
  pe[0] = 0;
  // The band i <= j <= i + maxAnswerLength - 1 holds every non-zero candidate; the zeros
  // outside it only matter when the band has fewer than the candidates kept.
  const keep = Math.min(topK * 2 + 10, n * n);
  const band = [];
  for (let i = 0; i < n; i++) {
    for (let j = i; j < Math.min(n, i + maxAnswerLength); j++) band.push({ s: i, e: j, score: ps[i] * pe[j] });
  }
  band.sort((a, b) => b.score - a.score);  // stable: ties by position
  const best = band.slice(0, keep);
  for (let k = 0; best.length < keep && k < n * n; k++) {
    const i = Math.floor(k / n), j = k % n;
    if (j < i || j - i >= maxAnswerLength) best.push({ s: i, e: j, score: 0 });
  }
  const any = allowed.some((a) => a === 1);
  const ok = (i) => any && (i === 0 || allowed[i] === 1);
  return { spans: best.filter((c) => ok(c.s) && ok(c.e)), nullScore };
}

/** word id -> [start, end) characters of that word's context tokens, for a window with wordIds. */
function wordChars(seq) {
  const chars = new Map();
  if (!seq.wordIds) return chars;
  seq.wordIds.forEach((w, k) => {
    if (w === null || seq.sequenceIds[k] !== 1) return;
    const [start, end] = seq.offsets[k];
    const known = chars.get(w);
    if (known) known[1] = end;
    else chars.set(w, [start, end]);
  });
  return chars;
}

/** [start, end) characters of the context for tokens s..e: the whole words they belong to. */
export function answerChars(seq, s, e, words = wordChars(seq)) {
  const first = seq.wordIds ? words.get(seq.wordIds[s]) : undefined, last = seq.wordIds ? words.get(seq.wordIds[e]) : undefined;
  if (!first || !last) return [seq.offsets[s][0], seq.offsets[e][1]];
  return [first[0], last[1]];
}

/**
 * Merges the windows' spans into answers and picks the topK (see the file comment). Each span
 * costs O(1) (its words' characters and the answer it merges into are looked up), so a topK
 * that keeps every candidate of long contexts stays linear in the candidates.
 */
export function collectAnswers(context, windows, options) {
  const answers = [], byText = new Map();
  let nullScore = 1000000;
  for (const { seq, spans, windowNull } of windows) {
    nullScore = Math.min(nullScore, windowNull);
    const words = wordChars(seq);
    for (const { s, e, score } of spans) {
      const [start, end] = answerChars(seq, s, e, words);
      const text = context.slice(start, end);
      const key = text.toLowerCase();
      const same = byText.get(key);
      if (same) same.score += score;
      else {
        const a = { answer: text, score, start, end };
        byText.set(key, a);
        answers.push(a);
      }
    }
  }
  if (options.handleImpossibleAnswer) answers.push({ answer: '', score: nullScore, start: 0, end: 0 });
  answers.sort((a, b) => b.score - a.score);
  return answers.slice(0, options.topK);
}
