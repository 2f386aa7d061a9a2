// One attention head, the steps every attention in simdformer shares: raw scores, masks,
// normalisation and the weighted sum of values. MultiHeadAttention runs it per batch item and
// head on slices of its projections; the standalone attention op runs it once on caller data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/config.h"
#include "simdformer/kernels/kernels.h"

namespace simdformer {

// What is hidden from a head's queries, in PyTorch's conventions.
struct HeadMasks {
    const uint8_t* key_padding = nullptr;  // [n_seq_k]; 1 = masked key (score set to -inf)
    // [n_seq_k] added to every query's scores after scaling: Hugging Face's padding mask, 0 for a
    // real key and float32's lowest value for padding. Not -inf: a query whose keys are all
    // padding then gets uniform weights, as in Hugging Face, instead of zeros.
    const float* key_bias = nullptr;
    const float* attn_mask = nullptr;      // [n_seq_q, n_seq_k] additive (-inf = masked), or null
    bool causal = false;                   // key j masked for query i when j > i + causal_offset
    size_t causal_offset = 0;
    // Masks combined as Hugging Face's Llama-family eager mask combines them (masked_fill, not a
    // sum): a score hidden by two masks is float's lowest, never -inf, so a query whose every key
    // is hidden (a padded query) weighs all keys alike, as in HF.
    bool combine_by_fill = false;
};

// scores [n_seq_q, n_seq_k] = q kᵀ, scaled by 1/sqrt(d) for kScaledDot (additive scores are
// computed by the caller, which owns the additive weights).
void head_dot_scores(size_t n_seq_q, size_t n_seq_k, size_t d,
                     const float* q, size_t ldq,  // [n_seq_q, d]
                     const float* k, size_t ldk,  // [n_seq_k, d]
                     ScoreKind score,
                     float* scores,               // [n_seq_q, n_seq_k], row stride n_seq_k
                     float* pack);                // [packed_b_size(d, n_seq_k)] scratch

// Turns raw scores into weights in place (masks, then softmax or ReLU normalisation) and writes
// context = weights · V.
void head_attend(size_t n_seq_q, size_t n_seq_k, size_t d_v,
                 float* scores,               // [n_seq_q, n_seq_k]: raw scores in, weights out
                 const HeadMasks& masks, NormalizeKind normalize,
                 const float* v, size_t ldv,  // [n_seq_k, d_v]
                 float* context, size_t ldc,  // [n_seq_q, d_v]
                 float* pack);                // [packed_b_size(n_seq_k, d_v)] scratch

// One query's heads against keys and values read where they are stored (a decoding step: the
// cache, or an encoder memory): scores, masks (row 0 of attn_mask; causal as for a query at
// position causal_offset), normalisation and context, without packing K or V, every stored row
// read once for all the heads of `span`. Dot-product scores only (the additive kind needs the
// caller's weights and goes through head_dot_scores' sibling).
void heads_attend_query(size_t n_seq_k, const kernels::HeadSpan& span,
                        const float* q,               // [heads, d]
                        const float* k, size_t ldk,   // [n_seq_k, ...] from head span.first's column
                        const float* v, size_t ldv,   // [n_seq_k, ...] likewise
                        ScoreKind score, const HeadMasks& masks, NormalizeKind normalize,
                        float* weights,               // [heads, n_seq_k]: the query's weights out
                        float* context);              // [heads, d]

}  // namespace simdformer
