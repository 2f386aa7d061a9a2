// The one self-attention sub-block of every layer, for a whole sequence and for cached steps:
//   out = residual + out_proj(attend(q, K, V)),  q | k | v = qkv_proj(in),  K, V = keys/values + k, v
// One GEMM projects the new rows' queries, keys and values side by side (LayerScratch::qkv). A
// whole sequence passes no keys/values (KeyValues{}): the queries attend over the new rows' keys
// and values where the projection wrote them. A decoder passes its cache: the new rows' keys and
// values are copied into it at positions [kv.position, kv.position + n_seq) of each item, then
// the queries attend over every position up to their own. With one new row per item (a
// decoding step) the projection runs as a GEMV and attention reads K and V where they lie
// (MultiHeadAttention's one-query path).
//
// This is the single place where queries meet keys: with masks.rope_cos the new queries and keys
// are rotated (layers/rotary.h) between their projection and attention (before keys are cached),
// and with grouped-query attention K and V hold only the key/value heads
// (MultiHeadAttention::kv_width wide).
#pragma once

#include "simdformer/layers/layer_scratch.h"

namespace simdformer {

// `attention` must have been loaded for self-attention (its projections packed as one).
// masks: key_padding / key_bias [n_batch, stride] over key positions; attn_mask
// [n_seq, kv.position + n_seq] additive (a causal mask), or null; causal masks keys after each
// query with -inf (query i sits at kv.position + i). (window_attn_mask is the layer's to choose.)
void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq,
                          const float* in,        // [n_batch * n_seq, d_model]
                          float* out,             // [n_batch * n_seq, d_model]; must not alias residual
                          const float* residual,  // [n_batch * n_seq, d_model] or null
                          const KeyValues& kv, const SequenceMasks& masks, const AttentionOptions& options,
                          const LayerScratch& s,
                          float* weights /* [n_batch, nhead, n_seq, kv.position + n_seq] or null */);

}  // namespace simdformer
