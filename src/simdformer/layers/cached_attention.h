// Self-attention over a key/value cache, for decoder-only models (GPT-2): the keys and values of
// the new rows are appended to the cache in place, then their queries attend over every cached
// position. With one new row per item (a decoding step) the projections run as GEMVs and the
// attention reads K and V where they lie (MultiHeadAttention's one-query path); a prompt of
// several rows goes through the same code with the whole-sequence GEMMs.
#pragma once

#include "simdformer/layers/layer_scratch.h"

namespace simdformer {

// out = residual + out_proj(attend(q_proj(in), cache + k_proj(in), cache + v_proj(in))).
// masks: key_bias [n_batch, key_bias_stride] over cache positions; attn_mask
// [n_seq, cache.position + n_seq] additive (a causal mask), or null; causal masks keys after
// each query with -inf (query i sits at cache.position + i).
void cached_self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq,
                                 const float* in,        // [n_batch * n_seq, d_model]
                                 float* out,             // [n_batch * n_seq, d_model]; must not alias residual
                                 const float* residual,  // [n_batch * n_seq, d_model] or null
                                 const SelfCache& cache, const SequenceMasks& masks, const AttentionOptions& options,
                                 const LayerScratch& s,
                                 float* weights /* [n_batch, nhead, n_seq, cache.position + n_seq] or null */);

}  // namespace simdformer
