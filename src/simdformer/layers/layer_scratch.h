// Scratch buffers and masks shared by the encoder and decoder layers. The buffers are views
// into a Workspace sized once per model and maximum length, so layers never allocate.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/layers/multi_head_attention.h"

namespace simdformer {

struct LayerScratch {
    float* q = nullptr;       // [tokens, d_model]
    float* k = nullptr;       // [kv tokens, d_model]
    float* v = nullptr;       // [kv tokens, d_model]
    float* context = nullptr; // [tokens, d_model]
    float* s1 = nullptr;      // [tokens, d_model]
    float* s2 = nullptr;      // [tokens, d_model]
    float* hidden = nullptr;  // [tokens, dim_feedforward]
    AttentionScratch attention;
};

// Masks of a self-attention over sequences of equal (padded) length.
struct SequenceMasks {
    const uint8_t* key_padding = nullptr;  // [n_batch, key_padding_stride]; 1 = padding
    size_t key_padding_stride = 0;
    const float* attn_mask = nullptr;      // [n_seq, n_seq] additive, or null
    bool causal = false;
    const float* key_bias = nullptr;       // [n_batch, key_bias_stride] (Hugging Face padding), or null
    size_t key_bias_stride = 0;
};

// Where one layer's self-attention keys and values live, in the layout attention reads: position
// i of item b at k + b * batch_stride + i * d_model. A decoder's cache keeps earlier positions and
// new ones are appended in place (nothing is ever repacked); a whole-sequence pass uses the
// layer scratch (scratch_keys_values, layers/self_attention.h) with nothing before position 0.
struct KeyValues {
    float* k = nullptr;        // [n_batch, max_len, d_model]
    float* v = nullptr;
    size_t batch_stride = 0;   // max_len * d_model
    size_t position = 0;       // positions already held: the first new token's position
};

}  // namespace simdformer
