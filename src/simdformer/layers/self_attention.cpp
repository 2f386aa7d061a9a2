#include "simdformer/layers/self_attention.h"

#include <cstring>

#include "simdformer/layers/rotary.h"

namespace simdformer {
namespace {

// The new rows' keys and values (columns [q_width, qkv_width) of the fused projections, row
// b * n_seq + i) into kv at positions [past, past + n_seq) of each item.
void append_keys_values(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* qkv,
                        const KeyValues& kv) {
    const size_t w = attention.kv_width(), ld = attention.qkv_width();
    const float* k = qkv + attention.q_width();
    for (size_t b = 0; b < n_batch; ++b) {
        for (size_t i = 0; i < n_seq; ++i) {
            const size_t row = b * n_seq + i, at = b * kv.batch_stride + (kv.position + i) * w;
            std::memcpy(kv.k + at, k + row * ld, w * sizeof(float));
            std::memcpy(kv.v + at, k + row * ld + w, w * sizeof(float));
        }
    }
}

}  // namespace

void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                          float* out, const float* residual, const KeyValues& kv, const SequenceMasks& masks,
                          const AttentionOptions& options, const LayerScratch& s, float* weights) {
    const size_t tokens = n_batch * n_seq, d = attention.d_model(), past = kv.position;
    const size_t qw = attention.q_width(), kvw = attention.kv_width(), ld = attention.qkv_width();
    float* q = s.qkv;  // [tokens, ld]: q | k | v of every new row
    attention.project_qkv(tokens, in, d, q, ld);
    if (masks.rope_cos) {
        // Rotary positions (row b * n_seq + i) on the new queries and keys, before keys are cached.
        const size_t dh = attention.d_head();
        rotate_half(tokens, qw / dh, dh, q, ld, masks.rope_cos, masks.rope_sin);
        rotate_half(tokens, attention.kv_heads(), dh, q + qw, ld, masks.rope_cos, masks.rope_sin);
    }
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, past + n_seq, qw, q, q + qw, q + qw + kvw, s.context);
    a.ld_q = ld;
    a.q_batch_stride = n_seq * ld;
    if (kv.k) {
        append_keys_values(attention, n_batch, n_seq, q, kv);
        a.k = kv.k;
        a.v = kv.v;
        a.ld_kv = kvw;
        a.kv_batch_stride = kv.batch_stride;
    } else {
        a.ld_kv = ld;
        a.kv_batch_stride = n_seq * ld;
    }
    a.key_padding = masks.key_padding;
    a.key_padding_stride = masks.key_padding_stride;
    a.key_bias = masks.key_bias;
    a.key_bias_stride = masks.key_bias_stride;
    a.attn_mask = masks.attn_mask;
    a.causal = masks.causal;
    a.causal_offset = past;
    a.combine_by_fill = masks.combine_by_fill;
    a.options = options;
    a.weights = weights;
    attention.attend(a, s.attention);
    attention.project_out(tokens, s.context, qw, out, d, residual, d);
}

}  // namespace simdformer
