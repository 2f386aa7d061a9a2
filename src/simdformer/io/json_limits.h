// Internal. Bounds on JSON texts from users and files, checked before a parser sees them: the
// size (so a hostile text cannot make the parser build gigabytes of nodes) and the nesting depth
// (so no recursive walk of the parsed value -- dump(), comparison, destruction -- can exhaust
// the stack: wasm's is 5 MiB and a 16 MiB header of '[' would nest 16 million levels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "simdformer/status.h"

namespace simdformer {

// Largest JSON text parsed anywhere (configs, indexes, options; safetensors headers have their
// own, smaller limit).
constexpr uint64_t kMaxJsonBytes = uint64_t{64} << 20;
// Deepest nesting accepted: Hugging Face configs nest 3 levels, safetensors headers 3.
constexpr size_t kMaxJsonDepth = 64;

// invalid_argument "<what>: JSON nested deeper than 64 levels" / "... is larger than ...".
// A text that is not JSON at all passes (the parser reports it).
Status check_json_limits(std::string_view text, const char* what);

// Empties a JSON value bottom-up without allocating (children first, so every value destroyed
// is a scalar or an empty container). nlohmann's destructor allocates a stack of all direct
// children to avoid recursion -- 1.6 MB for a header of 100,000 tensors -- and a destructor that
// cannot get memory ends the program. Recursion depth = nesting depth (<= kMaxJsonDepth after
// check_json_limits).
void release_json(nlohmann::json& j) noexcept;

// A parsed JSON value that is released (release_json) before it is destroyed: on return, and
// while an exception (std::bad_alloc) unwinds through the parse or through its owner.
struct ParsedJson {
    ParsedJson() = default;
    ParsedJson(const ParsedJson&) = delete;
    ParsedJson& operator=(const ParsedJson&) = delete;
    ~ParsedJson() { release_json(value); }
    nlohmann::json value;
};

// SAX-parses a JSON text (strict: one value, nothing after it) into sax. json::sax_parse takes the
// input format as a run-time argument, so every SAX type it is called with also instantiates
// nlohmann's CBOR / MessagePack / UBJSON / BSON reader (about 30 KB of wasm per build) though only
// JSON is ever read here; this is its JSON branch alone.
template <class Sax>
bool sax_parse_json(std::string_view text, Sax* sax) {
    auto input = nlohmann::detail::input_adapter(text.data(), text.data() + text.size());
    using Parser = nlohmann::detail::parser<nlohmann::json, decltype(input)>;
    return Parser(std::move(input), nullptr, /*allow_exceptions_=*/true, /*skip_comments=*/false)
        .sax_parse(sax, /*strict=*/true);
}

// Parses text (checked with check_json_limits first) into out->value, which is discarded
// (is_discarded()) when the text is not JSON. The partial value of a failed parse lives in *out,
// so it is released too. With duplicate_top_key, the first key of the top-level object that is
// given twice is written there (left empty when there is none).
void parse_json(std::string_view text, ParsedJson* out, std::string* duplicate_top_key = nullptr);

}  // namespace simdformer
