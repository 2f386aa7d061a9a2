#include "simdformer/layers/positional_encoding.h"

#include <cmath>

namespace simdformer {

void sinusoidal_positions(size_t n_positions, size_t d, float* out) {
    for (size_t i = 0; i < n_positions; ++i) {
        for (size_t c = 0; c < d; ++c) {
            const size_t two_j = c - c % 2;  // columns 2j and 2j+1 share a frequency
            const double angle = double(i) / std::pow(10000.0, double(two_j) / double(d));
            out[i * d + c] = float(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
}

}  // namespace simdformer
