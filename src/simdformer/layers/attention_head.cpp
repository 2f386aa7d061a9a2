#include "simdformer/layers/attention_head.h"

#include <cmath>
#include <limits>

#include "simdformer/kernels/kernels.h"

namespace simdformer {

void head_dot_scores(size_t nq, size_t nk, size_t d, const float* q, size_t ldq, const float* k, size_t ldk,
                     ScoreKind score, float* scores, float* pack) {
    kernels::Epilogue ep;
    // PyTorch scales q by 1/sqrt(d) before the product; scaling the product is the same math
    // and costs nothing extra in the epilogue.
    ep.alpha = score == ScoreKind::kScaledDot ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f;
    kernels::gemm_f32_nt(nq, nk, d, q, ldq, k, ldk, scores, nk, pack, ep);
}

void head_attend(size_t nq, size_t nk, size_t d_v, float* scores, const HeadMasks& m, NormalizeKind normalize,
                 const float* v, size_t ldv, float* context, size_t ldc, float* pack) {
    kernels::mask_scores_f32(nq, nk, scores, nk, m.key_padding, m.attn_mask, nk, m.causal, m.causal_offset);
    // The per-key bias is the same additive row for every query (row stride 0).
    if (m.key_bias) kernels::mask_scores_f32(nq, nk, scores, nk, nullptr, m.key_bias, 0, false, 0);
    if (m.combine_by_fill) kernels::floor_f32(nq * nk, std::numeric_limits<float>::lowest(), scores);
    if (normalize == NormalizeKind::kSoftmax) {
        kernels::softmax_rows_f32(nq, nk, scores, nk);
    } else {
        kernels::relu_normalize_rows_f32(nq, nk, scores, nk);
    }
    kernels::gemm_f32(nq, d_v, nk, scores, nk, v, ldv, context, ldc, pack);
}

void heads_attend_query(size_t nk, const kernels::HeadSpan& span, const float* q, const float* k, size_t ldk,
                        const float* v, size_t ldv, ScoreKind score, const HeadMasks& m, NormalizeKind normalize,
                        float* weights, float* context) {
    const float alpha = score == ScoreKind::kScaledDot ? 1.0f / std::sqrt(static_cast<float>(span.d)) : 1.0f;
    kernels::dot_rows_heads_f32(nk, span, q, k, ldk, alpha, weights, nk);
    // The same mask and normaliser kernels as whole sequences, one row per head (each row the one
    // query: masked as row 0, as for a query at position causal_offset).
    const size_t h = span.heads;
    for (size_t i = 0; i < h; ++i) {
        float* row = weights + i * nk;
        kernels::mask_scores_f32(1, nk, row, nk, m.key_padding, m.attn_mask, nk, m.causal, m.causal_offset);
        if (m.key_bias) kernels::mask_scores_f32(1, nk, row, nk, nullptr, m.key_bias, 0, false, 0);
    }
    if (m.combine_by_fill) kernels::floor_f32(h * nk, std::numeric_limits<float>::lowest(), weights);
    if (normalize == NormalizeKind::kSoftmax) {
        kernels::softmax_rows_f32(h, nk, weights, nk);
    } else {
        kernels::relu_normalize_rows_f32(h, nk, weights, nk);
    }
    kernels::weighted_sum_rows_heads_f32(nk, span, weights, nk, v, ldv, context);
}

}  // namespace simdformer
