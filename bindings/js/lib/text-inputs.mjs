// The text forms the text API takes: one string, or an array of items that are strings or
// [text, textPair] sentence pairs. (A pair is always an item of an array: ['a', 'b'] is two
// texts, [['a', 'b']] is one pair.)
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

/** -> {items, batch}: items are strings or [a, b] pairs; batch tells whether an array was given. */
export function textItems(input, what, { pairs = true } = {}) {
  if (typeof input === 'string') return { items: [input], batch: false };
  if (!Array.isArray(input)) fail(`${what}: expected a string or an array of strings${pairs ? ' and [text, textPair] pairs' : ''}, got ${describe(input)}`);
  if (input.length === 0) fail(`${what}: the array of texts is empty`);
  input.forEach((item, i) => {
    if (typeof item === 'string') return;
    const isPair = Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && typeof item[1] === 'string';
    if (!isPair || !pairs) {
      fail(`${what}[${i}]: expected a string${pairs ? ' or a [text, textPair] pair of strings' : ''}, got ${describe(item)}`);
    }
  });
  return { items: input, batch: true };
}
