#include "simdformer/layers/self_attention.h"

#include "simdformer/layers/rotary.h"

namespace simdformer {
namespace {

// Keys and values of the n_seq new rows of every item, at positions [past, past + n_seq) of kv.
void project_new_keys_values(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                             const KeyValues& kv) {
    const size_t d = attention.d_model(), w = attention.kv_width(), past = kv.position;
    if (n_seq == 1 || (past == 0 && kv.batch_stride == n_seq * w)) {
        // One projection call: one row per item at batch_stride (a step), or items back to back.
        const size_t ld = n_seq == 1 ? kv.batch_stride : w;
        attention.project_kv(n_batch * n_seq, in, in, d, kv.k + past * w, kv.v + past * w, ld);
        return;
    }
    for (size_t b = 0; b < n_batch; ++b) {
        const float* x = in + b * n_seq * d;
        const size_t at = b * kv.batch_stride + past * w;
        attention.project_kv(n_seq, x, x, d, kv.k + at, kv.v + at, w);
    }
}

// Rotary positions (masks.rope_cos / rope_sin, row b * n_seq + i) on the new queries and on the
// new keys where they were just written.
void rotate_new_rows(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const SequenceMasks& masks,
                     const KeyValues& kv, float* q) {
    const size_t dh = attention.d_head(), half = dh / 2, w = attention.kv_width();
    rotate_half(n_batch * n_seq, attention.q_width() / dh, dh, q, attention.q_width(), masks.rope_cos, masks.rope_sin);
    for (size_t b = 0; b < n_batch; ++b) {
        const size_t row = b * n_seq;
        rotate_half(n_seq, attention.kv_heads(), dh, kv.k + b * kv.batch_stride + kv.position * w, w,
                    masks.rope_cos + row * half, masks.rope_sin + row * half);
    }
}

}  // namespace

KeyValues scratch_keys_values(const LayerScratch& s, size_t n_seq, size_t kv_width) {
    return KeyValues{s.k, s.v, n_seq * kv_width, 0};
}

void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                          float* out, const float* residual, const KeyValues& kv, const SequenceMasks& masks,
                          const AttentionOptions& options, const LayerScratch& s, float* weights) {
    const size_t tokens = n_batch * n_seq, d = attention.d_model(), past = kv.position;
    const size_t qw = attention.q_width(), kvw = attention.kv_width();
    attention.project_q(tokens, in, d, s.q, qw);
    project_new_keys_values(attention, n_batch, n_seq, in, kv);
    if (masks.rope_cos) rotate_new_rows(attention, n_batch, n_seq, masks, kv, s.q);
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, past + n_seq, qw, s.q, kv.k, kv.v, s.context);
    a.ld_kv = kvw;
    a.kv_batch_stride = kv.batch_stride;
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
