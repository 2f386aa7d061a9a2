// The rotary decoders (Hugging Face modeling_llama.py, modeling_qwen2.py, modeling_mistral.py,
// modeling_rope_utils.py): LlamaForCausalLM (SmolLM/SmolLM2, TinyLlama, Llama 3.x),
// Qwen2ForCausalLM (Qwen2/2.5), MistralForCausalLM and MinistralForCausalLM, with the `model.` prefix of the
// ...ForCausalLM classes or without it (the bare ...Model).
//
// A layer is pre-norm: x = x + o_proj(attn(input_layernorm(x))); x = x + mlp(post_attention_
// layernorm(x)); model.norm follows the last one. Every projection is an nn.Linear ([out, in]);
// the norms are RMSNorms (weight only). The three differ only in what the table below says:
// their config defaults, which projections have biases, and how a sliding window is chosen.
#include <algorithm>
#include <cmath>

#include "simdformer/arch/adapter.h"
#include "simdformer/io/json_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

constexpr size_t kMaxDim = 65536, kMaxLayers = 1024, kMaxVocab = size_t{1} << 24, kMaxFf = size_t{1} << 20;
constexpr size_t kMaxHeads = 4096;
// The longest sequence a workspace is planned for (ModelConfig::validate); checkpoints may say more
// (Llama 3.2: 131072), and their rotary frequencies still use what they say.
constexpr size_t kMaxSequence = 65536;

enum class WindowRule {
    kNone,           // Llama: full causal attention everywhere
    kEveryLayer,     // Mistral: sliding_window (null = none) in every layer, unless layer_types lists them
    kFromMaxWindow,  // Qwen2: only when use_sliding_window, in layers >= max_window_layers (or as listed)
};

// What the three architectures' configs and modules differ in (their Config classes' defaults).
struct RotaryDialect {
    Architecture architecture;
    const char* model_type;
    size_t vocab, hidden, intermediate, layers, heads;
    size_t kv_heads;  // 0: num_attention_heads
    size_t max_positions;
    int64_t bos, eos;  // -1: None
    bool qkv_bias;     // Qwen2: q, k and v projections always have biases (o_proj never)
    bool bias_keys;    // Llama: attention_bias (q, k, v, o) and mlp_bias are config keys
    WindowRule window;
};

const RotaryDialect kLlama{Architecture::kLlama, "llama", 32000, 4096, 11008, 32, 32, 0, 2048, 1, 2, false, true,
                           WindowRule::kNone};
const RotaryDialect kQwen2{Architecture::kQwen2, "qwen2", 151936, 4096, 22016, 32, 32, 32, 32768, -1, -1, true, false,
                           WindowRule::kFromMaxWindow};
const RotaryDialect kMistral{Architecture::kMistral, "mistral", 32000, 4096, 14336, 32, 32, 8, 4096 * 32, 1, 2, false,
                             false, WindowRule::kEveryLayer};
// Ministral (modular_ministral.py: MinistralConfig is MistralConfig's defaults plus layer_types; the
// modules are Qwen2's with q/k/v biases removed, so no bias anywhere, as Mistral): absent
// layer_types is every layer sliding_attention when sliding_window is not None, else all full,
// which is Mistral's rule. The forward pass is the Mistral one with layer_types: the same row.
const RotaryDialect kMinistral{Architecture::kMinistral, "ministral", 32000, 4096, 14336, 32, 32, 8, 4096 * 32, 1, 2,
                               false, false, WindowRule::kEveryLayer};

std::string quoted(const std::string& name) { return "config \"" + name + "\""; }

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A number of rope_scaling: finite and positive.
Status rope_number(const json& scaling, const char* key, double* out) {
    auto it = scaling.find(key);
    if (it == scaling.end()) return Status::invalid(quoted("rope_scaling") + " needs \"" + key + "\" for its type");
    if (!it->is_number() || !std::isfinite(it->get<double>()) || !(it->get<double>() > 0))
        return Status::invalid(quoted(std::string("rope_scaling.") + key) + " must be a positive number, not " + json_text(*it));
    *out = it->get<double>();
    return Status::ok();
}

// The rotary parameters as Hugging Face reads them. transformers 4.x writes "rope_theta" and
// "rope_scaling" (null, or an object whose "rope_type", or the older "type", is the scaling);
// transformers 5 writes one "rope_parameters" object holding rope_theta and the scaling's
// parameters (its rope_type absent means default), and reads a non-empty rope_scaling in its
// place when a config has one. A theta given both inside and outside that object must agree; the
// per-layer-type form (objects under "full_attention" / "sliding_attention") is read when every
// layer type has the same parameters and refused when they differ.
Status read_rope_scaling(const HfConfig& c, TextConfig* t) {
    RopeConfig& rope = t->rope;
    rope.scaling = RopeScaling::kDefault;
    t->rope_type = "default";
    const json& config = c.json();
    auto it = config.find("rope_scaling");
    const char* key = "rope_scaling";
    if (it != config.end() && !it->is_null() && !it->is_object())
        return Status::invalid(quoted(key) + " must be an object or null, not " + json_text(*it));
    if (it == config.end() || it->is_null() || it->empty()) {
        it = config.find("rope_parameters");
        key = "rope_parameters";
        if (it == config.end() || it->is_null()) return Status::ok();
        if (!it->is_object()) return Status::invalid(quoted(key) + " must be an object or null, not " + json_text(*it));
    }
    const json* per_type = nullptr;  // the first layer type's object, when given per layer type
    if (std::any_of(it->begin(), it->end(), [](const json& v) { return v.is_object(); })) {
        // Per layer type ({"full_attention": {...}, "sliding_attention": {...}}, as some
        // transformers 5 Ministral / Mistral configs write it): every type must hold the same
        // parameters, which are then the one rotary config all layers use; different ones would
        // need a rotary table per layer type, which is not built, so they are refused by name.
        per_type = &it->begin().value();
        std::string types;
        bool same = true;
        for (const auto& item : it->items()) {
            types += (types.empty() ? "" : ", ") + item.key();
            same = same && item.value().is_object() && item.value() == *per_type;
        }
        if (!same)
            return Status::unsupported(quoted(key) + " gives different parameters per layer type (" + types +
                                       "): not supported for " + t->model_type + " (one rotary config for all layers)");
    }
    const json& s = per_type != nullptr ? *per_type : *it;
    if (auto theta = s.find("rope_theta"); theta != s.end()) {
        if (!theta->is_number() || !std::isfinite(theta->get<double>()) || !(theta->get<double>() > 0) ||
            theta->get<double>() > 1e12)
            return Status::invalid(quoted(std::string(key) + ".rope_theta") + " must be a positive number, not " +
                                   json_text(*theta));
        auto outer = config.find("rope_theta");
        if (outer != config.end() && !(outer->is_number() && float(outer->get<double>()) == float(theta->get<double>())))
            return Status::invalid(quoted("rope_theta") + " = " + json_text(*outer) + " and " +
                                   quoted(std::string(key) + ".rope_theta") + " = " + json_text(*theta) + " disagree");
        rope.theta = float(theta->get<double>());
    }
    if (auto partial = s.find("partial_rotary_factor");
        partial != s.end() && !(partial->is_number() && partial->get<double>() == 1.0))
        return Status::unsupported(quoted(std::string(key) + ".partial_rotary_factor") + " = " + json_text(*partial) +
                                   " is not supported (rotary positions over the whole head only)");
    auto type = s.find("rope_type");
    if (type == s.end()) type = s.find("type");
    if (type == s.end() && std::string(key) == "rope_parameters") return Status::ok();  // transformers 5: default
    if (type == s.end() || !type->is_string())
        return Status::invalid(quoted(key) + " needs a string \"rope_type\" (or \"type\"): " + json_text(s));
    t->rope_type = type->get<std::string>();
    if (t->rope_type == "default") return Status::ok();
    if (t->rope_type == "linear") rope.scaling = RopeScaling::kLinear;
    else if (t->rope_type == "dynamic") rope.scaling = RopeScaling::kDynamic;
    else if (t->rope_type == "llama3") rope.scaling = RopeScaling::kLlama3;
    else
        return Status::unsupported(quoted(key) + " type \"" + t->rope_type +
                                   "\" is not supported (supported: default, linear, dynamic, llama3)");
    SF_RETURN_IF_ERROR(rope_number(s, "factor", &rope.factor));
    if (rope.scaling == RopeScaling::kLlama3) {
        SF_RETURN_IF_ERROR(rope_number(s, "low_freq_factor", &rope.low_freq_factor));
        SF_RETURN_IF_ERROR(rope_number(s, "high_freq_factor", &rope.high_freq_factor));
        double original = 0;
        SF_RETURN_IF_ERROR(rope_number(s, "original_max_position_embeddings", &original));
        if (original != std::floor(original) || original > double(size_t{1} << 24))
            return Status::invalid(quoted(std::string(key) + ".original_max_position_embeddings") + " must be an integer");
        rope.original_max_positions = size_t(original);
        if (!(rope.high_freq_factor > rope.low_freq_factor))
            return Status::invalid(quoted(key) + ": high_freq_factor must exceed low_freq_factor");
    }
    return Status::ok();
}

// The sizes, heads and rotary positions every dialect reads the same way.
Status read_shape(const HfConfig& c, const RotaryDialect& dialect, TextConfig* t) {
    SF_RETURN_IF_ERROR(c.size({"hidden_size"}, 1, kMaxDim, dialect.hidden, &t->d_model));
    SF_RETURN_IF_ERROR(c.size({"num_hidden_layers"}, 1, kMaxLayers, dialect.layers, &t->n_layers));
    SF_RETURN_IF_ERROR(c.size({"num_attention_heads"}, 1, kMaxHeads, dialect.heads, &t->n_heads));
    SF_RETURN_IF_ERROR(c.size({"intermediate_size"}, 1, kMaxFf, dialect.intermediate, &t->d_ff));
    SF_RETURN_IF_ERROR(c.size({"vocab_size"}, 1, kMaxVocab, dialect.vocab, &t->vocab_size));
    SF_RETURN_IF_ERROR(c.size({"max_position_embeddings"}, 1, size_t{1} << 24, dialect.max_positions,
                              &t->max_position_embeddings));
    // num_key_value_heads: null or absent means num_attention_heads (multi-head attention).
    const auto kv = c.json().find("num_key_value_heads");
    if (kv == c.json().end() || kv->is_null()) t->n_kv_heads = dialect.kv_heads ? dialect.kv_heads : t->n_heads;
    else SF_RETURN_IF_ERROR(c.size({"num_key_value_heads"}, 1, kMaxHeads, 0, &t->n_kv_heads));
    if (t->n_kv_heads > t->n_heads || t->n_heads % t->n_kv_heads != 0)
        return Status::invalid(quoted("num_key_value_heads") + " = " + std::to_string(t->n_kv_heads) +
                               " must divide \"num_attention_heads\" = " + std::to_string(t->n_heads));
    // head_dim: null or absent means hidden_size // num_attention_heads (floor, as HF; the
    // projections' shapes then tell whether the checkpoint agrees).
    const auto hd = c.json().find("head_dim");
    if (hd == c.json().end() || hd->is_null()) t->head_dim = t->d_model / t->n_heads;
    else SF_RETURN_IF_ERROR(c.size({"head_dim"}, 2, kMaxRotaryDim, 0, &t->head_dim));
    if (t->head_dim == 0 || t->head_dim % 2 != 0 || t->head_dim > kMaxRotaryDim)
        return Status::invalid("head_dim " + std::to_string(t->head_dim) + " must be even and in [2, " +
                               std::to_string(kMaxRotaryDim) + "] for rotary positions");
    float theta = 10000.0f;
    SF_RETURN_IF_ERROR(c.positive_number("rope_theta", 1e12, 10000.0f, &theta));
    t->rope.theta = theta;
    t->rope.dim = t->head_dim;
    t->rope.original_max_positions = t->max_position_embeddings;  // dynamic's threshold
    SF_RETURN_IF_ERROR(read_rope_scaling(c, t));
    const auto partial = c.json().find("partial_rotary_factor");
    if (partial != c.json().end() && !(partial->is_number() && partial->get<double>() == 1.0))
        return Status::unsupported(quoted("partial_rotary_factor") + " = " + json_text(*partial) +
                                   " is not supported (rotary positions over the whole head only)");
    return Status::ok();
}

// "layer_types" (one "full_attention" / "sliding_attention" per layer), when the config lists
// them, decides which layers slide; a sliding layer needs a window (Hugging Face's sliding-window
// mask raises without one). Absent or null: *listed false, and the caller's rule applies.
Status read_layer_types(const HfConfig& c, size_t window, TextConfig* t, bool* listed) {
    const auto types = c.json().find("layer_types");
    *listed = types != c.json().end() && !types->is_null();
    if (!*listed) return Status::ok();
    if (!types->is_array() || types->size() != t->n_layers)
        return Status::invalid(quoted("layer_types") + " must list one type per layer (" + std::to_string(t->n_layers) +
                               "), not " + json_text(*types));
    std::vector<bool> sliding;
    for (const json& type : *types) {
        const bool full = type == "full_attention", slides = type == "sliding_attention";
        if (!full && !slides)
            return Status::unsupported(quoted("layer_types") + " entry " + json_text(type) +
                                       " is not supported (full_attention, sliding_attention)");
        if (slides && window == 0)
            return Status::invalid(quoted("layer_types") +
                                   " has sliding_attention layers but there is no sliding window "
                                   "(use_sliding_window false or sliding_window null)");
        sliding.push_back(slides);
    }
    const auto first = std::find(sliding.begin(), sliding.end(), true);
    if (first == sliding.end()) return Status::ok();  // every layer full
    t->first_window_layer = size_t(first - sliding.begin());
    t->window_layers = std::move(sliding);
    t->sliding_window = window;
    return Status::ok();
}

// sliding_window: absent means the Config class's 4096, null means none. Mistral windows every
// layer; Qwen2 only with use_sliding_window (its config sets sliding_window to None otherwise),
// and then the layers from max_window_layers on. Both follow "layer_types" when the config lists
// them: Qwen2Config reads it (transformers >= 4.53); a Mistral config with layer_types is what
// AutoConfig loads as a Ministral one (MistralConfig alone ignores the list with a warning, but
// from_pretrained through the Auto classes and pipelines switches to Ministral), whose
// full_attention layers do not slide.
Status read_window(const HfConfig& c, const RotaryDialect& dialect, TextConfig* t) {
    if (dialect.window == WindowRule::kNone) return Status::ok();
    size_t window = 4096;
    const auto w = c.json().find("sliding_window");
    if (w != c.json().end() && w->is_null()) window = 0;
    else SF_RETURN_IF_ERROR(c.size({"sliding_window"}, 1, size_t{1} << 24, 4096, &window));
    if (dialect.window == WindowRule::kFromMaxWindow) {
        bool use = false;
        SF_RETURN_IF_ERROR(c.boolean("use_sliding_window", false, &use));
        if (!use) window = 0;
    }
    bool listed = false;
    SF_RETURN_IF_ERROR(read_layer_types(c, window, t, &listed));
    if (listed || window == 0) return Status::ok();
    if (dialect.window == WindowRule::kFromMaxWindow)
        SF_RETURN_IF_ERROR(c.size({"max_window_layers"}, 0, kMaxLayers, 28, &t->first_window_layer));
    t->sliding_window = window;
    return Status::ok();
}

class RotaryAdapter : public HfTextAdapter {
public:
    explicit RotaryAdapter(const RotaryDialect& dialect) : dialect_(dialect) {}

    Result<TextConfig> normalize(const HfConfig& c) const override {
        TextConfig t;
        t.architecture = dialect_.architecture;
        SF_RETURN_IF_ERROR(c.string("model_type", dialect_.model_type, &t.model_type));
        SF_RETURN_IF_ERROR(read_shape(c, dialect_, &t));
        SF_RETURN_IF_ERROR(c.activation({"hidden_act"}, "silu", &t.hidden_act, &t.activation));
        SF_RETURN_IF_ERROR(c.positive_number("rms_norm_eps", 1.0, 1e-6f, &t.layer_norm_eps));
        SF_RETURN_IF_ERROR(c.boolean("tie_word_embeddings", false, &t.tie_word_embeddings));
        SF_RETURN_IF_ERROR(c.string("torch_dtype", "", &t.torch_dtype));
        if (dialect_.bias_keys) {
            SF_RETURN_IF_ERROR(c.boolean("attention_bias", false, &t.attention_bias));
            SF_RETURN_IF_ERROR(c.boolean("mlp_bias", false, &t.mlp_bias));
        }
        SF_RETURN_IF_ERROR(read_window(c, dialect_, &t));
        // bos / eos / pad only seed generation's defaults and batch padding, never the forward pass.
        const auto known = [&](int64_t id) { return id >= 0 && size_t(id) < t.vocab_size ? id : -1; };
        SF_RETURN_IF_ERROR(c.generation_token_id("bos_token_id", t.vocab_size, known(dialect_.bos), &t.bos_token_id,
                                                 &t.unused_token_ids));
        SF_RETURN_IF_ERROR(c.generation_token_ids("eos_token_id", t.vocab_size, known(dialect_.eos), &t.eos_token_id,
                                                  &t.eos_token_ids, &t.unused_token_ids));
        SF_RETURN_IF_ERROR(c.generation_token_id("pad_token_id", t.vocab_size, -1, &t.pad_token_id, &t.unused_token_ids));
        // Accepted as they are: pretraining_tp (slices of the same products), attention_dropout,
        // initializer_range, use_cache.
        t.type_vocab_size = 0;
        // Rotary positions have no table to run out of: dynamic scaling exists to run past
        // max_position_embeddings (HF accepts any length), up to factor times it here.
        size_t positions = t.max_position_embeddings;
        if (t.rope.scaling == RopeScaling::kDynamic)
            positions = size_t(std::min(double(kMaxSequence), double(positions) * t.rope.factor));
        t.max_positions = std::min(positions, kMaxSequence);
        t.causal = true;
        t.pre_norm = true;
        t.rotary = true;
        t.rms_norm = true;
        t.gated_feed_forward = true;
        t.masks_by_fill = true;
        return t;
    }

    Result<TextModelRef> names(const TextConfig& t, const WeightReader& checkpoint) const override {
        TextModelRef ref;
        SF_ASSIGN_OR_RETURN(const std::string base, detect_prefix(checkpoint, "model.", "embed_tokens.weight"));
        ref.embeddings.word = base + "embed_tokens.weight";  // no position table, no norm
        const bool qkv_bias = dialect_.qkv_bias || t.attention_bias;
        for (size_t i = 0; i < t.n_layers; ++i) {
            const std::string l = base + "layers." + std::to_string(i) + ".";
            EncoderLayerRef layer;
            layer.norm1 = NormRef{l + "input_layernorm.weight", "", true};
            layer.attention.q = linear(l + "self_attn.q_proj.", qkv_bias);
            layer.attention.k = linear(l + "self_attn.k_proj.", qkv_bias);
            layer.attention.v = linear(l + "self_attn.v_proj.", qkv_bias);
            layer.attention.out = linear(l + "self_attn.o_proj.", t.attention_bias);
            layer.norm2 = NormRef{l + "post_attention_layernorm.weight", "", true};
            layer.feed_forward.gate = linear(l + "mlp.gate_proj.", t.mlp_bias);
            layer.feed_forward.in = linear(l + "mlp.up_proj.", t.mlp_bias);
            layer.feed_forward.out = linear(l + "mlp.down_proj.", t.mlp_bias);
            layer.sliding_window = t.layer_slides(i);
            // The rotary frequencies of older checkpoints: computed from the config, not loaded.
            ignore_if_present(checkpoint, l + "self_attn.rotary_emb.inv_freq", &ref);
            ref.layers.push_back(std::move(layer));
        }
        ignore_if_present(checkpoint, base + "rotary_emb.inv_freq", &ref);
        ref.has_final_norm = true;
        ref.final_norm = NormRef{base + "norm.weight", "", true};
        // The LM head: its own lm_head.weight [vocab, d] unless the config ties it to embed_tokens.
        // A bare LlamaModel (no "model." prefix, architectures not ...ForCausalLM) saved without
        // it has none: it gives hidden states and attention, and refuses to generate.
        ref.has_lm_head = true;
        if (t.tie_word_embeddings) {
            ignore_if_present(checkpoint, "lm_head.weight", &ref);
        } else if (base.empty() && !checkpoint.has("lm_head.weight") && !ends_with(t.head_class, "ForCausalLM")) {
            ref.has_lm_head = false;
        } else {
            ref.lm_head_weight = "lm_head.weight";
        }
        return ref;
    }

private:
    static LinearRef linear(const std::string& prefix, bool bias) {
        return LinearRef{prefix + "weight", bias ? prefix + "bias" : ""};
    }

    const RotaryDialect& dialect_;
};

}  // namespace

const Adapter& llama_adapter() {
    static const RotaryAdapter adapter(kLlama);
    return adapter;
}

const Adapter& qwen2_adapter() {
    static const RotaryAdapter adapter(kQwen2);
    return adapter;
}

const Adapter& mistral_adapter() {
    static const RotaryAdapter adapter(kMistral);
    return adapter;
}

const Adapter& ministral_adapter() {
    static const RotaryAdapter adapter(kMinistral);
    return adapter;
}

}  // namespace simdformer
