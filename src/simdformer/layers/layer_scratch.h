// Scratch buffers and masks shared by the encoder and decoder layers. The buffers are views
// into a Workspace sized once per model and maximum length, so layers never allocate.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/layers/multi_head_attention.h"

namespace simdformer {

struct LayerScratch {
    // Self-attention's fused projections: row i = q | k | v of token i (q_width, kv_width:
    // ModelConfig; d_model for every model but a rotary decoder with grouped-query attention or
    // an explicit head_dim).
    float* qkv = nullptr;     // [tokens, q_width + 2 kv_width]
    // Separate projections (cross-attention, nn.MultiheadAttention), in the same memory as qkv:
    float* q = nullptr;       // [tokens, q_width]      = qkv
    float* k = nullptr;       // [kv tokens, kv_width]  = q + tokens * q_width
    float* v = nullptr;       // [kv tokens, kv_width]  = k + tokens * kv_width
    float* context = nullptr; // [tokens, q_width]
    float* s1 = nullptr;      // [tokens, d_model]
    float* s2 = nullptr;      // [tokens, d_model]
    float* hidden = nullptr;  // [tokens, dim_feedforward] (gated: twice that, gate | up)
    AttentionScratch attention;
};

// Masks of a self-attention over sequences of equal (padded) length, and the rotary positions of
// its new rows.
struct SequenceMasks {
    const uint8_t* key_padding = nullptr;  // [n_batch, key_padding_stride]; 1 = padding
    size_t key_padding_stride = 0;
    const float* attn_mask = nullptr;      // [n_seq, n_seq] additive, or null
    bool causal = false;
    const float* key_bias = nullptr;       // [n_batch, key_bias_stride] (Hugging Face padding), or null
    size_t key_bias_stride = 0;
    bool combine_by_fill = false;          // HeadMasks::combine_by_fill (Llama, Qwen2, Mistral)
    // Sliding-window layers (Mistral): their additive mask in place of attn_mask, same shape.
    const float* window_attn_mask = nullptr;
    // Rotary attention (Llama): cos and sin [n_batch * n_seq, d_head / 2] of each new row's
    // position (layers/rotary.h), applied to q and k after their projections; null: none.
    const float* rope_cos = nullptr;
    const float* rope_sin = nullptr;
};

// Where one layer's self-attention keys and values live, in the layout attention reads: position
// i of item b at k + b * batch_stride + i * kv_width (d_model but for grouped-query attention). A decoder's cache keeps earlier positions and
// new ones are appended to it (copied from the fused projections; nothing is ever repacked); a
// whole-sequence pass passes none (k null): attention then reads the new rows' keys and values
// where the fused projection wrote them (LayerScratch::qkv), with nothing before position 0.
struct KeyValues {
    float* k = nullptr;        // [n_batch, max_len, kv_width]
    float* v = nullptr;
    size_t batch_stride = 0;   // max_len * kv_width
    size_t position = 0;       // positions already held: the first new token's position
};

}  // namespace simdformer
