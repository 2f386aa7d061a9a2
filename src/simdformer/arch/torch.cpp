#include "simdformer/arch/torch.h"

#include "simdformer/arch/adapter.h"

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
    l.feed_forward = FeedForwardRef{linear(p + "linear1."), linear(p + "linear2."), LinearRef{}};
    l.norm2 = torch_norm(p + "norm2.");
    return l;
}

DecoderLayerRef torch_decoder_layer(const std::string& p) {
    DecoderLayerRef l;
    l.self_attention = torch_attention(p + "self_attn.");
    l.cross_attention = torch_attention(p + "multihead_attn.");
    l.feed_forward = FeedForwardRef{linear(p + "linear1."), linear(p + "linear2."), LinearRef{}};
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

namespace {

// The layers of one stack and, when the file has it, the stack's final norm.
template <class LayerRef>
void stack_names(const WeightReader& checkpoint, const std::string& stack, size_t n_layers,
                 LayerRef (*layer)(const std::string&), std::vector<LayerRef>& layers, std::optional<NormRef>& norm) {
    for (size_t i = 0; i < n_layers; ++i) layers.push_back(layer(torch_layer_prefix(stack, i)));
    if (checkpoint.has(stack + "norm.weight")) norm = torch_norm(stack + "norm.");
}

void module_names(const ModelConfig& c, const WeightReader& checkpoint, TorchStackRef& r) {
    switch (c.kind) {
        case TorchModule::kMultiheadAttention: r.attention = torch_attention(""); return;
        case TorchModule::kEncoderLayer: r.encoder.push_back(torch_encoder_layer("")); return;
        case TorchModule::kDecoderLayer: r.decoder.push_back(torch_decoder_layer("")); return;
        case TorchModule::kEncoder:
            stack_names(checkpoint, "", c.num_encoder_layers, torch_encoder_layer, r.encoder, r.encoder_norm);
            return;
        case TorchModule::kDecoder:
            stack_names(checkpoint, "", c.num_decoder_layers, torch_decoder_layer, r.decoder, r.decoder_norm);
            return;
        case TorchModule::kTransformer:
            stack_names(checkpoint, "encoder.", c.num_encoder_layers, torch_encoder_layer, r.encoder, r.encoder_norm);
            stack_names(checkpoint, "decoder.", c.num_decoder_layers, torch_decoder_layer, r.decoder, r.decoder_norm);
            return;
    }
}

class TorchAdapter : public Adapter {
public:
    Result<RunnerSpec> read(const AdapterInput& input) const override {
        std::string text = input.config_text.empty() ? input.checkpoint.metadata("config") : input.config_text;
        if (text.empty()) return Status::invalid("no config given and the safetensors metadata has no \"config\" entry");
        SF_ASSIGN_OR_RETURN(ModelConfig config, parse_model_config(text));
        SF_RETURN_IF_ERROR(config.validate().with_context("config"));
        TorchStackRef names = torch_stack_names(config, input.checkpoint);
        return RunnerSpec{TorchSpec{std::move(config), std::move(names), std::move(text)}};
    }
};

}  // namespace

TorchStackRef torch_stack_names(const ModelConfig& c, const WeightReader& checkpoint) {
    TorchStackRef r;
    module_names(c, checkpoint, r);
    const bool transformer = c.kind == TorchModule::kTransformer;
    if (c.src_vocab_size > 0) r.src_embedding = torch_token_embedding(transformer ? "src_" : "");
    if (c.tgt_vocab_size > 0) {
        r.tgt_embedding = torch_token_embedding(transformer ? "tgt_" : "");
        r.generator = torch_generator();
    }
    return r;
}

const Adapter& torch_adapter() {
    static const TorchAdapter adapter;
    return adapter;
}

}  // namespace simdformer
