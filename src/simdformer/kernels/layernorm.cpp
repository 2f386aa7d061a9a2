// Row-wise LayerNorm, two passes (mean, then centred variance) for accuracy at fp32; and RMSNorm.
#include <cmath>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

float row_mean(const float* x, size_t d) {
    vf32 s(0.0f);
    size_t j = 0;
    for (; j + kLanes <= d; j += kLanes) s += simd::load(x + j);
    if (j < d) s += detail::load_partial(x + j, d - j, 0.0f);
    return simd::reduce_add(s) / static_cast<float>(d);
}

float row_variance(const float* x, size_t d, float mean) {
    const vf32 vm(mean);
    vf32 s(0.0f);
    size_t j = 0;
    for (; j + kLanes <= d; j += kLanes) {
        const vf32 c = simd::load(x + j) - vm;
        s = simd::fma(c, c, s);
    }
    if (j < d) {
        // pad with the mean so padded lanes contribute (mean - mean)^2 = 0
        const vf32 c = detail::load_partial(x + j, d - j, mean) - vm;
        s = simd::fma(c, c, s);
    }
    return simd::reduce_add(s) / static_cast<float>(d);
}

float row_mean_square(const float* x, size_t d) {
    vf32 s(0.0f);
    size_t j = 0;
    for (; j + kLanes <= d; j += kLanes) {
        const vf32 v = simd::load(x + j);
        s = simd::fma(v, v, s);
    }
    if (j < d) {
        const vf32 v = detail::load_partial(x + j, d - j, 0.0f);
        s = simd::fma(v, v, s);
    }
    return simd::reduce_add(s) / static_cast<float>(d);
}

}  // namespace

void rms_norm_rows_f32(size_t rows, size_t d, const float* x, size_t ldx, const float* gamma, float eps, float* y,
                       size_t ldy) {
    for (size_t i = 0; i < rows; ++i) {
        const float* xr = x + i * ldx;
        float* yr = y + i * ldy;
        const vf32 vr(1.0f / std::sqrt(row_mean_square(xr, d) + eps));
        size_t j = 0;
        for (; j + kLanes <= d; j += kLanes) simd::store(yr + j, (simd::load(xr + j) * vr) * simd::load(gamma + j));
        if (j < d) {
            const size_t r = d - j;
            detail::store_partial(yr + j, r, (detail::load_partial(xr + j, r, 0.0f) * vr) * detail::load_partial(gamma + j, r, 0.0f));
        }
    }
}

void layernorm_rows_f32(size_t rows, size_t d, const float* x, size_t ldx, const float* gamma,
                        const float* beta, float eps, float* y, size_t ldy) {
    for (size_t i = 0; i < rows; ++i) {
        const float* xr = x + i * ldx;
        float* yr = y + i * ldy;
        const float mean = row_mean(xr, d);
        const float rstd = 1.0f / std::sqrt(row_variance(xr, d, mean) + eps);
        const vf32 vm(mean), vr(rstd);
        size_t j = 0;
        for (; j + kLanes <= d; j += kLanes) {
            const vf32 n = (simd::load(xr + j) - vm) * vr;
            simd::store(yr + j, simd::fma(n, simd::load(gamma + j), simd::load(beta + j)));
        }
        if (j < d) {
            const size_t r = d - j;
            const vf32 n = (detail::load_partial(xr + j, r, 0.0f) - vm) * vr;
            const vf32 out = simd::fma(n, detail::load_partial(gamma + j, r, 0.0f), detail::load_partial(beta + j, r, 0.0f));
            detail::store_partial(yr + j, r, out);
        }
    }
}

}  // namespace simdformer::kernels
