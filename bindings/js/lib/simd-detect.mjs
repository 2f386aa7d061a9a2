import { SimdformerError } from './errors.mjs';

// Does this engine run wasm SIMD128? Validates a tiny module whose one function uses v128
// instructions (i8x16.splat, i8x16.popcnt), the same probe as wasm-feature-detect.
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,        // type: () -> v128
  0x03, 0x02, 0x01, 0x00,                          // one function of that type
  0x0a, 0x0a, 0x01, 0x08, 0x00,                    // code: one body, no locals
  0x41, 0x00, 0xfd, 0x0f, 0xfd, 0x62, 0x0b,        // i32.const 0; i8x16.splat; i8x16.popcnt; end
]);

// Does this engine run native wasm exception handling, in the form clang 14 emits for
// -fwasm-exceptions (the tag section, try / catch / throw: Chrome 95, Firefox 100, Safari 15.2,
// Node 17)? Validates a tiny module that declares a tag carrying an i32, as the C++ runtime's
// __cpp_exception does, and throws and catches it. An engine without the proposal rejects the
// unknown section 13 and the opcodes 0x06-0x08.
const EH_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x08, 0x02,                                // type section: two types
  0x60, 0x01, 0x7f, 0x00,                          //   0: (i32) -> (), the tag's
  0x60, 0x00, 0x00,                                //   1: () -> (), the function's
  0x03, 0x02, 0x01, 0x01,                          // one function of type 1
  0x0d, 0x03, 0x01, 0x00, 0x00,                    // tag section: one tag, attribute 0 (exception), type 0
  0x0a, 0x0e, 0x01, 0x0c, 0x00,                    // code: one body of 12 bytes, no locals
  0x06, 0x40,                                      //   try (no result)
  0x41, 0x00, 0x08, 0x00,                          //     i32.const 0; throw tag 0
  0x07, 0x00, 0x1a,                                //   catch tag 0; drop its i32
  0x0b, 0x0b,                                      //   end (try); end (function)
]);

// Does this engine have relaxed SIMD (final opcodes: Chrome 114, Firefox 145; Node 20 only with
// --experimental-wasm-relaxed-simd)? Validates a tiny module using i8x16.relaxed_swizzle, as
// wasm-feature-detect does. Only a shortcut for init()'s relaxedSimd: 'auto': where it is false the
// engine cannot validate the SIMD128 builds' relaxed int8 module either, so the module's own check
// (C++ relaxed_i8_support, which validates it and runs it against the portable loop) would
// answer no; where it is true that check still decides.
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,        // type: () -> v128
  0x03, 0x02, 0x01, 0x00,                          // one function of that type
  0x0a, 0x0f, 0x01, 0x0d, 0x00,                    // code: one body of 13 bytes, no locals
  0x41, 0x00, 0xfd, 0x0f, 0x41, 0x00, 0xfd, 0x0f,  // i32.const 0; i8x16.splat; i32.const 0; i8x16.splat
  0xfd, 0x80, 0x02, 0x0b,                          // i8x16.relaxed_swizzle; end
]);

const validates = (bytes) => {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};

export function wasmSimdSupported() {
  return validates(SIMD_PROBE);
}

export function wasmExceptionsSupported() {
  return validates(EH_PROBE);
}

export function wasmRelaxedSimdSupported() {
  return validates(RELAXED_PROBE);
}

// The probe bytes, for tests that check them with a validator that knows the features
// (tests/js/eh-fallback.test.mjs, which also emulates an engine without exceptions).
export const PROBES = { simd: SIMD_PROBE, exceptions: EH_PROBE, relaxedSimd: RELAXED_PROBE };

// Picks the build: 'auto' follows the engine; true insists on SIMD128. The SIMD128 builds are
// compiled with native wasm exceptions (-fwasm-exceptions), so they need both features: an
// engine with SIMD128 but not exceptions (Chrome 91-94, Firefox 89-99, Node 16) runs the scalar
// build, which keeps JavaScript-based exceptions and runs everywhere.
export function chooseSimd(requested) {
  // simd: false names the scalar build: nothing to probe (two validations, ~0.3 ms of init();
  // in Node.js, whose engines all have both features, the only way to the scalar build).
  if (requested === false) return false;
  const simd = wasmSimdSupported();
  const exceptions = wasmExceptionsSupported();
  if (requested === true && !(simd && exceptions)) {
    const missing = !simd ? 'wasm SIMD128' : 'wasm exception handling (the SIMD128 builds are compiled with it)';
    throw new SimdformerError(`init: simd: true was requested but this engine does not support ${missing}`, 'unsupported');
  }
  return requested === 'auto' ? simd && exceptions : requested;
}
