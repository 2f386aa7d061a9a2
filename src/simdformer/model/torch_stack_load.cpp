// The TorchStack runner: loading from its spec, info_json's keys and the workspace plan. Cold
// code (once per load or per workspace), compiled for size in wasm (src/CMakeLists.txt).
#include "simdformer/io/json_object.h"
#include "simdformer/model/info_json.h"
#include "simdformer/model/torch_stack.h"

namespace simdformer::detail {
namespace {

template <class Layer, class LayerRef>
Status load_layers(WeightReader& r, const std::vector<LayerRef>& refs, const ModelConfig& c, std::vector<Layer>& out) {
    for (const LayerRef& ref : refs) {
        SF_ASSIGN_OR_RETURN(Layer layer, Layer::load(r, ref, c));
        out.push_back(std::move(layer));
    }
    return Status::ok();
}

Status load_norm(WeightReader& r, const std::optional<NormRef>& ref, const ModelConfig& c, std::optional<LayerNorm>& out) {
    if (!ref) return Status::ok();
    SF_ASSIGN_OR_RETURN(LayerNorm norm, LayerNorm::load(r, *ref, c.d_model, c.layer_norm_eps));
    out = std::move(norm);
    return Status::ok();
}

Status load_embedding(WeightReader& r, const std::optional<TokenEmbeddingRef>& ref, size_t vocab, const ModelConfig& c,
                      std::optional<TokenEmbedding>& out) {
    if (!ref) return Status::ok();
    SF_ASSIGN_OR_RETURN(TokenEmbedding e, TokenEmbedding::load(r, *ref, vocab, c));
    out = std::move(e);
    return Status::ok();
}

// Unlike Hugging Face folders, a file of the nn.Transformer dialect holds exactly its module:
// a tensor nothing used means the config and the file disagree.
Status check_nothing_left(const WeightReader& r, const ModelConfig& c) {
    const std::vector<std::string> extra = r.unused();
    if (extra.empty()) return Status::ok();
    std::string names;
    for (size_t i = 0; i < extra.size() && i < 5; ++i) names += (i ? ", " : "") + extra[i];
    if (extra.size() > 5) names += ", ...";
    return Status::invalid(cat({extra.size(), " unexpected tensor(s) for a ", torch_module_name(c.kind),
                                " with this config: ", names}));
}

}  // namespace

Result<std::unique_ptr<Runner>> TorchStack::load(const RunnerSpec& any, WeightReader& r) {
    const TorchSpec* spec = std::get_if<TorchSpec>(&any);
    if (!spec) return Status::invalid("the torch stack needs a torch spec");
    const ModelConfig& c = spec->config;
    SF_RETURN_IF_ERROR(c.validate().with_context("config"));
    auto m = std::make_unique<TorchStack>();
    m->shape_ = c;
    m->config_text_ = spec->config_text;
    const TorchStackRef& n = spec->names;
    if (n.attention) {
        SF_ASSIGN_OR_RETURN(MultiHeadAttention a, MultiHeadAttention::load(r, *n.attention, c, false));
        m->attention_ = std::move(a);
    }
    SF_RETURN_IF_ERROR(load_layers(r, n.encoder, c, m->encoder_));
    SF_RETURN_IF_ERROR(load_norm(r, n.encoder_norm, c, m->encoder_norm_));
    SF_RETURN_IF_ERROR(load_layers(r, n.decoder, c, m->decoder_));
    SF_RETURN_IF_ERROR(load_norm(r, n.decoder_norm, c, m->decoder_norm_));
    SF_RETURN_IF_ERROR(load_embedding(r, n.src_embedding, c.src_vocab_size, c, m->src_embedding_));
    SF_RETURN_IF_ERROR(load_embedding(r, n.tgt_embedding, c.tgt_vocab_size, c, m->tgt_embedding_));
    if (n.generator) {
        SF_ASSIGN_OR_RETURN(Linear g, Linear::load(r, *n.generator, c.d_model, c.tgt_vocab_size));
        m->generator_ = std::move(g);
    }
    SF_RETURN_IF_ERROR(check_nothing_left(r, c));
    m->parameters_ = r.elements_taken();
    return std::unique_ptr<Runner>(std::move(m));
}

nlohmann::json TorchStack::info() const {
    const ModelConfig& c = shape_;
    nlohmann::json info = json_object({{"architecture", "torch"},
            {"model_type", torch_module_name(c.kind)},
            {"d_model", c.d_model},
            {"n_layers", c.num_encoder_layers + c.num_decoder_layers},
            {"n_heads", c.nhead},
            {"d_ff", c.dim_feedforward},
            {"vocab_size", c.tgt_vocab_size ? c.tgt_vocab_size : c.src_vocab_size},
            {"max_positions", c.max_len},
            {"type_vocab_size", 0},
            {"pad_token_id", nullptr},
            {"bos_token_id", info_token_id(c.bos_token)},
            {"eos_token_id", info_token_id(c.eos_token)},
            {"hidden_act", activation_name(c.activation)},
            {"layer_norm_eps", shortest_float(c.layer_norm_eps)},
            {"causal", false}});
    info["has_pooler"] = false;
    info["has_mlm_head"] = false;
    info["has_lm_head"] = generator_.has_value();
    info["has_classifier"] = false;  // the keys of TextEncoder's classifier, absent here
    info["has_token_classifier"] = false;
    info["has_qa_head"] = false;
    info["num_labels"] = nullptr;
    info["labels"] = nullptr;
    info["problem_type"] = nullptr;
    info["config"] = parse_config_object(config_text_.empty() ? model_config_to_json(c) : config_text_);
    return info;
}

// Every buffer a forward pass or generate() of this module can touch.
void TorchStack::plan(TorchStackWorkspace& w, BufferPlan& p) const {
    const ModelConfig& c = shape_;
    const size_t B = w.limits.max_batch, Ls = w.max_src, Lt = w.max_tgt, L = std::max(Ls, Lt);
    const size_t d = c.d_model, h = c.nhead, n_dec = decoder_.size();
    const size_t n_enc = encoder_.size() + (attention_ ? 1 : 0);
    const size_t rows_src = p.product({B, Ls}), rows_tgt = p.product({B, Lt});
    // multihead_attention: queries are "src", keys are "tgt"; encoders: src only.
    w.encoder_slot = attention_ ? p.product({B, h, Ls, Lt}) : p.product({B, h, Ls, Ls});
    w.decoder_self_slot = p.product({B, h, Lt, Lt});
    w.decoder_cross_slot = p.product({B, h, Lt, Ls});
    w.layers.plan(c, p.product({B, L}), L, p);
    p.add(&w.x, p.product({rows_src, d}), "workspace.x");
    p.add(&w.y, p.product({rows_tgt, d}), "workspace.y");
    p.add(&w.logits, p.product({rows_tgt, generator_ ? generator_->out_features() : 0}), "workspace.logits");
    const size_t maps = p.sum(p.product({n_enc, w.encoder_slot}),
                              p.product({n_dec, p.sum(w.decoder_self_slot, w.decoder_cross_slot)}));
    p.add(&w.attention, w.limits.record_attention ? maps : 0, "workspace.attention");
    p.add(&w.step_self, n_dec ? p.product({B, h, Lt}) : 0, "workspace.step_self");
    p.add(&w.step_cross, n_dec ? p.product({B, h, Ls}) : 0, "workspace.step_cross");
    w.cross_k.resize(n_dec);
    w.cross_v.resize(n_dec);
    w.cache_k.resize(n_dec);
    w.cache_v.resize(n_dec);
    for (size_t i = 0; i < n_dec; ++i) {
        p.add(&w.cross_k[i], p.product({rows_src, d}), "workspace.cross_k");
        p.add(&w.cross_v[i], p.product({rows_src, d}), "workspace.cross_v");
        p.add(&w.cache_k[i], p.product({rows_tgt, d}), "workspace.cache_k");
        p.add(&w.cache_v[i], p.product({rows_tgt, d}), "workspace.cache_v");
    }
    if (n_dec) w.decoding.plan(generator_ ? generator_->out_features() : 0, p);
}

Result<std::unique_ptr<WorkspaceImpl>> TorchStack::make_workspace(const WorkspaceLimits& requested,
                                                                  bool allocate) const {
    auto w = std::make_unique<TorchStackWorkspace>();
    WorkspaceLimits limits = requested;
    limits.max_src_len = requested.max_src_len ? requested.max_src_len : shape_.max_len;
    // Encoder-only modules never see a target: by default it costs nothing (rows are sized by
    // max(src, tgt), so a default of max_len would size every buffer for max_len).
    const bool target = attention_ || !decoder_.empty();
    limits.max_tgt_len = requested.max_tgt_len ? requested.max_tgt_len : target ? shape_.max_len : limits.max_src_len;
    adopt(*w, limits);
    w->max_src = limits.max_src_len;
    w->max_tgt = limits.max_tgt_len;
    BufferPlan p;
    plan(*w, p);
    if (p.too_large()) return workspace_too_large(limits);
    w->bytes = p.total_floats() * sizeof(float);
    if (!allocate) return std::unique_ptr<WorkspaceImpl>(std::move(w));
    SF_RETURN_IF_ERROR(p.allocate());
    const size_t B = limits.max_batch, n_dec = decoder_.size();
    if (n_dec) {
        w->tokens.assign(B * w->max_tgt, 0);
        w->memory_padding.assign(B * w->max_src, 0);
        w->cross.resize(n_dec);
        w->decoding.size_vectors(B);
    }
    w->encoder_maps.assign(encoder_.size() + (attention_ ? 1 : 0), AttentionMap{});
    w->decoder_self_maps.assign(n_dec, AttentionMap{});
    w->decoder_cross_maps.assign(n_dec, AttentionMap{});
    return std::unique_ptr<WorkspaceImpl>(std::move(w));
}

}  // namespace simdformer::detail
