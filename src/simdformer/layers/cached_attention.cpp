#include "simdformer/layers/cached_attention.h"

namespace simdformer {

void cached_self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                                 float* out, const float* residual, const SelfCache& cache, const SequenceMasks& masks,
                                 const AttentionOptions& options, const LayerScratch& s, float* weights) {
    const size_t tokens = n_batch * n_seq, d = attention.d_model(), past = cache.position;
    attention.project_q(tokens, in, d, s.q, d);
    // Keys and values land at positions [past, past + n_seq) of each item's cache.
    if (n_seq == 1) {
        // One row per item: one projection call whose output rows are batch_stride apart.
        attention.project_kv(n_batch, in, in, d, cache.k + past * d, cache.v + past * d, cache.batch_stride);
    } else {
        for (size_t b = 0; b < n_batch; ++b) {
            const float* x = in + b * n_seq * d;
            const size_t at = b * cache.batch_stride + past * d;
            attention.project_kv(n_seq, x, x, d, cache.k + at, cache.v + at, d);
        }
    }
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, past + n_seq, d, s.q, cache.k, cache.v, s.context);
    a.kv_batch_stride = cache.batch_stride;
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
