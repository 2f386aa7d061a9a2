// Model::info_json: the normalized config in one vocabulary for every architecture (the keys the
// JavaScript API and CLI show), plus the original config object.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "simdformer/model/model_impl.h"
#include "simdformer/io/json_object.h"

namespace simdformer {
namespace {

using nlohmann::json;

json token_id(int64_t id) { return id < 0 ? json(nullptr) : json(id); }

// The shortest decimal that reads back as the same float (1e-12f prints as 1e-12, not as the
// double 9.9999999600419720e-13 it widens to).
double shortest(float f) {
    char text[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, double(f));
        if (std::strtof(text, nullptr) == f) break;
    }
    return std::strtod(text, nullptr);
}

json text_info(const TextConfig& t) {
    return json_object({{"architecture", architecture_name(t.architecture)},
            {"model_type", t.model_type},
            {"d_model", t.d_model},
            {"n_layers", t.n_layers},
            {"n_heads", t.n_heads},
            {"d_ff", t.d_ff},
            {"vocab_size", t.vocab_size},
            {"max_positions", t.max_positions},
            {"type_vocab_size", t.type_vocab_size},
            {"pad_token_id", token_id(t.pad_token_id)},
            {"bos_token_id", token_id(t.bos_token_id)},
            {"eos_token_id", token_id(t.eos_token_id)},
            {"hidden_act", t.hidden_act},
            {"layer_norm_eps", shortest(t.layer_norm_eps)},
            {"causal", t.causal}});
}

json torch_info(const ModelConfig& c) {
    return json_object({{"architecture", "torch"},
            {"model_type", model_kind_name(c.kind)},
            {"d_model", c.d_model},
            {"n_layers", c.num_encoder_layers + c.num_decoder_layers},
            {"n_heads", c.nhead},
            {"d_ff", c.dim_feedforward},
            {"vocab_size", c.tgt_vocab_size ? c.tgt_vocab_size : c.src_vocab_size},
            {"max_positions", c.max_len},
            {"type_vocab_size", 0},
            {"pad_token_id", nullptr},
            {"bos_token_id", token_id(c.bos_token)},
            {"eos_token_id", token_id(c.eos_token)},
            {"hidden_act", activation_name(c.activation)},
            {"layer_norm_eps", shortest(c.layer_norm_eps)},
            {"causal", false}});
}

}  // namespace

std::string Model::info_json() const {
    const ModelImpl& m = *impl_;
    json info = m.text ? text_info(*m.text) : torch_info(m.config);
    info["has_pooler"] = m.pooler.has_value();
    info["has_mlm_head"] = m.mlm.has_value();
    info["has_lm_head"] = m.generator.has_value() || m.has_lm_head;
    info["parameters"] = m.parameters;
    info["dtype"] = m.stored_dtype.empty() ? "F32" : m.stored_dtype;
    info["weights"] = m.int8_weights ? "int8" : "f32";
    info["unused_tensors"] = m.unused_tensors;
    json original = json::parse(m.config_json.empty() ? model_config_to_json(m.config) : m.config_json, nullptr,
                                /*allow_exceptions=*/false);
    info["config"] = original.is_discarded() ? json::object() : original;
    return info.dump();
}

}  // namespace simdformer
