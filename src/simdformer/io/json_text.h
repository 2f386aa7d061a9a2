// Internal. The JSON text of a value, byte for byte what nlohmann::json::dump() writes with its
// defaults (no indentation, UTF-8 passed through, invalid UTF-8 an error), without linking
// nlohmann's serializer: issue 30 measured it at 5.7 KB of wasm for a few messages and info
// texts. tests/cpp/json_text_test.cpp compares the two over many values.
//
//  - objects in the order nlohmann::json stores them (std::map: keys sorted bytewise), arrays in
//    order, no spaces;
//  - integers in decimal; doubles in the shortest form Grisu2 finds (Loitsch 2010, the variant
//    dump() uses: at most 17 digits, a round trip back to the same double), written as
//    "1.0", "-0.0", "0.001", "1e-05", "1.5e+300": a fraction or exponent always shows;
//    NaN and infinities as null;
//  - strings with \" \\ \b \f \n \r \t, other bytes below 0x20 as \u00XX (lowercase hex), every
//    other character as its UTF-8 bytes;
//  - binary values as {"bytes":[...],"subtype":N or null}, a discarded value as <discarded>.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace simdformer {

// Throws std::invalid_argument when a string or key is not valid UTF-8, where dump() throws its
// type_error 316 ("invalid UTF-8 byte at index N: 0xXX" / "incomplete UTF-8 string; last byte:
// 0xXX", the same index and byte); std::bad_alloc when the text cannot be held.
std::string json_text(const nlohmann::json& value);

}  // namespace simdformer
