#include "simdformer/layers/self_attention.h"

namespace simdformer {
namespace {

// Keys and values of the n_seq new rows of every item, at positions [past, past + n_seq) of kv.
void project_new_keys_values(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                             const KeyValues& kv) {
    const size_t d = attention.d_model(), past = kv.position;
    if (n_seq == 1 || (past == 0 && kv.batch_stride == n_seq * d)) {
        // One projection call: one row per item at batch_stride (a step), or items back to back.
        const size_t ld = n_seq == 1 ? kv.batch_stride : d;
        attention.project_kv(n_batch * n_seq, in, in, d, kv.k + past * d, kv.v + past * d, ld);
        return;
    }
    for (size_t b = 0; b < n_batch; ++b) {
        const float* x = in + b * n_seq * d;
        const size_t at = b * kv.batch_stride + past * d;
        attention.project_kv(n_seq, x, x, d, kv.k + at, kv.v + at, d);
    }
}

}  // namespace

KeyValues scratch_keys_values(const LayerScratch& s, size_t n_seq, size_t d_model) {
    return KeyValues{s.k, s.v, n_seq * d_model, 0};
}

void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                          float* out, const float* residual, const KeyValues& kv, const SequenceMasks& masks,
                          const AttentionOptions& options, const LayerScratch& s, float* weights) {
    const size_t tokens = n_batch * n_seq, d = attention.d_model(), past = kv.position;
    attention.project_q(tokens, in, d, s.q, d);
    project_new_keys_values(attention, n_batch, n_seq, in, kv);
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, past + n_seq, d, s.q, kv.k, kv.v, s.context);
    a.kv_batch_stride = kv.batch_stride;
    a.key_padding = masks.key_padding;
    a.key_padding_stride = masks.key_padding_stride;
    a.key_bias = masks.key_bias;
    a.key_bias_stride = masks.key_bias_stride;
    a.attn_mask = masks.attn_mask;
    a.causal = masks.causal;
    a.causal_offset = past;
    a.options = options;
    a.weights = weights;
    attention.attend(a, s.attention);
    attention.project_out(tokens, s.context, d, out, d, residual, d);
}

}  // namespace simdformer
