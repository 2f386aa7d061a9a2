// Internal. Checks of caller-supplied float arrays, shared by every entry point that takes them
// (models, the standalone ops), so the rules and messages are the same everywhere.
#pragma once

#include <cstddef>

#include "simdformer/status.h"

namespace simdformer {

// Every value finite: "<what> holds a non-finite value (nan) at element i".
Status check_finite(const float* x, size_t n, const char* what);

// An additive mask: finite values or -inf (masked); NaN and +inf are errors.
Status check_additive_mask(const float* m, size_t n, const char* what);

}  // namespace simdformer
