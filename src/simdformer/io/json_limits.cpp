#include "simdformer/io/json_limits.h"

#include <string>

namespace simdformer {

Status check_json_limits(std::string_view text, const char* what) {
    if (text.size() > kMaxJsonBytes)
        return Status::invalid(cat({what, ": ", text.size(), " bytes of JSON exceed the ",
                                    kMaxJsonBytes, "-byte limit"}));
    // One pass: brackets count outside strings only (a string may hold '[' or an escaped quote).
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return Status::invalid(cat({what, ": JSON nested deeper than ", kMaxJsonDepth,
                                            " levels"}));
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return Status::ok();
}

void release_json(nlohmann::json& j) noexcept {
    if (j.is_array()) {
        auto& items = j.get_ref<nlohmann::json::array_t&>();
        for (nlohmann::json& item : items) release_json(item);
        items.clear();
    } else if (j.is_object()) {
        auto& members = j.get_ref<nlohmann::json::object_t&>();
        for (auto& member : members) release_json(member.second);
        members.clear();
    }
}

void parse_json(std::string_view text, ParsedJson* out) {
    release_json(out->value);
    out->value = nlohmann::json();
    // The DOM builder json::parse uses, but writing into *out: json::parse keeps its result in a
    // local that an exception would destroy with nlohmann's allocating destructor.
    nlohmann::detail::json_sax_dom_parser<nlohmann::json> builder(out->value, /*allow_exceptions_=*/false);
    if (!sax_parse_json(text, &builder)) {
        release_json(out->value);
        out->value = nlohmann::json(nlohmann::json::value_t::discarded);
    }
}

}  // namespace simdformer
