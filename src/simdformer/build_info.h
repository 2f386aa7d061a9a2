// What this build of simdformer is: its version and the SIMD instruction set of its kernels.
#pragma once

#include <cstddef>

namespace simdformer {

const char* version();     // "0.1.0"
const char* simd_arch();   // "sse2", "wasm", "scalar", ...
size_t simd_lanes();       // floats per SIMD register (1 in the scalar build)

// The int8 GEMMs' k-loop, for the whole module (set it before loading or running int8 models):
//  - "off": 8-bit activations as i16 pairs, every engine (the default);
//  - "relaxed": relaxed SIMD's int8 dot product (VNNI where the engine lowers it so), only where
//    this engine runs the wasm build's relaxed kernel module exactly (checked once; never
//    natively): 8-bit activations where its dot product is exact on them ("relaxed-u8" or
//    "relaxed-s8" is then the k-loop in effect: bit-identical to "off"), else 7-bit ("relaxed");
//  - "portable": what "relaxed" computes, in portable code (bit-identical to it: "portable-u8",
//    "portable-s8" or, also where "relaxed" does not run, the 7-bit "portable"); not in the
//    scalar build.
// "auto" picks from what the engine's dot product does (kernels::auto_i8_kernel). Returns the
// k-loop now in effect (one of the names above), or null when "relaxed" is asked where it does
// not run or the mode is none of "auto", "off", "relaxed" and "portable" (nothing changes then).
const char* use_int8_kernel(const char* mode);

// The f32 GEMMs' k-loop, for the whole module (set it before running f32 models):
//  - "off": SIMD128's f32x4.mul + f32x4.add (the default; the only one outside wasm SIMD128);
//  - "relaxed": relaxed SIMD's f32x4.relaxed_madd, one fused multiply-add where the engine has
//    FMA, only where this engine runs the wasm build's relaxed kernel module consistently
//    (checked once). Results differ from "off" by rounding only; under either, every row is
//    bit-identical across thread counts, batch positions and decoding steps.
// "auto" is "relaxed" where it runs, else "off". Returns whether "relaxed" is now in effect, or
// -1 when "relaxed" is asked where it does not run (nothing changes then).
enum class F32Kernel : int { kOff, kRelaxed, kAuto };
int use_f32_kernel(F32Kernel mode);

}  // namespace simdformer
