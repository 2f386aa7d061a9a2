// Internal. Bounds on JSON texts from users and files, checked before a parser sees them: the
// size (so a hostile text cannot make the parser build gigabytes of nodes) and the nesting depth
// (so no recursive walk of the parsed value -- dump(), comparison, destruction -- can exhaust
// the stack: wasm's is 5 MiB and a 16 MiB header of '[' would nest 16 million levels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

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

}  // namespace simdformer
