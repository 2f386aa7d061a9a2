// The self-attention sub-block shared by encoder and decoder layers over whole sequences:
// out = residual + out_proj(attend(q_proj(in), k_proj(in), v_proj(in))).
#pragma once

#include "simdformer/layers/layer_scratch.h"

namespace simdformer {

void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq,
                          const float* in,        // [n_batch * n_seq, d_model]
                          float* out,             // [n_batch * n_seq, d_model]; must not alias residual
                          const float* residual,  // [n_batch * n_seq, d_model] or null
                          const SequenceMasks& masks, const AttentionOptions& options, const LayerScratch& s,
                          float* weights /* [n_batch, nhead, n_seq, n_seq] or null */);

}  // namespace simdformer
