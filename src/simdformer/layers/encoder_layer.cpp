#include "simdformer/layers/encoder_layer.h"

namespace simdformer {

Result<EncoderLayer> EncoderLayer::load(WeightReader& reader, const std::string& prefix, const ModelConfig& config) {
    EncoderLayer l;
    l.norm_first_ = config.norm_first;
    l.d_model_ = config.d_model;
    SF_ASSIGN_OR_RETURN(l.self_attn_, MultiHeadAttention::load(reader, prefix + "self_attn.", config));
    SF_ASSIGN_OR_RETURN(l.feed_forward_, FeedForward::load(reader, prefix, config));
    SF_ASSIGN_OR_RETURN(l.norm1_, LayerNorm::load(reader, prefix + "norm1.", config.d_model, config.layer_norm_eps));
    SF_ASSIGN_OR_RETURN(l.norm2_, LayerNorm::load(reader, prefix + "norm2.", config.d_model, config.layer_norm_eps));
    return l;
}

void EncoderLayer::self_attention_block(size_t n_batch, size_t n_seq, const float* in, float* out,
                                        const float* residual, const SequenceMasks& masks,
                                        const AttentionOptions& options, const LayerScratch& s,
                                        float* weights) const {
    const size_t tokens = n_batch * n_seq, d = d_model_;
    self_attn_.project_q(tokens, in, d, s.q, d);
    self_attn_.project_kv(tokens, in, in, d, s.k, s.v, d);
    AttendArgs a = contiguous_attend_args(n_batch, n_seq, n_seq, d, s.q, s.k, s.v, s.context);
    a.key_padding = masks.key_padding;
    a.key_padding_stride = masks.key_padding_stride;
    a.attn_mask = masks.attn_mask;
    a.causal = masks.causal;
    a.options = options;
    a.weights = weights;
    self_attn_.attend(a, s.attention);
    self_attn_.project_out(tokens, s.context, d, out, d, residual, d);
}

void EncoderLayer::forward(size_t n_batch, size_t n_seq, float* x, const SequenceMasks& masks,
                           const AttentionOptions& options, const LayerScratch& s, float* weights) const {
    const size_t tokens = n_batch * n_seq, d = d_model_;
    if (!norm_first_) {
        self_attention_block(n_batch, n_seq, x, s.s1, x, masks, options, s, weights);  // s1 = x + SA(x)
        norm1_.forward(tokens, s.s1, d, x, d);                                          // x = norm1(s1)
        feed_forward_.forward(tokens, x, d, s.hidden, s.s1, d, x, d);                   // s1 = x + FF(x)
        norm2_.forward(tokens, s.s1, d, x, d);                                          // x = norm2(s1)
    } else {
        norm1_.forward(tokens, x, d, s.s1, d);                                          // s1 = norm1(x)
        self_attention_block(n_batch, n_seq, s.s1, s.s2, x, masks, options, s, weights);// s2 = x + SA(s1)
        norm2_.forward(tokens, s.s2, d, s.s1, d);                                       // s1 = norm2(s2)
        feed_forward_.forward(tokens, s.s1, d, s.hidden, x, d, s.s2, d);                // x = s2 + FF(s1)
    }
}

}  // namespace simdformer
