// The sinusoidal positional table of "Attention Is All You Need".
#pragma once

#include <cstddef>

namespace simdformer {

// p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(i / 10000^(2j/d)), for i < n_positions.
// With odd d the last column is a sine. Computed in double, stored as float.
void sinusoidal_positions(size_t n_positions, size_t d, float* out /* [n_positions, d] */);

}  // namespace simdformer
