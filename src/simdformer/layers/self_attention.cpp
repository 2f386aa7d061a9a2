#include "simdformer/layers/self_attention.h"

namespace simdformer {

void self_attention_block(const MultiHeadAttention& attention, size_t n_batch, size_t n_seq, const float* in,
                          float* out, const float* residual, const SequenceMasks& masks,
                          const AttentionOptions& options, const LayerScratch& s, float* weights) {
    const size_t tokens = n_batch * n_seq, d = attention.d_model();
    attention.project_q(tokens, in, d, s.q, d);
    attention.project_kv(tokens, in, in, d, s.k, s.v, d);
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, n_seq, d, s.q, s.k, s.v, s.context);
    a.key_padding = masks.key_padding;
    a.key_padding_stride = masks.key_padding_stride;
    a.key_bias = masks.key_bias;
    a.key_bias_stride = masks.key_bias_stride;
    a.attn_mask = masks.attn_mask;
    a.causal = masks.causal;
    a.options = options;
    a.weights = weights;
    attention.attend(a, s.attention);
    attention.project_out(tokens, s.context, d, out, d, residual, d);
}

}  // namespace simdformer
