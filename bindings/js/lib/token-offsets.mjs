// Character offsets of tokens in the text they came from. @huggingface/tokenizers returns token
// strings only, so each token's text (its "surface": subword markers removed, byte-level symbols
// decoded) is located in the original text, in order. Both sides are compared after folding
// (compatibility decomposition, combining marks removed, lower case), which undoes what
// tokenizer normalizers do (BertNormalizer's lowercasing and accent stripping, NFKC, ...).
//
// Offsets are [start, end) in UTF-16 code units of the JS string, so text.slice(start, end) is the
// token's text. tokenOffsets() excludes surrounding whitespace (as Hugging Face's trim_offsets:
// true); a byte-level token of spaces only gets the empty span at its end, as there. Byte-level
// tokenizers whose bytes spell the text get exact spans instead (byteLevelSpans), trimmed only
// when their post-processor says so (trimByteLevelSpans), as in the Rust library.
// Tokens whose text cannot be located (an unknown-word token, a byte-level token holding part of
// a multi-byte character) span the text between their neighbours; several such tokens in a row
// share that span, as Hugging Face gives every byte of a character the character's offsets --
// unless the span holds exactly one (BERT pre-tokenizer) word per token: then, as several [UNK]
// words in a row (CJK characters a vocabulary lacks), each gets its word.

const fold = (s) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const isSpace = (s) => /^\s$/u.test(s);

// The folded text with, for each folded UTF-16 unit, the [start, end) of the original code point.
function foldedWithOrigins(text) {
  let folded = '';
  const starts = [], ends = [];
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i);
    const width = cp > 0xffff ? 2 : 1;
    const f = fold(String.fromCodePoint(cp));
    for (let k = 0; k < f.length; k++) { starts.push(i); ends.push(i + width); }
    folded += f;
    i += width;
  }
  return { folded, starts, ends };
}

// BERT's pre-tokenizer words of folded[from, to): whitespace-separated runs, with every
// punctuation character and every CJK ideograph a word of its own (BertNormalizer puts spaces
// around CJK characters). [[start, end)] in folded positions.
const isPunct = (c) => /[\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/u.test(c);
const isCjk = (c) => /[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u{20000}-\u{2a6df}\u{2a700}-\u{2ceaf}\u{2f800}-\u{2fa1f}]/u.test(c);
function wordsIn(folded, from, to) {
  const words = [];
  let start = -1;
  for (let p = from; p < to; p++) {
    const c = folded[p];
    if (isSpace(c) || isPunct(c) || isCjk(c)) {
      if (start >= 0) words.push([start, p]);
      start = -1;
      if (!isSpace(c)) words.push([p, p + 1]);
    } else if (start < 0) start = p;
  }
  if (start >= 0) words.push([start, to]);
  return words;
}

/**
 * text: the original string; surfaces: per token its text, or null when it has none to locate
 * (unknown token). Returns [start, end] per token.
 */
export function tokenOffsets(text, surfaces) {
  const { folded, starts, ends } = foldedWithOrigins(text);
  const offsets = new Array(surfaces.length);
  let cursor = 0;           // folded position after the last located token
  let pending = [];         // tokens waiting for the next located token to close their span
  const skipSpace = (p) => { while (p < folded.length && isSpace(folded[p])) p++; return p; };
  const closePending = (endFolded) => {
    const from = skipSpace(cursor);
    let to = endFolded;
    while (to > from && isSpace(folded[to - 1])) to--;
    const words = pending.length > 1 && from < to ? wordsIn(folded, from, to) : null;
    if (words && words.length === pending.length) {
      // one unknown token per word (WordPiece gives a whole word [UNK]): each its own word
      pending.forEach((k, i) => { offsets[k] = [starts[words[i][0]], ends[words[i][1] - 1]]; });
    } else {
      const span = from < to ? [starts[from], ends[to - 1]] : [at(from), at(from)];
      for (const k of pending) offsets[k] = span;
    }
    pending = [];
  };
  const at = (p) => (p < folded.length ? starts[p] : text.length);
  surfaces.forEach((surface, k) => {
    if (surface !== null && surface !== '' && surface.trim() === '') {
      // a whitespace-only token (a lone Ġ or ▁): the whitespace run at the cursor, if any
      const end = skipSpace(cursor);
      if (pending.length) closePending(cursor);
      offsets[k] = end > cursor ? [starts[cursor], ends[end - 1]] : [at(cursor), at(cursor)];
      cursor = end;
      return;
    }
    const want = surface === null ? '' : fold(surface).replace(/\s+/gu, '');
    const found = want && !want.includes('\ufffd') ? folded.indexOf(want, cursor) : -1;
    if (found < 0) { pending.push(k); return; }
    if (pending.length) closePending(found);
    offsets[k] = [starts[found], ends[found + want.length - 1]];
    cursor = found + want.length;
  });
  if (pending.length) closePending(folded.length);
  return offsets;
}

/**
 * Exact spans for byte-level tokenizers (GPT-2, RoBERTa, Llama 3, Qwen2): tokenBytes[k] are the
 * UTF-8 bytes token k stands for. When the tokens' bytes spell the text (or the text after one
 * added prefix space), -> {spans, units}: spans[k] = [start, end) in bytes of the text, as the Rust
 * library's Encoding holds them before any post-processor: the bytes of every character a token
 * has a byte of (so the tokens holding the pieces of one multi-byte character all get that
 * character), the added prefix space counting as the first character (NormalizedString.prepend
 * aligns it with that character). units(span) turns a span into [start, end) in UTF-16 code units
 * of the text, as the library's byte -> char conversion does. Whether spaces are then trimmed is
 * the post-processor's business (trimByteLevelSpans). Returns null when the bytes do not spell
 * the text (e.g. spaces stripped around a special token); the caller then uses tokenOffsets().
 */
export function byteLevelSpans(text, tokenBytes) {
  const encoded = new TextEncoder().encode(text);
  const total = tokenBytes.reduce((n, b) => n + b.length, 0);
  const shift = total === encoded.length + 1 && tokenBytes[0]?.[0] === 0x20 ? 1 : 0;  // add_prefix_space
  if (total !== encoded.length + shift) return null;
  let p = 0;
  for (const bytes of tokenBytes) {
    for (const byte of bytes) {
      if (p >= shift && byte !== encoded[p - shift]) return null;
      p++;
    }
  }
  // byte index -> [start, end) of the UTF-16 code unit(s) and of the bytes of the character holding it
  const n = encoded.length;
  const unitStart = new Int32Array(n), unitEnd = new Int32Array(n), byteStart = new Int32Array(n), byteEnd = new Int32Array(n);
  for (let i = 0, b = 0; i < text.length;) {
    const cp = text.codePointAt(i);
    const width = cp > 0xffff ? 2 : 1;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < size; k++) { unitStart[b + k] = i; unitEnd[b + k] = i + width; byteStart[b + k] = b; byteEnd[b + k] = b + size; }
    b += size;
    i += width;
  }
  const spans = [];
  let at = -shift;  // byte position in `encoded` (-1: the added prefix space, aligned with byte 0's character)
  for (const bytes of tokenBytes) {
    const from = Math.max(at, 0), to = at + bytes.length;
    at = to;
    // the prefix space alone: the first character's bytes
    spans.push(to <= 0 ? [0, byteEnd[0]] : [byteStart[from], byteEnd[to - 1]]);
  }
  const units = ([b0, b1]) => {
    if (b0 >= b1) return b0 < n ? [unitStart[b0], unitStart[b0]] : [text.length, text.length];
    return [unitStart[b0], unitEnd[b1 - 1]];
  };
  return { spans, units };
}

const isTrimmedSpace = (c) => c === '\u0120' || /^\s$/u.test(c);  // Ġ (the space byte) or whitespace

/**
 * The ByteLevel / RobertaProcessing post-processor's trim_offsets (process_offsets of the Rust
 * library, processors/byte_level.rs), on the byte spans of one text's tokens (tokens: their
 * strings; index 0 is the first token of the part, as in a truncated or overflowing Encoding):
 * leading spaces (Ġ or whitespace characters of the token string) move the start right, trailing
 * ones the end left, never past each other; with addPrefixSpace, a single leading space of the
 * first token (index 0, or a span starting at 0) is kept, being the one the pre-tokenizer added.
 */
export function trimByteLevelSpans(spans, tokens, addPrefixSpace) {
  return spans.map(([start, end], i) => {
    const chars = Array.from(tokens[i]);
    let leading = 0, trailing = 0;
    while (leading < chars.length && isTrimmedSpace(chars[leading])) leading++;
    while (trailing < chars.length && isTrimmedSpace(chars[chars.length - 1 - trailing])) trailing++;
    if (leading > 0) {
      if ((i === 0 || start === 0) && addPrefixSpace && leading === 1) leading = 0;
      start = Math.min(start + leading, end);
    }
    if (trailing > 0 && end >= trailing) end = Math.max(end - trailing, start);
    return [start, end];
  });
}

/**
 * Exact spans for SentencePiece-style tokenizers whose spaces become ▁ inside the text (Llama 2 /
 * Mistral: a Prepend("▁") + Replace(" ", "▁") normalizer, or a Metaspace pre-tokenizer not preceded
 * by a whitespace split): the Rust NormalizedString keeps each replaced space's own place
 * (a one-to-one replace) and gives a prepended ▁ the first character's place (prepend), so
 * "▁world" spans the space before "world" too. When the tokens spell the text so rewritten (with or
 * without the one prepended ▁), -> [start, end) in UTF-16 units per token; else null (byte
 * fallback, an unknown piece, another normalizer: the caller locates the tokens instead).
 */
export function metaspaceOffsets(text, tokens) {
  const joined = tokens.join('');
  const replaced = text.replaceAll(' ', '\u2581');
  const prepended = joined.length === replaced.length + 1 && joined === `\u2581${replaced}`;
  if (!prepended && joined !== replaced) return null;
  // per UTF-16 unit of `joined`: the [start, end) of the text's code point it stands for
  const starts = [], ends = [];
  const firstWidth = text.length === 0 ? 0 : text.codePointAt(0) > 0xffff ? 2 : 1;
  if (prepended) { starts.push(0); ends.push(firstWidth); }
  for (let i = 0; i < text.length;) {
    const width = text.codePointAt(i) > 0xffff ? 2 : 1;
    for (let k = 0; k < width; k++) { starts.push(i); ends.push(i + width); }
    i += width;
  }
  const offsets = [];
  let at = 0;
  for (const t of tokens) {
    offsets.push(t.length === 0 ? [starts[at] ?? text.length, starts[at] ?? text.length] : [starts[at], ends[at + t.length - 1]]);
    at += t.length;
  }
  return offsets;
}
