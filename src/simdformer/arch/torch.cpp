#include "simdformer/arch/torch.h"

namespace simdformer {
namespace {

LinearRef linear(const std::string& prefix) { return LinearRef{prefix + "weight", prefix + "bias"}; }

}  // namespace

AttentionRef torch_attention(const std::string& p) {
    AttentionRef a;
    // in_proj_weight stacks W_q, W_k, W_v (each [d, d]) along the output dimension.
    for (size_t part = 0; part < 3; ++part) {
        LinearRef& r = part == 0 ? a.q : part == 1 ? a.k : a.v;
        r = LinearRef{p + "in_proj_weight", p + "in_proj_bias", WeightLayout::kOutIn, part, 3};
    }
    a.out = linear(p + "out_proj.");
    a.additive = AdditiveRef{p + "additive.q_weight", p + "additive.k_weight", p + "additive.v_weight"};
    return a;
}

EncoderLayerRef torch_encoder_layer(const std::string& p) {
    EncoderLayerRef l;
    l.attention = torch_attention(p + "self_attn.");
    l.norm1 = torch_norm(p + "norm1.");
    l.feed_forward = FeedForwardRef{linear(p + "linear1."), linear(p + "linear2.")};
    l.norm2 = torch_norm(p + "norm2.");
    return l;
}

DecoderLayerRef torch_decoder_layer(const std::string& p) {
    DecoderLayerRef l;
    l.self_attention = torch_attention(p + "self_attn.");
    l.cross_attention = torch_attention(p + "multihead_attn.");
    l.feed_forward = FeedForwardRef{linear(p + "linear1."), linear(p + "linear2.")};
    l.norm1 = torch_norm(p + "norm1.");
    l.norm2 = torch_norm(p + "norm2.");
    l.norm3 = torch_norm(p + "norm3.");
    return l;
}

std::string torch_layer_prefix(const std::string& stack, size_t i) {
    return stack + "layers." + std::to_string(i) + ".";
}

NormRef torch_norm(const std::string& prefix) { return NormRef{prefix + "weight", prefix + "bias"}; }

TokenEmbeddingRef torch_token_embedding(const std::string& prefix) {
    return TokenEmbeddingRef{prefix + "embedding.weight", prefix + "pos_embedding.weight"};
}

LinearRef torch_generator() { return linear("generator."); }

}  // namespace simdformer
