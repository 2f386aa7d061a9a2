// Internal. Checks of caller-supplied arrays and sizes, shared by every entry point that takes
// them (models, the standalone ops), so the rules and messages are the same everywhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/status.h"

namespace simdformer {

// Every value finite: "<what> holds a non-finite value (nan) at element i".
Status check_finite(const float* x, size_t n, const char* what);

// An additive mask: finite values or -inf (masked); NaN and +inf are errors.
Status check_additive_mask(const float* m, size_t n, const char* what);

// Every id of ids [n] in [0, limit): "<what><kind> 7 at index 3 is outside <range>[0, 5)", e.g.
// "token id 7 at index 3 is outside [0, 5)" or, with kind " token" and range "the vocabulary ",
// "src token 7 at index 3 is outside the vocabulary [0, 5)".
Status check_ids(const int32_t* ids, size_t n, size_t limit, const char* what, const char* kind = "",
                 const char* range = "");

// A length within a workspace's limit: "<what><sep>9 exceeds the workspace's limit of 8", e.g.
// "src length 9 ..." (sep " length ") or "n_seq=9 ..." (sep "=").
Status check_workspace_limit(size_t n, size_t limit, const char* what, const char* sep);

}  // namespace simdformer
