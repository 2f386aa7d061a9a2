// Attention option names ('scaled-dot', 'softmax', ...): the one table that maps them to the
// C++ enums. JavaScript passes the user's strings through as bytes; they are compared exactly
// (no prototype lookups, no case folding, no trailing NUL).
#pragma once

#include "numbers.h"
#include "simdformer/config.h"

namespace simdformer::entry {

Status attention_options(const TextArg& score, const TextArg& normalize, AttentionOptions* out);

}  // namespace simdformer::entry
