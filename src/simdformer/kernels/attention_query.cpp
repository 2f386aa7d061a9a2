// One query against keys and values read where they are stored (a decoder's cache, an encoder's
// memory): the attention of a decoding step. The general path packs K_hᵀ and V_h into GEMM
// panels, which for one query costs as much as the products themselves and grows with every
// cached position; here scores are dot products over the stored rows and the context is a
// weighted sum of the stored rows, so a step reads K and V once and writes nothing but its
// outputs.
//
// A stored row holds every head side by side (a cache row is [kv heads x d]). Both kernels walk
// the rows once, in order, and do every head of the span on each row before the next: read one
// head at a time, a step walked the rows once per head at a stride of a whole row, which the
// prefetchers follow badly (GPT-2-small at 512 cached positions: 37.7 MB of K and V per step).
// Per output the operations and their order are those of a single head's loop, so the span's
// results are each head's, bit for bit.
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

// out[t] = alpha * (x · r_t) for the four rows r_t = r + t * ld: one load of x serves four
// independent multiply-add chains (each the chain dot_lanes would run).
inline void dot_four_rows(size_t d, const float* x, const float* r, size_t ld, float alpha, float* out) {
    const float* r0 = r;
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
    out[0] = alpha * simd::reduce_add(a0);
    out[1] = alpha * simd::reduce_add(a1);
    out[2] = alpha * simd::reduce_add(a2);
    out[3] = alpha * simd::reduce_add(a3);
}

// out += w · r over d floats (vectors multiply-added, the tail in scalar code: r may end right
// after it, no vector overread).
inline void add_row(size_t d, float w, const float* r, float* out) {
    const vf32 wv = simd::splat(w);
    size_t p = 0;
    for (; p + kLanes <= d; p += kLanes) simd::store(out + p, simd::fma(wv, simd::load(r + p), simd::load(out + p)));
    for (; p < d; ++p) out[p] += w * r[p];
}

}  // namespace

void dot_rows_heads_f32(size_t n, const HeadSpan& span, const float* q, const float* rows, size_t ld, float alpha,
                        float* scores, size_t ld_scores) {
    const size_t d = span.d;
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        for (size_t i = 0; i < span.heads; ++i)
            dot_four_rows(d, q + i * d, rows + j * ld + span.column(i), ld, alpha, scores + i * ld_scores + j);
    for (; j < n; ++j)
        for (size_t i = 0; i < span.heads; ++i)
            scores[i * ld_scores + j] = alpha * simd::reduce_add(dot_lanes(d, q + i * d, rows + j * ld + span.column(i)));
}

void weighted_sum_rows_heads_f32(size_t n, const HeadSpan& span, const float* w, size_t ld_w, const float* rows,
                                 size_t ld, float* out) {
    const size_t d = span.d;
    std::fill(out, out + span.heads * d, 0.0f);
    for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < span.heads; ++i)
            if (w[i * ld_w + j] != 0.0f) add_row(d, w[i * ld_w + j], rows + j * ld + span.column(i), out + i * d);
}

}  // namespace simdformer::kernels
