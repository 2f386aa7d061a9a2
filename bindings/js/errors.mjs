// SimdformerError: every error the package throws. `code` is one of invalid_argument,
// shape_mismatch, unsupported, io_error, out_of_memory, disposed.
export class SimdformerError extends Error {
  constructor(message, code = 'invalid_argument') {
    super(message);
    this.name = 'SimdformerError';
    this.code = code;
  }
}

export function fail(message, code = 'invalid_argument') {
  throw new SimdformerError(message, code);
}

// Bindings return '' or '<code>\t<message>'.
export function check(result, context) {
  if (!result) return;
  const tab = result.indexOf('\t');
  const code = tab > 0 ? result.slice(0, tab) : 'invalid_argument';
  const message = tab >= 0 ? result.slice(tab + 1) : result;
  throw new SimdformerError(context ? `${context}: ${message}` : message, code);
}

// Rejects option keys the method does not know, so typos do not pass silently.
export function checkOptions(options, allowed, where) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) fail(`${where}: options must be an object`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) fail(`${where}: unknown option '${key}' (allowed: ${allowed.join(', ')})`);
  }
  return options;
}
