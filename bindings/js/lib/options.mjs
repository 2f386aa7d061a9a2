// Reads a call's options object exactly as the types declare it: only the object's own
// properties count (nothing inherited from a prototype), and each value must be of the declared
// kind (a boolean is true or false, not 'true' or 1; a count is a safe integer in range). A typo
// or a wrong type is an error instead of a silent default.
//
// Attention option names (score, normalize) are checked by the C++ bindings, which hold the only
// name <-> enum table; here they only have to be strings.
import { fail } from './errors.mjs';

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/** A short, safe rendering of a value for error messages (no toString of user objects). */
export function describe(value) {
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}...` : value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'function' ? 'a function' : 'an object';
}

// Option kinds: each has the default used when the option is absent (or undefined) and a reader.
export const boolean = (fallback = false) => ({
  fallback,
  read: (v, name) => (v === true || v === false ? v : fail(`${name} must be true or false, got ${describe(v)}`)),
});

/**
 * One of a fixed list of values, compared with === (so 'true' is not true); anyCase: names in any
 * case, read as the list spells them ('SIMPLE' is 'simple'), as Hugging Face's pipelines read
 * theirs (Enum[value.upper()]).
 */
export const oneOf = (values, fallback, anyCase = false) => ({
  fallback,
  read: (v, name) => (anyCase && typeof v === 'string' ? values.find((x) => x.toUpperCase() === v.toUpperCase()) : values.includes(v) ? v : undefined)
    ?? fail(`${name} must be ${values.map(describe).join(', ').replace(/, ([^,]*)$/, ' or $1')}${anyCase ? ' (any case)' : ''}, got ${describe(v)}`),
});

/** How a model holds its linear weights: 'f32', or 'int8' (quantized per output channel at load). */
export const weightsFormat = () => oneOf(['f32', 'int8'], 'f32');

/** A string whose meaning is checked elsewhere (the C++ table of attention options). */
export const name = (fallback) => ({
  fallback,
  read: (v, what) => (typeof v === 'string' ? v : fail(`${what} must be a string, got ${describe(v)}`)),
});

/** A safe integer in [min, max]. */
export const integer = (min, max, fallback) => ({
  fallback,
  read: (v, what) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
      fail(`${what} must be an integer in [${min}, ${max}], got ${describe(v)}`);
    }
    return v;
  },
});

/** A finite number > 0. */
export const positiveNumber = (fallback) => ({
  fallback,
  read: (v, what) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fail(`${what} must be a positive number, got ${describe(v)}`)),
});

export const func = () => ({
  fallback: undefined,
  read: (v, what) => (typeof v === 'function' ? v : fail(`${what} must be a function, got ${describe(v)}`)),
});

/** Any value, validated by the code that uses it (masks, sequences, matrices). null = absent. */
export const value = () => ({ fallback: undefined, read: (v) => (v === null ? undefined : v) });

/** An option given to a kind of model that does not use it: present is an error ("<where>: <key> <why>"). */
export const unused = (why) => ({ fallback: undefined, read: (v, what) => fail(`${what} ${why}`) });

/**
 * Validates `options` against `spec` ({key: kind}) and returns a null-prototype object holding
 * every key of the spec (defaults filled in). `where` prefixes the messages.
 */
export function readOptions(options, spec, where) {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    fail(`${where}: options must be an object, got ${describe(options)}`);
  }
  const given = options ?? {};
  for (const key of Object.keys(given)) {
    if (!hasOwn(spec, key)) fail(`${where}: unknown option '${key}' (allowed: ${Object.keys(spec).join(', ')})`);
  }
  const out = Object.create(null);
  for (const key of Object.keys(spec)) {
    const v = hasOwn(given, key) ? given[key] : undefined;
    out[key] = v === undefined ? spec[key].fallback : spec[key].read(v, `${where}: ${key}`);
  }
  return out;
}
