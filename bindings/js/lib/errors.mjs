// SimdformerError: every error the package throws. `code` is one of invalid_argument,
// shape_mismatch, unsupported, io_error, out_of_memory, disposed, cancelled, busy (a call into a
// model from inside one of its own callbacks), internal (a bug in simdformer: please report it).
export class SimdformerError extends Error {
  constructor(message, code = 'invalid_argument') {
    super(withoutCredentials(message));
    this.name = 'SimdformerError';
    this.code = code;
  }
}

// The one place URLs' user names and passwords are taken out of messages: every message of the
// package passes here, also what fetch or a server said (Node's fetch echoes the whole URL).
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
export const withoutCredentials = (text) => String(text).replace(CREDENTIALS, '$1');

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

/** A binding's JSON reply: the parsed object, or the error it reported ("<code>\t<message>"). */
export function jsonReply(text, context) {
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
  check(text || 'internal\tempty reply', context);
  return fail(`${context}: unexpected reply`, 'internal');
}

// Errors that only a bug can raise at the wasm boundary: a trap, an error of Embind's glue, or a
// C++ exception that escaped -- a bare number (the address of the exception object) from the
// scalar build's JavaScript-based exceptions, a WebAssembly.Exception (no message, no stack)
// from the SIMD128 builds' native wasm exceptions. They become SimdformerError code 'internal';
// everything else (a user callback's own exception, a SimdformerError) passes unchanged.
function internalError(e) {
  if (e instanceof SimdformerError) return e;
  const wasm = typeof WebAssembly === 'object';
  const trap = wasm && e instanceof WebAssembly.RuntimeError;
  const glue = e instanceof Error && ['BindingError', 'InternalError', 'UnboundTypeError'].includes(e.name);
  if (trap || glue) return new SimdformerError(`internal error in the wasm module (${e.name}: ${e.message})`, 'internal');
  if (typeof e === 'number') return new SimdformerError(`internal error: an uncaught C++ exception (${e})`, 'internal');
  if (wasm && typeof WebAssembly.Exception === 'function' && e instanceof WebAssembly.Exception) {
    return new SimdformerError('internal error: an uncaught C++ exception (a WebAssembly.Exception)', 'internal');
  }
  return e;
}

/**
 * Wraps every public method of Class (sync or async) so that internal errors surface as
 * SimdformerError('internal') instead of a raw RuntimeError, BindingError or number.
 */
export function translateInternalErrors(Class) {
  for (const key of Object.getOwnPropertyNames(Class.prototype)) {
    const d = Object.getOwnPropertyDescriptor(Class.prototype, key);
    if (key === 'constructor' || typeof d.value !== 'function') continue;
    const method = d.value;
    Object.defineProperty(Class.prototype, key, {
      ...d,
      value: {
        [key](...args) {
          let result;
          try {
            result = method.apply(this, args);
          } catch (e) {
            throw internalError(e);
          }
          return result instanceof Promise ? result.catch((e) => { throw internalError(e); }) : result;
        },
      }[key],
    });
  }
}
