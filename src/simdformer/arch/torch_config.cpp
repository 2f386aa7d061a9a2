// The torch adapter's config normaliser: the nn.Transformer dialect's JSON (PyTorch's
// constructor argument names, plus simdformer's token fields) -> ModelConfig.
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "simdformer/config.h"
#include "simdformer/io/json_limits.h"
#include "simdformer/io/json_object.h"
#include "simdformer/io/json_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

// Keys PyTorch's constructors accept that do not change inference (or that simdformer fixes).
const std::set<std::string>& ignored_keys() {
    static const std::set<std::string> keys = {"dropout", "batch_first", "device", "dtype", "custom_encoder",
                                               "custom_decoder", "enable_nested_tensor", "name", "description"};
    return keys;
}

// Sizes are checked against this before they become size_t (32 bits in wasm, where 2^32 + 1
// would become 1); validate() then applies each field's own, smaller limit.
constexpr uint64_t kMaxConfigSize = uint64_t{1} << 30;

Status read_size(const json& j, const char* key, size_t* out) {
    auto it = j.find(key);
    if (it == j.end()) return Status::ok();
    if (!it->is_number_unsigned() || it->get<uint64_t>() > kMaxConfigSize)
        return Status::invalid(cat({std::string("\""), key, "\" must be an integer in [0, ", kMaxConfigSize,
                                    "], not ", json_text(*it)}));
    *out = size_t(it->get<uint64_t>());
    return Status::ok();
}

Status read_int(const json& j, const char* key, int64_t* out) {
    auto it = j.find(key);
    if (it == j.end()) return Status::ok();
    if (!it->is_number_integer()) return Status::invalid(cat({std::string("\""), key, "\" must be an integer"}));
    *out = it->get<int64_t>();
    return Status::ok();
}

Status read_bool(const json& j, const char* key, bool* out) {
    auto it = j.find(key);
    if (it == j.end()) return Status::ok();
    if (!it->is_boolean()) return Status::invalid(cat({std::string("\""), key, "\" must be true or false"}));
    *out = it->get<bool>();
    return Status::ok();
}

Status read_string(const json& j, const char* key, std::string* out) {
    auto it = j.find(key);
    if (it == j.end()) return Status::ok();
    if (!it->is_string()) return Status::invalid(cat({std::string("\""), key, "\" must be a string"}));
    *out = it->get<std::string>();
    return Status::ok();
}

// One name table per enum, read in both directions (parsing and printing).
template <class E>
struct Named {
    const char* name;
    E value;
};

const Named<TorchModule> kKinds[] = {
    {"multihead_attention", TorchModule::kMultiheadAttention}, {"encoder_layer", TorchModule::kEncoderLayer},
    {"encoder", TorchModule::kEncoder},                        {"decoder_layer", TorchModule::kDecoderLayer},
    {"decoder", TorchModule::kDecoder},                        {"transformer", TorchModule::kTransformer}};
// The dialect's activations; kNone, kTanh and kSilu are internal and only printed.
const Named<Activation> kActivations[] = {
    {"relu", Activation::kRelu}, {"gelu", Activation::kGeluErf}, {"gelu_tanh", Activation::kGeluTanh},
    {"none", Activation::kNone}, {"tanh", Activation::kTanh},          {"silu", Activation::kSilu}};
constexpr size_t kParsedActivations = 3;
const Named<PositionalKind> kPositionals[] = {
    {"none", PositionalKind::kNone}, {"sinusoidal", PositionalKind::kSinusoidal}, {"learned", PositionalKind::kLearned}};

template <class E, size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
    for (const Named<E>& e : table)
        if (e.value == value) return e.name;
    return "?";
}

// `s` as a value of the first `count` entries of `table`, or an error listing them.
template <class E, size_t N>
Status parse_named(const Named<E> (&table)[N], const char* key, const std::string& s, E* out, size_t count = N) {
    std::string names;
    for (size_t i = 0; i < count; ++i) {
        if (s == table[i].name) {
            *out = table[i].value;
            return Status::ok();
        }
        names += (i ? ", " : "") + std::string(table[i].name);
    }
    return Status::invalid(cat({std::string("\""), key, "\" '", s, "' is not one of ", names}));
}

}  // namespace

std::string torch_module_name(TorchModule kind) { return name_of(kKinds, kind); }

std::string activation_name(Activation act) { return name_of(kActivations, act); }

std::string model_config_to_json(const ModelConfig& c) {
    json j = json_object({{"model_type", torch_module_name(c.kind)},
              {"d_model", c.d_model},
              {"nhead", c.nhead},
              {"dim_feedforward", c.dim_feedforward},
              {"activation", activation_name(c.activation)},
              {"norm_first", c.norm_first},
              {"layer_norm_eps", c.layer_norm_eps},
              {"num_encoder_layers", c.num_encoder_layers},
              {"num_decoder_layers", c.num_decoder_layers},
              {"additive_dim", c.additive_dim},
              {"src_vocab_size", c.src_vocab_size},
              {"tgt_vocab_size", c.tgt_vocab_size},
              {"max_len", c.max_len},
              {"positional", name_of(kPositionals, c.positional)},
              {"scale_embedding", c.scale_embedding},
              {"bos_token", c.bos_token},
              {"eos_token", c.eos_token}});
    return json_text(j);
}

bool ModelConfig::has_encoder() const {
    return kind == TorchModule::kEncoderLayer || kind == TorchModule::kEncoder || kind == TorchModule::kTransformer;
}

bool ModelConfig::has_decoder() const {
    return kind == TorchModule::kDecoderLayer || kind == TorchModule::kDecoder || kind == TorchModule::kTransformer;
}

Status ModelConfig::validate() const {
    if (d_model == 0) return Status::invalid("d_model must be positive");
    if (nhead == 0) return Status::invalid("nhead must be positive");
    // An explicit head_dim (rotary decoders) makes the attention nhead * head_dim wide, whatever d_model is.
    if (head_dim == 0 && d_model % nhead != 0)
        return Status::invalid(cat({"d_model=", d_model, " is not divisible by nhead=", nhead}));
    if (kv_heads() > nhead || nhead % kv_heads() != 0)
        return Status::invalid(cat({"num_key_value_heads=", kv_heads(),
                                    " must divide num_attention_heads=", nhead}));
    if (head_dim > 65536 || nhead > 65536 || q_width() > 1u << 20)
        return Status::invalid(cat({"nhead=", nhead, " x head_dim=", d_head(), " is too wide"}));
    if (d_model > 65536) return Status::invalid(cat({"d_model=", d_model, " exceeds 65536"}));
    if (kind != TorchModule::kMultiheadAttention && dim_feedforward == 0)
        return Status::invalid("dim_feedforward must be positive");
    if (dim_feedforward > 1u << 20) return Status::invalid(cat({"dim_feedforward=", dim_feedforward, " exceeds 1048576"}));
    if (!(layer_norm_eps > 0.0f) || !std::isfinite(layer_norm_eps)) return Status::invalid("layer_norm_eps must be a positive number");
    if (max_len == 0 || max_len > 1u << 16) return Status::invalid(cat({"max_len=", max_len, " must be in [1, 65536]"}));
    if (additive_dim > 65536) return Status::invalid("additive_dim exceeds 65536");
    if (num_encoder_layers > 1024 || num_decoder_layers > 1024) return Status::invalid("more than 1024 layers");
    if (kind == TorchModule::kEncoder && num_encoder_layers == 0)
        return Status::invalid("an encoder needs num_encoder_layers >= 1");
    if (kind == TorchModule::kDecoder && num_decoder_layers == 0)
        return Status::invalid("a decoder needs num_decoder_layers >= 1");
    if (kind == TorchModule::kTransformer && (num_encoder_layers == 0 || num_decoder_layers == 0))
        return Status::invalid("a transformer needs num_encoder_layers >= 1 and num_decoder_layers >= 1");
    if (src_vocab_size > (1u << 24) || tgt_vocab_size > (1u << 24)) return Status::invalid("vocabulary larger than 16M entries");
    if (src_vocab_size && !has_encoder())
        return Status::invalid("src_vocab_size is only meaningful for models with an encoder");
    if (tgt_vocab_size && !has_decoder())
        return Status::invalid("tgt_vocab_size is only meaningful for models with a decoder");
    if (positional != PositionalKind::kNone && !src_vocab_size && !tgt_vocab_size)
        return Status::invalid("positional encodings need token embeddings (src_vocab_size or tgt_vocab_size)");
    if (tgt_vocab_size) {
        if (bos_token >= int64_t(tgt_vocab_size)) return Status::invalid("bos_token is outside the target vocabulary");
        if (eos_token >= int64_t(tgt_vocab_size)) return Status::invalid("eos_token is outside the target vocabulary");
    }
    return Status::ok();
}

namespace {

// Every key is one the dialect knows (or one that exporters add and that is ignored).
Status check_known_keys(const json& j) {
    static const std::set<std::string> known = {
        "model_type", "d_model", "embed_dim", "nhead", "num_heads", "dim_feedforward", "activation", "norm_first",
        "layer_norm_eps", "num_encoder_layers", "num_decoder_layers", "num_layers", "additive_dim",
        "src_vocab_size", "tgt_vocab_size", "vocab_size", "max_len", "positional", "scale_embedding",
        "bos_token", "eos_token"};
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& key = it.key();
        // Constructor flags that change what is computed: add_zero_attn appends a zero key and value
        // to every sequence (no tensor tells), add_bias_kv learned ones, bias=False drops every bias.
        // Only PyTorch's defaults (bias true, the other two false) are computed here, so another
        // value is refused by name, never ignored.
        if (key == "bias" || key == "add_bias_kv" || key == "add_zero_attn") {
            if (!it->is_boolean() || it->get<bool>() != (key == "bias"))
                return Status::unsupported(cat({"\"", key, "\" = ", json_text(*it), " is not supported"}));
        } else if (!known.count(key) && !ignored_keys().count(key)) {
            return Status::invalid(cat({"config has an unknown key \"", key, "\""}));
        }
    }
    return Status::ok();
}

// The token side: vocabularies (one shared vocab_size, or src/tgt), positions and special tokens.
Status read_tokens(const json& j, ModelConfig* c) {
    size_t vocab = 0;
    SF_RETURN_IF_ERROR(read_size(j, "vocab_size", &vocab));  // one shared vocabulary
    if (vocab) {
        if (c->has_encoder()) c->src_vocab_size = vocab;
        if (c->kind == TorchModule::kTransformer || c->kind == TorchModule::kDecoder || c->kind == TorchModule::kDecoderLayer)
            c->tgt_vocab_size = vocab;
    }
    SF_RETURN_IF_ERROR(read_size(j, "src_vocab_size", &c->src_vocab_size));
    SF_RETURN_IF_ERROR(read_size(j, "tgt_vocab_size", &c->tgt_vocab_size));
    SF_RETURN_IF_ERROR(read_size(j, "max_len", &c->max_len));
    if (c->src_vocab_size || c->tgt_vocab_size) c->positional = PositionalKind::kSinusoidal;
    std::string positional;
    SF_RETURN_IF_ERROR(read_string(j, "positional", &positional));
    if (!positional.empty()) SF_RETURN_IF_ERROR(parse_named(kPositionals, "positional", positional, &c->positional));
    SF_RETURN_IF_ERROR(read_bool(j, "scale_embedding", &c->scale_embedding));
    SF_RETURN_IF_ERROR(read_int(j, "bos_token", &c->bos_token));
    return read_int(j, "eos_token", &c->eos_token);
}

}  // namespace

Result<ModelConfig> parse_model_config(const std::string& text) {
    SF_RETURN_IF_ERROR(check_json_limits(text, "config"));
    ParsedJson parsed;
    parse_json(text, &parsed);
    const json& j = parsed.value;
    if (j.is_discarded()) return Status::invalid("config is not valid JSON");
    if (!j.is_object()) return Status::invalid("config is not a JSON object");

    SF_RETURN_IF_ERROR(check_known_keys(j));
    ModelConfig c;
    std::string kind = "encoder", activation = "relu";
    SF_RETURN_IF_ERROR(read_string(j, "model_type", &kind));
    SF_RETURN_IF_ERROR(parse_named(kKinds, "model_type", kind, &c.kind));
    // nn.MultiheadAttention names its arguments embed_dim / num_heads.
    SF_RETURN_IF_ERROR(read_size(j, "embed_dim", &c.d_model));
    SF_RETURN_IF_ERROR(read_size(j, "d_model", &c.d_model));
    SF_RETURN_IF_ERROR(read_size(j, "num_heads", &c.nhead));
    SF_RETURN_IF_ERROR(read_size(j, "nhead", &c.nhead));
    SF_RETURN_IF_ERROR(read_size(j, "dim_feedforward", &c.dim_feedforward));
    SF_RETURN_IF_ERROR(read_string(j, "activation", &activation));
    SF_RETURN_IF_ERROR(parse_named(kActivations, "activation", activation, &c.activation, kParsedActivations));
    SF_RETURN_IF_ERROR(read_bool(j, "norm_first", &c.norm_first));
    if (auto it = j.find("layer_norm_eps"); it != j.end()) {
        if (!it->is_number()) return Status::invalid("\"layer_norm_eps\" must be a number");
        c.layer_norm_eps = it->get<float>();
    }
    // nn.TransformerEncoder / nn.TransformerDecoder call it num_layers.
    size_t num_layers = 0;
    SF_RETURN_IF_ERROR(read_size(j, "num_layers", &num_layers));
    if (c.kind == TorchModule::kEncoder) c.num_encoder_layers = num_layers;
    if (c.kind == TorchModule::kDecoder) c.num_decoder_layers = num_layers;
    SF_RETURN_IF_ERROR(read_size(j, "num_encoder_layers", &c.num_encoder_layers));
    SF_RETURN_IF_ERROR(read_size(j, "num_decoder_layers", &c.num_decoder_layers));
    if (c.kind == TorchModule::kEncoderLayer) c.num_encoder_layers = 1;
    if (c.kind == TorchModule::kDecoderLayer) c.num_decoder_layers = 1;
    if (c.kind == TorchModule::kMultiheadAttention) c.num_encoder_layers = c.num_decoder_layers = 0;
    SF_RETURN_IF_ERROR(read_size(j, "additive_dim", &c.additive_dim));

    SF_RETURN_IF_ERROR(read_tokens(j, &c));
    SF_RETURN_IF_ERROR(c.validate());
    return c;
}

}  // namespace simdformer
