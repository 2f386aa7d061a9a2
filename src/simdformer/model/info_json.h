// Helpers of Model::info_json(): the same keys in one vocabulary for every family.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace simdformer::detail {

// A token id, or null for -1 (none).
nlohmann::json info_token_id(int64_t id);
// The shortest decimal that reads back as the same float (1e-12f prints as 1e-12, not as the
// double 9.9999999600419720e-13 it widens to).
double shortest_float(float f);
// The config as given, as a JSON object ({} when it does not parse).
nlohmann::json parse_config_object(const std::string& text);

}  // namespace simdformer::detail
