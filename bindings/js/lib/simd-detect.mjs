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

export function wasmSimdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// Picks the build: 'auto' follows the engine; true insists on SIMD128.
export function chooseSimd(requested) {
  const supported = wasmSimdSupported();
  if (requested === true && !supported) {
    throw new SimdformerError('init: simd: true was requested but this engine does not support wasm SIMD128', 'unsupported');
  }
  return requested === 'auto' ? supported : requested;
}
