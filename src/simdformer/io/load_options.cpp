#include <nlohmann/json.hpp>

#include "simdformer/io.h"
#include "simdformer/io/json_limits.h"
#include "simdformer/io/json_text.h"

namespace simdformer {

Status parse_load_options(const std::string& text, LoadOptions* options) {
    if (text.empty()) return Status::ok();
    SF_RETURN_IF_ERROR(check_json_limits(text, "load options"));
    ParsedJson parsed;
    parse_json(text, &parsed);
    const nlohmann::json& j = parsed.value;
    if (j.is_discarded() || !j.is_object()) return Status::invalid("load options are not a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "weights") {
            if (!it->is_string()) return Status::invalid("load option \"weights\" must be a string");
            const std::string w = it->get<std::string>();
            if (w != "f32" && w != "int8")
                return Status::invalid(cat({"load option \"weights\" = \"", w, "\" is not one of f32, int8"}));
            options->weights = w == "int8" ? WeightFormat::kInt8 : WeightFormat::kF32;
        } else if (it.key() == "chunkBytes") {
            if (!it->is_number_unsigned() || it->get<uint64_t>() < 64 || it->get<uint64_t>() > (uint64_t{1} << 30))
                return Status::invalid(cat({"load option \"chunkBytes\" must be an integer in [64, 2^30], not ", json_text(*it)}));
            options->chunk_bytes = size_t(it->get<uint64_t>());
        } else {
            return Status::invalid(cat({"unknown load option \"", it.key(), "\" (known: weights, chunkBytes)"}));
        }
    }
    return Status::ok();
}

}  // namespace simdformer
