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
