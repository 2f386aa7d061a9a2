#include "simdformer/build_info.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

const char* version() { return SIMDFORMER_VERSION_STRING; }
const char* simd_arch() { return kernels::simd_arch(); }
size_t simd_lanes() { return kernels::simd_lanes(); }

}  // namespace simdformer
