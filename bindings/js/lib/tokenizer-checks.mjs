// Checks of a tokenizer.json made before the tokenizer library sees it, for what that library
// would get silently wrong or take unbounded time on:
//  - token ids: the library indexes an array by id, so 1.5 or 2^32 + 7 would become another id
//    (ids travel as Int32Array) and 2^31 + 7 would make it walk a 2^31-slot array for seconds.
//    Every id must be an integer in [0, rows), rows = the model's embedding table size.
//  - regexes (Split / Replace patterns of the pre-tokenizer, normalizer and decoder): they run in
//    a backtracking engine, where a repeated group that itself repeats or alternates -- (a+)+$,
//    (a|a)*, (\d{1,3})+ -- takes time exponential in the text length. Such patterns, and
//    back-references, are refused (code 'unsupported'); the patterns of the Hub's tokenizers
//    (GPT-2, RoBERTa, BLOOM, Llama 3, Qwen2, ...) repeat only single atoms and pass.
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

const QUANTIFIER = /^(?:[*+]|\{\d+,\d*\}|\{\d+\}|\?)/;

// Is a quantifier token (at the start of rest) one that repeats (more than once)?
function repeats(q) {
  if (q === '*' || q === '+') return true;
  const m = /^\{(\d+)(,(\d*))?\}$/.exec(q);
  return m !== null && (m[2] === undefined ? Number(m[1]) > 1 : m[3] === '' || Number(m[3]) > 1);
}

/**
 * Why a regex source can backtrack exponentially, or null: a group repeated by *, +, {n,} or
 * {n,m} (m > 1) that contains a repetition or an alternation, or a back-reference.
 */
export function unboundedRepetition(source) {
  const groups = [];  // per open group: {repeats: has a repeating quantifier inside, alternates}
  let inner = { repeats: false, alternates: false };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      if (/^[1-9k]$/.test(source[i + 1] ?? '')) return 'uses a back-reference';
      i += 1;
    } else if (c === '[') {
      for (i += 1; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i += 1;
    } else if (c === '(') {
      groups.push(inner);
      inner = { repeats: false, alternates: false };
    } else if (c === '|') {
      inner.alternates = true;
    } else if (c === ')') {
      const closed = inner;
      inner = groups.pop() ?? { repeats: false, alternates: false };
      const q = QUANTIFIER.exec(source.slice(i + 1))?.[0];
      if (q && repeats(q) && (closed.repeats || closed.alternates)) {
        return `repeats a group that itself ${closed.repeats ? 'repeats' : 'alternates'}`;
      }
      inner.repeats ||= closed.repeats || (q !== undefined && repeats(q));
    } else {
      const q = QUANTIFIER.exec(source.slice(i))?.[0];
      if (q && repeats(q)) inner.repeats = true;
    }
  }
  return null;
}
