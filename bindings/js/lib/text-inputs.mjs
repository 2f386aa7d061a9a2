// The text forms the text API takes: one string, or an array of items that are strings or
// [text, textPair] sentence pairs. (A pair is always an item of an array: ['a', 'b'] is two
// texts, [['a', 'b']] is one pair.)
//
// An array from the caller is read once, item by item, into a copy that the call then uses: a
// hole (['a', , 'b']) is an item like any other (undefined, refused), and a Proxy or a getter
// cannot hand over one value to the checks and another to the work after them.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

/**
 * A copy of the array `list`, each item read once and passed to check(item, i) (which fails on a
 * wrong one, holes included: they read as undefined); stops at the first wrong item, so a sparse
 * array of length 2^32 - 1 costs one read. `list` must be an array. A list longer than `max`
 * items is refused by tooMany(n) before any item is read.
 */
export function readList(list, check, max = Infinity, tooMany = undefined) {
  const n = list.length, out = [];
  if (n > max) tooMany(n);
  for (let i = 0; i < n; i++) {
    const item = list[i];
    check(item, i);
    out.push(item);
  }
  return out;
}

/**
 * A copy of the array `list` in which a hole ([a, , b], new Array(3)) is refused as
 * "<what>[i] is missing", for lists whose readers would otherwise skip it (forEach, map) or take
 * undefined as "none" (a mask): a hole in a batch or a mask must not run as zeros.
 */
export function denseList(list, what) {
  return readList(list, (_, i) => {
    if (!(i in list)) fail(`${what}[${i}] is missing: the array has a hole there (a sparse array)`);
  });
}

/** A copy of an array of strings, else "<what> must be an array of strings, got ...". */
export function stringList(value, what) {
  if (!Array.isArray(value)) fail(`${what} must be an array of strings, got ${describe(value)}`);
  return readList(value, (s, i) => {
    if (typeof s !== 'string') fail(`${what} must be an array of strings, got ${describe(s)} at index ${i}`);
  });
}

/** -> {items, batch}: items are strings or [a, b] pairs; batch tells whether an array was given. */
// allowEmpty: an empty array gives no items (and the task an empty array), as Hugging Face's
// pipelines do for a list: they run once per element. Refused where the result is one structure
// for the whole batch (encodeText's padded tensors, attentionSteps).
export function textItems(input, what, { pairs = true, allowEmpty = false } = {}) {
  if (typeof input === 'string') return { items: [input], batch: false };
  if (!Array.isArray(input)) fail(`${what}: expected a string or an array of strings${pairs ? ' and [text, textPair] pairs' : ''}, got ${describe(input)}`);
  const wrong = (item, i) => fail(`${what}[${i}]: expected a string${pairs ? ' or a [text, textPair] pair of strings' : ''}, got ${describe(item)}`);
  const items = readList(input, (item, i) => {
    if (typeof item !== 'string' && !(pairs && Array.isArray(item))) wrong(item, i);
  }).map((item, i) => {
    if (typeof item === 'string') return item;
    // A pair, read once too.
    const pair = item.length === 2 ? [item[0], item[1]] : null;
    if (!pair || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') wrong(item, i);
    return pair;
  });
  if (items.length === 0 && !allowEmpty) fail(`${what}: the array of texts is empty`);
  return { items, batch: true };
}
