// Vector helpers shared by the kernel .cpp files: partial loads/stores for row tails and the
// activation functions. Internal to kernels/ (it exposes SIMD types).
#pragma once

#include <cstring>

#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd.h"

namespace simdformer::kernels::detail {

using simd::kLanes;
using simd::vf32;

// Loads n < kLanes floats, filling the remaining lanes with `fill`. Tails go through the same
// vector code as full vectors, so every element sees identical arithmetic.
inline vf32 load_partial(const float* p, size_t n, float fill) {
    float tmp[kLanes];
    for (size_t i = 0; i < kLanes; ++i) tmp[i] = i < n ? p[i] : fill;
    return simd::load(tmp);
}

inline void store_partial(float* p, size_t n, vf32 v) {
    float tmp[kLanes];
    simd::store(tmp, v);
    std::memcpy(p, tmp, n * sizeof(float));
}

inline vf32 gelu_erf(vf32 x) {
    // 0.5 x (1 + erf(x / sqrt 2)): PyTorch's exact GELU.
    const vf32 half(0.5f), one(1.0f), inv_sqrt2(0.70710678118654752f);
    return half * x * (one + simd::erf(x * inv_sqrt2));
}

inline vf32 gelu_tanh(vf32 x) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): GELU(approximate='tanh').
    const vf32 half(0.5f), one(1.0f), c(0.79788456080286536f), k(0.044715f);
    return half * x * (one + simd::tanh(c * simd::fma(k * x, x * x, x)));
}

inline vf32 silu(vf32 x) {
    // x * sigmoid(x) = x / (1 + exp(-x)); exp overflows to +inf for x < -88, giving -0 as
    // torch.nn.functional.silu does.
    const vf32 one(1.0f);
    return x / (one + simd::exp(-x));
}

inline vf32 activate(Activation act, vf32 x) {
    switch (act) {
        case Activation::kNone: return x;
        case Activation::kRelu: return simd::max(x, vf32(0.0f));
        case Activation::kGeluErf: return gelu_erf(x);
        case Activation::kGeluTanh: return gelu_tanh(x);
        case Activation::kTanh: return simd::tanh(x);
        case Activation::kSilu: return silu(x);
    }
    return x;
}

}  // namespace simdformer::kernels::detail
