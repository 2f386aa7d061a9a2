// Model::info_json: the family's normalized config keys, then what every model reports.
#include <cstdlib>

#include "simdformer/io/json_limits.h"
#include "simdformer/io/json_text.h"
#include "simdformer/io/number_text.h"
#include "simdformer/model/info_json.h"
#include "simdformer/model/model_state.h"

namespace simdformer {
namespace detail {

nlohmann::json info_token_id(int64_t id) { return id < 0 ? nlohmann::json(nullptr) : nlohmann::json(id); }

double shortest_float(float f) { return std::strtod(float_text(f).c_str(), nullptr); }

nlohmann::json parse_config_object(const std::string& text) {
    // The loader's parser (io/json_limits.h), not json::parse: that one is a second instantiation
    // of nlohmann's parser (over std::string iterators, with the callback DOM builder), ~17 KB of
    // wasm for this one call. The text passed check_json_limits when the model was loaded.
    ParsedJson parsed;
    parse_json(text, &parsed);
    if (parsed.value.is_discarded()) return nlohmann::json::object();
    return std::move(parsed.value);
}

}  // namespace detail

std::string Model::info_json() const {
    const detail::ModelImpl& m = *impl_;
    nlohmann::json info = m.runner->info();
    info["parameters"] = m.runner->parameters();
    info["dtype"] = m.stored_dtype.empty() ? "F32" : m.stored_dtype;
    info["weights"] = m.int8_weights ? "int8" : "f32";
    if (!info.contains("unused_tensors")) info["unused_tensors"] = nlohmann::json::array();
    if (!info.contains("config")) info["config"] = detail::parse_config_object(m.config_text);
    return json_text(info);
}

}  // namespace simdformer
