// Model loading: builds the layers of the configured PyTorch module from state_dict names.
#include <string>

#include "simdformer/arch/torch.h"
#include "simdformer/model/model_impl.h"

namespace simdformer {
namespace {

// The layers `<stack>layers.<i>.` and, when the file has it, the stack's final norm
// `<stack>norm.` (nn.TransformerEncoder/Decoder(norm=None) have none). Encoder and decoder
// stacks differ only in their layer type (and the name map of one layer, `names`).
template <class Layer, class LayerRef>
Status load_stack(WeightReader& r, const ModelConfig& c, const std::string& stack, size_t n_layers,
                  LayerRef (*names)(const std::string&), std::vector<Layer>& layers, std::optional<LayerNorm>& norm) {
    for (size_t i = 0; i < n_layers; ++i) {
        SF_ASSIGN_OR_RETURN(Layer layer, Layer::load(r, names(torch_layer_prefix(stack, i)), c));
        layers.push_back(std::move(layer));
    }
    if (r.has(stack + "norm.weight")) {
        SF_ASSIGN_OR_RETURN(LayerNorm n, LayerNorm::load(r, torch_norm(stack + "norm."), c.d_model, c.layer_norm_eps));
        norm = std::move(n);
    }
    return Status::ok();
}

Status load_encoder_stack(WeightReader& r, const ModelConfig& c, const std::string& stack, ModelImpl& m) {
    return load_stack(r, c, stack, c.num_encoder_layers, torch_encoder_layer, m.encoder, m.encoder_norm);
}

Status load_decoder_stack(WeightReader& r, const ModelConfig& c, const std::string& stack, ModelImpl& m) {
    return load_stack(r, c, stack, c.num_decoder_layers, torch_decoder_layer, m.decoder, m.decoder_norm);
}

Status load_layers(WeightReader& r, const ModelConfig& c, ModelImpl& m) {
    switch (c.kind) {
        case ModelKind::kMultiheadAttention: {
            SF_ASSIGN_OR_RETURN(MultiHeadAttention mha, MultiHeadAttention::load(r, torch_attention(""), c));
            m.mha = std::move(mha);
            return Status::ok();
        }
        case ModelKind::kEncoderLayer: {
            SF_ASSIGN_OR_RETURN(EncoderLayer layer, EncoderLayer::load(r, torch_encoder_layer(""), c));
            m.encoder.push_back(std::move(layer));
            return Status::ok();
        }
        case ModelKind::kDecoderLayer: {
            SF_ASSIGN_OR_RETURN(DecoderLayer layer, DecoderLayer::load(r, torch_decoder_layer(""), c));
            m.decoder.push_back(std::move(layer));
            return Status::ok();
        }
        case ModelKind::kEncoder: return load_encoder_stack(r, c, "", m);
        case ModelKind::kDecoder: return load_decoder_stack(r, c, "", m);
        case ModelKind::kTransformer:
            SF_RETURN_IF_ERROR(load_encoder_stack(r, c, "encoder.", m));
            return load_decoder_stack(r, c, "decoder.", m);
    }
    return Status::invalid("unknown model kind");
}

Status load_token_layers(WeightReader& r, const ModelConfig& c, ModelImpl& m) {
    const bool transformer = c.kind == ModelKind::kTransformer;
    if (c.src_vocab_size > 0) {
        SF_ASSIGN_OR_RETURN(TokenEmbedding e, TokenEmbedding::load(r, torch_token_embedding(transformer ? "src_" : ""),
                                                                   c.src_vocab_size, c));
        m.src_embedding = std::move(e);
    }
    if (c.tgt_vocab_size > 0) {
        SF_ASSIGN_OR_RETURN(TokenEmbedding e, TokenEmbedding::load(r, torch_token_embedding(transformer ? "tgt_" : ""),
                                                                   c.tgt_vocab_size, c));
        m.tgt_embedding = std::move(e);
        SF_ASSIGN_OR_RETURN(Linear g, Linear::load(r, torch_generator(), c.d_model, c.tgt_vocab_size));
        m.generator = std::move(g);
    }
    return Status::ok();
}

}  // namespace

Model::Model() : impl_(std::make_unique<ModelImpl>()) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const ModelConfig& Model::config() const { return impl_->config; }
size_t Model::parameter_count() const { return impl_->parameters; }

Result<Model> Model::load(WeightReader& reader, const ModelConfig& config) {
    SF_RETURN_IF_ERROR(config.validate().with_context("config"));
    Model model;
    model.impl_->config = config;
    SF_RETURN_IF_ERROR(load_layers(reader, config, *model.impl_));
    SF_RETURN_IF_ERROR(load_token_layers(reader, config, *model.impl_));
    const std::vector<std::string> extra = reader.unused();
    if (!extra.empty()) {
        std::string names;
        for (size_t i = 0; i < extra.size() && i < 5; ++i) names += (i ? ", " : "") + extra[i];
        if (extra.size() > 5) names += ", ...";
        return Status::invalid(std::to_string(extra.size()) + " unexpected tensor(s) for a " +
                               model_kind_name(config.kind) + " with this config: " + names);
    }
    model.impl_->parameters = reader.elements_taken();
    return model;
}

}  // namespace simdformer
