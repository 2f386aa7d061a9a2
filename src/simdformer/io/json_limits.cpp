#include "simdformer/io/json_limits.h"

#include <string>

namespace simdformer {

Status check_json_limits(std::string_view text, const char* what) {
    if (text.size() > kMaxJsonBytes)
        return Status::invalid(std::string(what) + ": " + std::to_string(text.size()) + " bytes of JSON exceed the " +
                               std::to_string(kMaxJsonBytes) + "-byte limit");
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
                return Status::invalid(std::string(what) + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                       " levels");
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return Status::ok();
}

}  // namespace simdformer
