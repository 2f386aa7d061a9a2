// Internal. Bounds on JSON texts from users and files, checked before a parser sees them: the
// size (so a hostile text cannot make the parser build gigabytes of nodes) and the nesting depth
// (so no recursive walk of the parsed value -- dump(), comparison, destruction -- can exhaust
// the stack: wasm's is 5 MiB and a 16 MiB header of '[' would nest 16 million levels).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
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

// SAX-parses a JSON text (strict: one value, nothing after it) into sax; false, with no call of
// sax->parse_error, when the text is not JSON or sax refused an event. nlohmann's lexer, driven
// by the loop of nlohmann's parser::sax_parse_internal (3.11) event for event, without that parser:
//  - json::sax_parse takes the input format as a run-time argument, so every SAX type it is
//    called with also instantiates nlohmann's CBOR / MessagePack / UBJSON / BSON reader (about
//    30 KB of wasm per build) though only JSON is ever read here;
//  - the parser builds a parse_error exception with its message for every error it reports
//    (snprintf among it: libc's printf) and keeps its stack of open containers in a
//    std::vector<bool>, whose bit-by-bit copying push_back alone was 1.8 KB of wasm: the caller
//    here only needs false, and the stack is a std::string (issue 30).
template <class Sax>
bool sax_parse_json(std::string_view text, Sax* sax) {
    using Input = decltype(nlohmann::detail::input_adapter(text.data(), text.data() + text.size()));
    using Lexer = nlohmann::detail::lexer<nlohmann::json, Input>;
    using token = typename Lexer::token_type;
    Lexer lexer(nlohmann::detail::input_adapter(text.data(), text.data() + text.size()), /*ignore_comments_=*/false);
    std::string open;  // the containers the next value is inside, innermost last: '[' or '{'
    token t = lexer.scan();
    for (;;) {
        switch (t) {  // t starts a value
            case token::begin_object:
                if (!sax->start_object(static_cast<std::size_t>(-1))) return false;
                if ((t = lexer.scan()) == token::end_object) {
                    if (!sax->end_object()) return false;
                    break;
                }
                if (t != token::value_string || !sax->key(lexer.get_string()) || lexer.scan() != token::name_separator)
                    return false;
                open.push_back('{');
                t = lexer.scan();
                continue;
            case token::begin_array:
                if (!sax->start_array(static_cast<std::size_t>(-1))) return false;
                if ((t = lexer.scan()) == token::end_array) {
                    if (!sax->end_array()) return false;
                    break;
                }
                open.push_back('[');
                continue;  // t is the first element's first token
            case token::value_float: {
                const auto v = lexer.get_number_float();
                if (!std::isfinite(v) || !sax->number_float(v, lexer.get_string())) return false;  // overflow: 406
                break;
            }
            case token::literal_false:
                if (!sax->boolean(false)) return false;
                break;
            case token::literal_null:
                if (!sax->null()) return false;
                break;
            case token::literal_true:
                if (!sax->boolean(true)) return false;
                break;
            case token::value_integer:
                if (!sax->number_integer(lexer.get_number_integer())) return false;
                break;
            case token::value_string:
                if (!sax->string(lexer.get_string())) return false;
                break;
            case token::value_unsigned:
                if (!sax->number_unsigned(lexer.get_number_unsigned())) return false;
                break;
            default:  // the lexer's parse_error, or a token that starts no value
                return false;
        }
        // A value ended: close the containers that end here, up to the next value.
        for (;;) {
            if (open.empty()) return lexer.scan() == token::end_of_input;  // strict: nothing after it
            t = lexer.scan();
            if (t == token::value_separator) {
                if (open.back() == '{' &&
                    (lexer.scan() != token::value_string || !sax->key(lexer.get_string()) || lexer.scan() != token::name_separator))
                    return false;
                t = lexer.scan();
                break;
            }
            if (open.back() == '[' ? t != token::end_array || !sax->end_array() : t != token::end_object || !sax->end_object())
                return false;
            open.pop_back();
        }
    }
}

// Parses text (checked with check_json_limits first) into out->value, which is discarded
// (is_discarded()) when the text is not JSON. The partial value of a failed parse lives in *out,
// so it is released too. With `duplicate` (a safetensors header), the first top-level key given
// twice, or whose object (a tensor entry; not "__metadata__") gives a key twice, is written there
// (left empty when there is none).
void parse_json(std::string_view text, ParsedJson* out, std::string* duplicate = nullptr);

}  // namespace simdformer
