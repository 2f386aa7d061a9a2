#include "simdformer/layers/token_embedding.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

void TokenEmbedding::embed(size_t n, const int32_t* tokens, size_t position_offset, float* out, size_t ld) const {
    for (size_t i = 0; i < n; ++i) {
        float* row = out + i * ld;
        kernels::scale_f32(d_, scale_, table_.data() + size_t(tokens[i]) * d_, row);
        if (!positions_.empty()) kernels::add_f32(d_, row, positions_.data() + (position_offset + i) * d_, row);
    }
}

}  // namespace simdformer
