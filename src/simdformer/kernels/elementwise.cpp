// Activations and elementwise arithmetic over flat arrays.
#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

// Applies `op` to every vector of n floats (the tail through a padded vector).
template <class Op>
void map_f32(size_t n, float* y, Op op) {
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) simd::store(y + i, op(i, kLanes));
    if (i < n) detail::store_partial(y + i, n - i, op(i, n - i));
}

inline vf32 load_n(const float* p, size_t i, size_t n) {
    return n == kLanes ? simd::load(p + i) : detail::load_partial(p + i, n, 0.0f);
}

}  // namespace

// The formulas of transformers' activations.py (and the torch functions it calls), in float.
vf32 detail::activate_rare(Activation act, vf32 x) {
    const vf32 zero(0.0f), one(1.0f);
    switch (act) {
        case Activation::kQuickGelu: return x / (one + simd::exp(-(vf32(1.702f) * x)));  // x sigmoid(1.702 x)
        case Activation::kGeluClip10: return simd::min(simd::max(detail::gelu_erf(x), vf32(-10.0f)), vf32(10.0f));
        case Activation::kSigmoid: return one / (one + simd::exp(-x));
        case Activation::kRelu6: return simd::min(simd::max(x, zero), vf32(6.0f));
        case Activation::kRelu2: {
            const vf32 r = simd::max(x, zero);
            return r * r;
        }
        case Activation::kLeakyRelu: return simd::select_gt(x, zero, x, x * vf32(0.01f));  // negative_slope 0.01
        case Activation::kMish: {
            // tanh(log(1 + e^x)) = ((1 + e^x)^2 - 1) / ((1 + e^x)^2 + 1) = t / (t + 2), t = e^x (e^x + 2):
            // no log and no cancellation for x << 0 (t ~ 2 e^x). softplus is x beyond 20 (torch's
            // threshold), where tanh rounds to 1 and mish is x; t would overflow from x ~ 44 on.
            const vf32 e = simd::exp(simd::min(x, vf32(20.0f)));
            const vf32 t = e * (e + vf32(2.0f));
            return simd::select_gt(x, vf32(20.0f), x, x * (t / (t + vf32(2.0f))));
        }
        case Activation::kLaplace: {
            // LaplaceActivation(mu=0.707107, sigma=0.282095): (x - mu) / (sigma sqrt 2), then 0.5 (1 + erf).
            const vf32 z = (x - vf32(0.707107f)) / vf32(float(0.282095 * 1.4142135623730951));
            return vf32(0.5f) * (one + detail::erf(z));
        }
        default: return x;
    }
}

void detail::activate_rows(Activation act, float* p, size_t n) {
    if (act == Activation::kNone) return;
    if (act == Activation::kGeluErf) {
        for (size_t i = 0; i < n; i += kLanes) simd::store(p + i, detail::gelu_erf(simd::load(p + i)));
        return;
    }
    for (size_t i = 0; i < n; i += kLanes) simd::store(p + i, detail::activate(act, simd::load(p + i)));
}

void activation_f32(Activation act, size_t n, const float* x, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return detail::activate(act, load_n(x, i, w)); });
}

void erf_f32(size_t n, const float* x, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return detail::erf(load_n(x, i, w)); });
}

void softmax_exp_f32(size_t n, const float* x, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return detail::exp_of_shifted_score(load_n(x, i, w)); });
}

void add_f32(size_t n, const float* a, const float* b, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return load_n(a, i, w) + load_n(b, i, w); });
}

void multiply_f32(size_t n, const float* a, const float* b, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return load_n(a, i, w) * load_n(b, i, w); });
}

void floor_f32(size_t n, float lowest, float* x) {
    const vf32 lo(lowest);
    map_f32(n, x, [&](size_t i, size_t w) { return simd::max(load_n(x, i, w), lo); });
}

void scale_f32(size_t n, float alpha, const float* x, float* y) {
    const vf32 va(alpha);
    map_f32(n, y, [&](size_t i, size_t w) { return load_n(x, i, w) * va; });
}

}  // namespace simdformer::kernels
