// Makes this Node.js behave like an engine without native wasm exception handling (Chrome < 95,
// Firefox < 100, Node 16): every module that declares or imports an exception tag -- what
// -fwasm-exceptions output always has, for C++'s __cpp_exception -- is invalid, as such an engine
// finds it (an unknown section 13, an unknown import kind). Node 20 has no flag that turns the
// feature off, so this is how the loader's probe and its fallback are tested for real: the probe
// (lib/simd-detect.mjs) runs unchanged and sees false, and loading an EH build would fail to
// compile instead of silently working.
//
//   import { emulateNoWasmExceptions } from './no-wasm-eh.mjs'; const undo = emulateNoWasmExceptions();
//   node --import ./tests/js/no-wasm-eh.mjs tests/js/hardening.test.mjs   (a whole suite on such an engine)
//
// On exit it prints how many modules compiled and how many were refused, so a caller can check
// that something was loaded at all.

// Walks the sections: true when one is the tag section (13) or an import is a tag (kind 4).
export function usesWasmExceptions(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(ArrayBuffer.isView(bytes) ? bytes.buffer : bytes,
    ArrayBuffer.isView(bytes) ? bytes.byteOffset : 0, ArrayBuffer.isView(bytes) ? bytes.byteLength : undefined);
  let at = 8;
  const leb = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[at++];
      v += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return v;
    }
  };
  while (at < b.length) {
    const id = b[at++];
    const size = leb();
    const end = at + size;
    if (id === 13) return true;
    if (id === 2) {  // imports: module name, field name, kind, then the kind's description
      for (let n = leb(); n > 0; n--) {
        const moduleName = leb();
        at += moduleName;
        const fieldName = leb();
        at += fieldName;
        const kind = b[at++];
        if (kind === 4) return true;
        if (kind === 0) leb();                                        // function: type index
        else if (kind === 1) { at++; const f = leb(); leb(); if (f & 1) leb(); }  // table
        else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); }       // memory
        else if (kind === 3) at += 2;                                  // global: type, mutability
      }
    }
    at = end;
  }
  return false;
}

export const counts = { compiled: 0, refused: 0 };

const bytesOf = (source) => (source instanceof ArrayBuffer || ArrayBuffer.isView(source) ? source : null);

export function emulateNoWasmExceptions() {
  const real = {
    validate: WebAssembly.validate, compile: WebAssembly.compile, instantiate: WebAssembly.instantiate,
    Module: WebAssembly.Module, compileStreaming: WebAssembly.compileStreaming,
    instantiateStreaming: WebAssembly.instantiateStreaming,
  };
  const refuse = (source) => {
    const bytes = bytesOf(source);
    if (!bytes) return false;
    if (usesWasmExceptions(bytes)) {
      counts.refused++;
      return true;
    }
    counts.compiled++;
    return false;
  };
  const error = () => new WebAssembly.CompileError('WebAssembly.Module(): unknown section code #0xd (emulated: no wasm exception handling)');
  WebAssembly.validate = (bytes) => !usesWasmExceptions(bytes) && real.validate(bytes);
  WebAssembly.compile = async (bytes) => { if (refuse(bytes)) throw error(); return real.compile(bytes); };
  WebAssembly.instantiate = async (source, imports) => {
    if (refuse(source)) throw error();
    return real.instantiate(source, imports);
  };
  WebAssembly.Module = new Proxy(real.Module, {
    construct(target, args) {
      if (refuse(args[0])) throw error();
      return new target(...args);
    },
  });
  // Streaming compiles would bypass the byte checks: the loaders here never use them, so fail loudly.
  WebAssembly.compileStreaming = WebAssembly.instantiateStreaming = async () => {
    throw new Error('no-wasm-eh.mjs: streaming compilation is not emulated');
  };
  return () => Object.assign(WebAssembly, real);
}

// Used with --import: the whole process is such an engine.
if (process.execArgv.some((a) => a.includes('no-wasm-eh.mjs'))) {
  emulateNoWasmExceptions();
  process.on('exit', () => process.stderr.write(`# no-wasm-eh: ${counts.compiled} modules compiled, ${counts.refused} refused\n`));
}
