// Score normalisers: row softmax and ReLU normalisation, plus the mask application that runs
// before them. Masked scores are -inf so that they drop out of the max and of the sum.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

float row_max(const float* x, size_t n) {
    vf32 m0(kNegInf), m1(kNegInf);
    size_t j = 0;
    for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
        m0 = simd::max(m0, simd::load(x + j));
        m1 = simd::max(m1, simd::load(x + j + kLanes));
    }
    for (; j + kLanes <= n; j += kLanes) m0 = simd::max(m0, simd::load(x + j));
    if (j < n) m0 = simd::max(m0, detail::load_partial(x + j, n - j, kNegInf));
    return simd::reduce_max(simd::max(m0, m1));
}

// x = exp(x - max) in place; returns the sum. Key j always adds into accumulator (j / kLanes) % 2,
// lane j % kLanes, whatever n is: the tail is a whole block whose missing keys are -inf (exp 0).
// So keys masked at the end of a row (a padded batch's padding) add exact zeros, and a text's
// weights are the same bits padded to any length as alone (tests/js/length-groups.test.mjs). The
// tail runs through the loop's own body from a padded copy: one inlined exp per accumulator.
float exp_shifted_sum(float* x, size_t n, float max) {
    const vf32 vmax(max);
    vf32 s0(0.0f), s1(0.0f);
    float tail[2 * kLanes];
    for (size_t j = 0; j < n; j += 2 * kLanes) {
        const size_t w = std::min(n - j, 2 * kLanes);
        float* p = x + j;
        if (w < 2 * kLanes) {
            for (size_t i = 0; i < 2 * kLanes; ++i) tail[i] = i < w ? p[i] : kNegInf;
            p = tail;
        }
        const vf32 e0 = detail::exp_of_shifted_score(simd::load(p) - vmax);
        const vf32 e1 = detail::exp_of_shifted_score(simd::load(p + kLanes) - vmax);
        simd::store(p, e0);
        simd::store(p + kLanes, e1);
        s0 += e0;
        s1 += e1;
        if (p == tail) std::memcpy(x + j, tail, w * sizeof(float));
    }
    return simd::reduce_add(s0 + s1);
}

void scale_row(float* x, size_t n, float s) {
    const vf32 vs(s);
    size_t j = 0;
    for (; j + kLanes <= n; j += kLanes) simd::store(x + j, simd::load(x + j) * vs);
    if (j < n) detail::store_partial(x + j, n - j, detail::load_partial(x + j, n - j, 0.0f) * vs);
}

void zero_row(float* x, size_t n) {
    for (size_t j = 0; j < n; ++j) x[j] = 0.0f;
}

}  // namespace

void mask_scores_f32(size_t rows, size_t cols, float* scores, size_t ld, const uint8_t* key_padding,
                     const float* additive, size_t ld_add, bool causal, size_t causal_offset) {
    for (size_t i = 0; i < rows; ++i) {
        float* s = scores + i * ld;
        if (additive) add_f32(cols, s, additive + i * ld_add, s);
        if (key_padding) {
            for (size_t j = 0; j < cols; ++j)
                if (key_padding[j]) s[j] = kNegInf;
        }
        if (causal) {
            for (size_t j = i + causal_offset + 1; j < cols; ++j) s[j] = kNegInf;
        }
    }
}

void softmax_rows_f32(size_t rows, size_t cols, float* x, size_t ld) {
    for (size_t i = 0; i < rows; ++i) {
        float* row = x + i * ld;
        // Subtract the row max so exp() cannot overflow.
        const float max = row_max(row, cols);
        if (max == kNegInf) {  // every key masked: defined as zero weights, never NaN
            zero_row(row, cols);
            continue;
        }
        const float sum = exp_shifted_sum(row, cols, max);
        scale_row(row, cols, 1.0f / sum);
    }
}

void relu_normalize_rows_f32(size_t rows, size_t cols, float* x, size_t ld) {
    for (size_t i = 0; i < rows; ++i) {
        float* row = x + i * ld;
        size_t n_valid = 0;
        for (size_t j = 0; j < cols; ++j) n_valid += row[j] != kNegInf;
        if (n_valid == 0) {
            zero_row(row, cols);
            continue;
        }
        const vf32 zero(0.0f), inv(1.0f / static_cast<float>(n_valid));
        size_t j = 0;
        for (; j + kLanes <= cols; j += kLanes) simd::store(row + j, simd::max(simd::load(row + j), zero) * inv);
        if (j < cols) {
            const vf32 v = detail::load_partial(row + j, cols - j, 0.0f);
            detail::store_partial(row + j, cols - j, simd::max(v, zero) * inv);
        }
    }
}

void additive_scores_f32(size_t n, size_t m, size_t d_a, const float* pq, size_t ldq, const float* pk,
                         size_t ldk, const float* w, float* scores, size_t lds) {
    for (size_t i = 0; i < n; ++i) {
        const float* q = pq + i * ldq;
        for (size_t j = 0; j < m; ++j) {
            const float* k = pk + j * ldk;
            vf32 acc(0.0f);
            size_t a = 0;
            for (; a + kLanes <= d_a; a += kLanes)
                acc = simd::fma(simd::load(w + a), simd::tanh(simd::load(q + a) + simd::load(k + a)), acc);
            if (a < d_a) {  // zero-padded w makes the padded lanes contribute nothing
                const size_t r = d_a - a;
                const vf32 t = simd::tanh(detail::load_partial(q + a, r, 0.0f) + detail::load_partial(k + a, r, 0.0f));
                acc = simd::fma(detail::load_partial(w + a, r, 0.0f), t, acc);
            }
            scores[i * lds + j] = simd::reduce_add(acc);
        }
    }
}

}  // namespace simdformer::kernels
