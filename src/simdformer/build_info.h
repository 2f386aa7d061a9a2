// What this build of simdformer is: its version and the SIMD instruction set of its kernels.
#pragma once

#include <cstddef>

namespace simdformer {

const char* version();     // "0.1.0"
const char* simd_arch();   // "sse2", "wasm", "scalar", ...
size_t simd_lanes();       // floats per SIMD register (1 in the scalar build)

}  // namespace simdformer
