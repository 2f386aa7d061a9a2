// Checks of a tokenizer.json made before the tokenizer library sees it, for what that library
// would get silently wrong or take unbounded time on:
//  - token ids: the library indexes an array by id, so 1.5 or 2^32 + 7 would become another id
//    (ids travel as Int32Array) and 2^31 + 7 would make it walk a 2^31-slot array for seconds.
//    Every id must be an integer in [0, rows), rows = the model's embedding table size.
//  - regexes (Split / Replace patterns of the pre-tokenizer, normalizer and decoder): they run in
//    a backtracking engine, where a repeated group that can match one stretch of text in more
//    than one way -- (a+)+$, (aa?)+$, (a|a)*, (\d{1,3})+ -- takes time exponential in the text
//    length. A group repeated by *, +, {n,} or {n,m} (m > 1) holding any quantifier or any
//    alternation, stacked quantifiers and back-references are refused (code 'unsupported'); the
//    patterns of the Hub's tokenizers (GPT-2, RoBERTa, BLOOM, Llama 3, Qwen2, o200k, DeepSeek-V3)
//    repeat only single atoms and pass.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

/** Fails unless every id of tokenizer.json is an integer in [0, rows) and every regex is bounded. */
export function checkTokenizerJson(json, rows) {
  const ids = [];  // [id, what]
  const model = json.model;
  if (model !== null && typeof model === 'object' && model.vocab !== null && typeof model.vocab === 'object' && !Array.isArray(model.vocab)) {
    for (const [token, id] of Object.entries(model.vocab)) ids.push([id, `the token ${describe(token)} of model.vocab`]);
  }
  if (json.added_tokens !== undefined) {
    if (!Array.isArray(json.added_tokens)) fail('tokenizer.json: added_tokens must be a list');
    json.added_tokens.forEach((t, i) => ids.push([t?.id, `added_tokens[${i}] (${describe(t?.content)})`]));
  }
  checkIds(ids, rows);
  for (const key of ['normalizer', 'pre_tokenizer', 'decoder']) {
    for (const pattern of regexesIn(json[key])) {
      const why = unboundedRepetition(pattern);
      if (why) fail(`tokenizer.json: the ${key} regex ${describe(pattern)} ${why}; simdformer refuses regexes that can take exponential time`, 'unsupported');
    }
  }
}

function checkIds(ids, rows) {
  let max = [-1, ''];
  for (const [id, what] of ids) {
    if (!Number.isSafeInteger(id) || id < 0) fail(`tokenizer.json: ${what} has the id ${describe(id)}; ids must be integers >= 0`);
    if (id > max[0]) max = [id, what];
  }
  if (max[0] >= rows) {
    fail(`tokenizer.json has ${max[0] + 1} tokens (ids up to ${max[0]}: ${max[1]}) but the model's embedding table has ${rows} rows`);
  }
}

// Every {Regex: "..."} below node (tokenizer.json is depth-checked when it is read).
function regexesIn(node, out = []) {
  if (node === null || typeof node !== 'object') return out;
  if (typeof node.Regex === 'string') out.push(node.Regex);
  for (const v of Object.values(node)) regexesIn(v, out);
  return out;
}

// The regex analysis reads a pattern as the tokenizer library reads it (Oniguruma syntax, which
// it rewrites to a JavaScript RegExp): the quantifiers *, +, ?, {n}, {n,}, {n,m} and {,m}; a
// ? after a quantifier makes it lazy and a + after *, + or ? possessive (the library drops that
// +), while {n,m}+ and {n,m}* repeat the repetition; [ inside a class opens a nested class (as in
// BLOOM's [^(\s|[.,!?...])]) and a ] right after [ or [^ is a literal; \p{..}, \x{..} and
// \u{..} are one escape. Misreading a pattern must only ever make the check stricter: a literal
// { read as a quantifier refuses a safe pattern, never passes an unsafe one.
const QUANTIFIER = /[*+?]|\{(?:\d+(?:,\d*)?|,\d+)\}/y;
const BRACED_ESCAPE = /\\[pPxu]\{[^}]*\}/y;
const GROUP_PREFIX = /\(\?(?:<[=!]|<[A-Za-z_][A-Za-z0-9_]*>|[:=!>]|i:)/y;

// The match of a sticky regex at index i of source, or null.
function matchAt(sticky, source, i) {
  sticky.lastIndex = i;
  return sticky.exec(source)?.[0] ?? null;
}

// Does a quantifier token repeat its atom more than once (*, +, {2}, {0,}, {1,5}, {,2})?
function repeats(q) {
  if (q === '*' || q === '+') return true;
  if (q === '?') return false;
  const [, low, comma, high] = /^\{(\d*)(,?)(\d*)\}$/.exec(q);
  if (comma === '') return Number(low) > 1;
  return high === '' || Number(high) > 1;
}

// The quantifiers written right after the atom that ends at i, and where they end.
function quantifiersAt(source, i) {
  const run = [];
  for (let q; (q = matchAt(QUANTIFIER, source, i)) !== null; i += q.length) run.push(q);
  return { run, end: i };
}

// One quantifier plus at most a lazy ? or a possessive + is one repetition; anything more
// (a+*, a{1,3}+, a{2}{3}) repeats a repetition, which backtracks like (a+)*.
function stacksQuantifiers(run) {
  if (run.length <= 1) return false;
  if (run.length > 2) return true;
  return !(run[1] === '?' || (run[1] === '+' && !run[0].startsWith('{')));
}

// The index just past the escape at i: \p{L}, \x{41} and \u{41} whole, else one character.
function escapeEnd(source, i) {
  return i + (matchAt(BRACED_ESCAPE, source, i)?.length ?? 2);
}

// The index just past the character class that opens at i (nested classes included).
function classEnd(source, i) {
  let depth = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      i = escapeEnd(source, i);
      continue;
    }
    if (c === '[') {
      depth += 1;
      if (source[i + 1] === '^') i += 1;
      if (source[i + 1] === ']') i += 1;  // a literal ], not the end
    } else if (c === ']' && --depth === 0) {
      return i + 1;
    }
    i += 1;
  }
  return i;  // unterminated: the library refuses it as a syntax error
}

// The length of the group syntax at i: 3 for (?:, 4 for (?<=, ..., 1 for a plain (.
function groupPrefixLength(source, i) {
  return matchAt(GROUP_PREFIX, source, i)?.length ?? 1;
}

// What a group (or the whole pattern) holds, at any depth: the first quantifier, whether it
// alternates, and where it starts (for messages).
const groupAt = (start) => ({ start, quantifier: null, alternates: false });

// Why the atom source[start, end) (or the group closed there) followed by the quantifiers run
// can backtrack exponentially, or null.
function repetitionProblem(source, closed, run, start, end) {
  const text = source.slice(closed?.start ?? start, end);
  if (stacksQuantifiers(run)) return `stacks the quantifiers ${run.join('')} on ${describe(text)}`;
  if (closed === null || run.length === 0 || !repeats(run[0])) return null;
  if (closed.quantifier !== null) return `repeats the group ${describe(text)} with ${run[0]}, and that group holds the quantifier ${closed.quantifier}`;
  if (closed.alternates) return `repeats the group ${describe(text)} with ${run[0]}, and that group holds an alternation (|)`;
  return null;
}

/**
 * Why a regex source can backtrack exponentially, or null. Refused: a group repeated by *, +,
 * {n,} or {n,m} (m > 1) that holds any quantifier (?, {0,1} and lazy forms included) or any
 * alternation, at any depth; stacked quantifiers; back-references. A repeated group without
 * them matches one fixed-length string of single characters, so its iterations cannot be split
 * two ways and the engine never retries exponentially many.
 */
export function unboundedRepetition(source) {
  const open = [];  // the groups around the one being read
  let group = groupAt(0);
  for (let i = 0; i < source.length;) {
    const c = source[i];
    if (c === '(') {
      open.push(group);
      group = groupAt(i);
      i += groupPrefixLength(source, i);
      continue;
    }
    if (c === '|') {
      group.alternates = true;
      i += 1;
      continue;
    }
    if (c === '\\' && /^[1-9k]$/.test(source[i + 1] ?? '')) return 'uses a back-reference';
    let closed = null;
    let atomEnd = i + 1;
    if (c === ')') {
      closed = group;
      group = open.pop() ?? groupAt(i + 1);
    } else if (c === '\\') {
      atomEnd = escapeEnd(source, i);
    } else if (c === '[') {
      atomEnd = classEnd(source, i);
    } else if (matchAt(QUANTIFIER, source, i) !== null) {
      atomEnd = i;  // a quantifier with nothing before it: counted, never trusted
    }
    const { run, end } = quantifiersAt(source, atomEnd);
    const why = repetitionProblem(source, closed, run, i, atomEnd);
    if (why) return why;
    group.quantifier ??= run[0] ?? closed?.quantifier ?? null;
    group.alternates ||= closed?.alternates ?? false;
    i = end;
  }
  return null;
}
