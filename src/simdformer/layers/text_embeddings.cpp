#include "simdformer/layers/text_embeddings.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

void TextEmbeddings::embed(size_t n, const int32_t* tokens, const int32_t* token_types, const int32_t* positions,
                           float* out, size_t ld) const {
    for (size_t i = 0; i < n; ++i) {
        float* row = out + i * ld;
        word_.weight_row(size_t(tokens[i]), row);
        // Hugging Face's order: (word + token_type) + position.
        if (n_types_ > 0) {
            const size_t type = token_types ? size_t(token_types[i]) : 0;
            kernels::add_f32(d_, row, types_.data() + type * d_, row);
        }
        if (!positions_.empty()) kernels::add_f32(d_, row, positions_.data() + size_t(positions[i]) * d_, row);
    }
    if (norm_) norm_->forward(n, out, ld, out, ld);
}

}  // namespace simdformer
