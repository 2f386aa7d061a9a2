// One query against keys and values read where they are stored (a decoder's cache, an encoder's
// memory): the attention of a decoding step. The general path packs K_hᵀ and V_h into GEMM
// panels, which for one query costs as much as the products themselves and grows with every
// cached position; here scores are dot products over the stored rows and the context is a
// weighted sum of the stored rows, so a step reads K and V once and writes nothing but its
// outputs.
#include <algorithm>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

// x · r over d floats, accumulated in `acc` lanes (the tail through a zero-filled vector).
inline vf32 dot_lanes(size_t d, const float* x, const float* r) {
    vf32 acc(0.0f);
    size_t p = 0;
    for (; p + kLanes <= d; p += kLanes) acc = simd::fma(simd::load(x + p), simd::load(r + p), acc);
    if (p < d) acc = simd::fma(detail::load_partial(x + p, d - p, 0.0f), detail::load_partial(r + p, d - p, 0.0f), acc);
    return acc;
}

// Columns [p, p + C * kLanes) of out = Σ_j w[j] rows[j], kept in C registers over all rows.
template <size_t C>
void weighted_block(size_t n, size_t p, const float* w, const float* rows, size_t ld, float* out) {
    vf32 acc[C];
    for (size_t c = 0; c < C; ++c) acc[c] = vf32(0.0f);
    for (size_t j = 0; j < n; ++j) {
        if (w[j] == 0.0f) continue;  // masked keys (padding) add nothing: skip their rows
        const vf32 wj = simd::splat(w[j]);
        const float* r = rows + j * ld + p;
        for (size_t c = 0; c < C; ++c) acc[c] = simd::fma(wj, simd::load(r + c * kLanes), acc[c]);
    }
    for (size_t c = 0; c < C; ++c) simd::store(out + p + c * kLanes, acc[c]);
}

}  // namespace

void dot_rows_f32(size_t n, size_t d, const float* x, const float* rows, size_t ld, float alpha, float* out) {
    size_t j = 0;
    // Four rows at a time: one load of x serves four independent multiply-add chains.
    for (; j + 4 <= n; j += 4) {
        const float* r0 = rows + j * ld;
        const float* r1 = r0 + ld;
        const float* r2 = r1 + ld;
        const float* r3 = r2 + ld;
        vf32 a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
        size_t p = 0;
        for (; p + kLanes <= d; p += kLanes) {
            const vf32 xv = simd::load(x + p);
            a0 = simd::fma(xv, simd::load(r0 + p), a0);
            a1 = simd::fma(xv, simd::load(r1 + p), a1);
            a2 = simd::fma(xv, simd::load(r2 + p), a2);
            a3 = simd::fma(xv, simd::load(r3 + p), a3);
        }
        if (p < d) {
            const size_t t = d - p;
            const vf32 xv = detail::load_partial(x + p, t, 0.0f);
            a0 = simd::fma(xv, detail::load_partial(r0 + p, t, 0.0f), a0);
            a1 = simd::fma(xv, detail::load_partial(r1 + p, t, 0.0f), a1);
            a2 = simd::fma(xv, detail::load_partial(r2 + p, t, 0.0f), a2);
            a3 = simd::fma(xv, detail::load_partial(r3 + p, t, 0.0f), a3);
        }
        out[j] = alpha * simd::reduce_add(a0);
        out[j + 1] = alpha * simd::reduce_add(a1);
        out[j + 2] = alpha * simd::reduce_add(a2);
        out[j + 3] = alpha * simd::reduce_add(a3);
    }
    for (; j < n; ++j) out[j] = alpha * simd::reduce_add(dot_lanes(d, x, rows + j * ld));
}

void weighted_sum_rows_f32(size_t n, size_t d, const float* w, const float* rows, size_t ld, float* out) {
    // Up to 8 vectors of the output stay in registers while every row streams past; a wider
    // head takes several passes over the rows (each pass reads a slice of every row).
    constexpr size_t kBlock = 8;
    size_t p = 0;
    for (; p + kBlock * kLanes <= d; p += kBlock * kLanes) weighted_block<kBlock>(n, p, w, rows, ld, out);
    for (; p + kLanes <= d; p += kLanes) weighted_block<1>(n, p, w, rows, ld, out);
    if (p < d) {  // the tail, in scalar code (rows may end right after it: no vector overread)
        for (size_t c = p; c < d; ++c) out[c] = 0.0f;
        for (size_t j = 0; j < n; ++j) {
            if (w[j] == 0.0f) continue;
            for (size_t c = p; c < d; ++c) out[c] += w[j] * rows[j * ld + c];
        }
    }
}

}  // namespace simdformer::kernels
