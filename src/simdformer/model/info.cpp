// Model::info_json: the family's normalized config keys, then what every model reports.
#include <cstdio>
#include <cstdlib>

#include "simdformer/model/info_json.h"
#include "simdformer/model/model_state.h"

namespace simdformer {
namespace detail {

nlohmann::json info_token_id(int64_t id) { return id < 0 ? nlohmann::json(nullptr) : nlohmann::json(id); }

double shortest_float(float f) {
    char text[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, double(f));
        if (std::strtof(text, nullptr) == f) break;
    }
    return std::strtod(text, nullptr);
}

nlohmann::json parse_config_object(const std::string& text) {
    nlohmann::json original = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return original.is_discarded() ? nlohmann::json::object() : original;
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
    return info.dump();
}

}  // namespace simdformer
