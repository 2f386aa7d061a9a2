// What the Hugging Face text families share, cold part: loading the stack from a spec, info_json's
// keys, the limits and the workspace plan (compiled for size in wasm: src/CMakeLists.txt).
#include "simdformer/io/json_object.h"
#include "simdformer/model/info_json.h"
#include "simdformer/model/text_stack.h"

namespace simdformer::detail {
namespace {

// The layer-stack shape of a text model, in the terms the layers and the workspace use.
ModelConfig stack_shape(const TextConfig& t) {
    ModelConfig c;
    c.kind = TorchModule::kEncoder;
    c.d_model = t.d_model;
    c.nhead = t.n_heads;
    c.dim_feedforward = t.d_ff;
    c.activation = t.activation;
    c.norm_first = t.pre_norm;  // BERT-family layers are post-norm, GPT-2's blocks pre-norm
    c.layer_norm_eps = t.layer_norm_eps;
    c.num_encoder_layers = t.n_layers;
    c.max_len = t.max_positions;
    c.n_kv_heads = t.n_kv_heads;
    c.head_dim = t.head_dim;
    c.gated_feed_forward = t.gated_feed_forward;
    c.rotary_positions = t.rotary;
    return c;
}

// Rotary models: {"theta", "type", "factor", ...} as the config gave them; null for the others.
nlohmann::json rotary_json(const TextConfig& t) {
    if (!t.rotary) return nullptr;
    nlohmann::json r = {{"theta", t.rope.theta}, {"type", t.rope_type}, {"dim", t.rope.dim}};
    if (t.rope.scaling != RopeScaling::kDefault) r["factor"] = t.rope.factor;
    if (t.rope.scaling == RopeScaling::kLlama3) {
        r["low_freq_factor"] = t.rope.low_freq_factor;
        r["high_freq_factor"] = t.rope.high_freq_factor;
        r["original_max_position_embeddings"] = t.rope.original_max_positions;
    }
    return r;
}

nlohmann::json eos_token_ids_json(const TextConfig& t) {
    nlohmann::json ids = nlohmann::json::array();
    if (!t.eos_token_ids.empty()) {
        for (int64_t id : t.eos_token_ids) ids.push_back(id);
    } else if (t.eos_token_id >= 0) {
        ids.push_back(t.eos_token_id);
    }
    return ids;
}

// {"bos_token_id": 50256, ...}: the special-token ids the config names outside the vocabulary.
nlohmann::json unused_token_ids_json(const TextConfig& t) {
    nlohmann::json ids = nlohmann::json::object();
    for (const auto& [name, value] : t.unused_token_ids) ids[name] = value;
    return ids;
}

// [1, 2, 3, 5, ...]: the layers with the sliding window (those layer_types lists as
// sliding_attention, else every one from first_window_layer on); null without a window.
nlohmann::json window_layers_json(const TextConfig& t) {
    if (!t.sliding_window) return nullptr;
    nlohmann::json layers = nlohmann::json::array();
    for (size_t i = 0; i < t.n_layers; ++i)
        if (t.layer_slides(i)) layers.push_back(i);
    return layers;
}

}  // namespace

WorkspaceLimits text_limits(const WorkspaceLimits& requested, const TextConfig& t) {
    WorkspaceLimits limits = requested;
    limits.max_src_len = requested.max_src_len ? requested.max_src_len : t.max_positions;
    limits.max_tgt_len = requested.max_tgt_len ? requested.max_tgt_len : limits.max_src_len;
    return limits;
}

std::vector<std::string> accept_unused(WeightReader& r, const TextModelRef& names) {
    for (const std::string& name : names.ignored) r.ignore(name);
    return r.unused();
}

Result<TextStack> TextStack::load(const TextSpec& spec, WeightReader& r, ModelConfig* shape) {
    const TextConfig& t = spec.config;
    const TextModelRef& ref = spec.names;
    *shape = stack_shape(t);
    SF_RETURN_IF_ERROR(shape->validate().with_context("config"));
    SF_ASSIGN_OR_RETURN(TextEmbeddings e, TextEmbeddings::load(r, ref.embeddings, t.vocab_size, t.d_model,
                                                                t.max_position_embeddings, t.type_vocab_size,
                                                                t.layer_norm_eps));
    TextStack s{t, std::move(e), {}, std::nullopt, std::nullopt};
    if (t.rotary) s.rotary = Rotary(t.rope);
    for (const EncoderLayerRef& layer_ref : ref.layers) {
        SF_ASSIGN_OR_RETURN(EncoderLayer layer, EncoderLayer::load(r, layer_ref, *shape));
        s.layers.push_back(std::move(layer));
    }
    if (ref.has_final_norm) {
        SF_ASSIGN_OR_RETURN(LayerNorm norm, LayerNorm::load(r, ref.final_norm, t.d_model, t.layer_norm_eps));
        s.final_norm = std::move(norm);
    }
    return s;
}

nlohmann::json TextStack::info() const {
    const TextConfig& t = config;
    return json_object({{"architecture", architecture_name(t.architecture)},
            {"model_type", t.model_type},
            {"d_model", t.d_model},
            {"n_layers", t.n_layers},
            {"n_heads", t.n_heads},
            {"d_ff", t.d_ff},
            {"vocab_size", t.vocab_size},
            {"max_positions", t.max_positions},
            {"type_vocab_size", t.type_vocab_size},
            {"pad_token_id", info_token_id(t.pad_token_id)},
            {"bos_token_id", info_token_id(t.bos_token_id)},
            {"eos_token_id", info_token_id(t.eos_token_id)},
            {"eos_token_ids", eos_token_ids_json(t)},
            {"hidden_act", t.hidden_act},
            {"layer_norm_eps", shortest_float(t.layer_norm_eps)},
            {"causal", t.causal},
            // Which key/value head query head h reads: h / (n_heads / n_kv_heads).
            {"n_kv_heads", t.n_kv_heads ? t.n_kv_heads : t.n_heads},
            {"head_dim", t.head_dim ? t.head_dim : t.d_model / t.n_heads},
            {"norm", t.rms_norm ? "rms_norm" : "layer_norm"},
            {"rotary", rotary_json(t)},
            {"sliding_window", t.sliding_window ? nlohmann::json(t.sliding_window) : nlohmann::json(nullptr)},
            // The first layer with the window; window_layers lists every one (layer_types may
            // alternate full and sliding layers, so layers after the first need not slide).
            {"first_window_layer", t.sliding_window ? nlohmann::json(t.first_window_layer) : nlohmann::json(nullptr)},
            {"window_layers", window_layers_json(t)},
            {"unused_token_ids", unused_token_ids_json(t)}});
}

void TextStack::plan(const ModelConfig& shape, size_t vocab, TextWorkspace& w, BufferPlan& p) const {
    const size_t B = w.limits.max_batch, L = w.max_len, d = shape.d_model, h = shape.nhead;
    const size_t R = vocab ? w.limits.max_logits_rows : 0, rows = p.product({B, L});
    w.layers.plan(shape, rows, L, p);
    p.add(&w.x, p.product({rows, d}), "workspace.x");
    p.add(&w.key_bias, rows, "workspace.key_bias");
    p.add(&w.head_in, p.product({R, d}), "workspace.head_in");
    const size_t half = rotary ? rotary->half() : 0;
    p.add(&w.rope_cos, p.product({rows, half}), "workspace.rope_cos");
    p.add(&w.rope_sin, p.product({rows, half}), "workspace.rope_sin");
    const size_t maps = p.product({layers.size(), B, h, L, L});
    p.add(&w.attention, w.limits.record_attention ? maps : 0, "workspace.attention");
}

void TextStack::size_vectors(TextWorkspace& w) const {
    w.position_ids.assign(w.limits.max_batch * w.max_len, 0);
    w.encoder_maps.assign(layers.size(), AttentionMap{});
}

}  // namespace simdformer::detail
