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

void activation_f32(Activation act, size_t n, const float* x, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return detail::activate(act, load_n(x, i, w)); });
}

void erf_f32(size_t n, const float* x, float* y) {
    map_f32(n, y, [&](size_t i, size_t w) { return detail::erf(load_n(x, i, w)); });
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
