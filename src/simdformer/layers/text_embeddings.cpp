#include "simdformer/layers/text_embeddings.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

Result<TextEmbeddings> TextEmbeddings::load(WeightReader& reader, const TextEmbeddingsRef& ref, size_t vocab,
                                            size_t d, size_t n_positions, size_t n_types, float eps) {
    TextEmbeddings e;
    e.d_ = d;
    e.n_positions_ = n_positions;
    e.n_types_ = n_types;
    // [vocab, d] is nn.Linear's layout of a d -> vocab map: packed as that map.
    SF_ASSIGN_OR_RETURN(e.word_, Linear::load(reader, LinearRef{ref.word, ""}, d, vocab));
    if (!ref.position.empty()) {  // rotary models (Llama) have no position table
        SF_ASSIGN_OR_RETURN(e.positions_, reader.take(ref.position, {n_positions, d}));
    }
    if (n_types > 0) {
        SF_ASSIGN_OR_RETURN(e.types_, reader.take(ref.token_type, {n_types, d}));
    }
    if (!ref.norm.weight.empty()) {
        SF_ASSIGN_OR_RETURN(LayerNorm norm, LayerNorm::load(reader, ref.norm, d, eps));
        e.norm_ = std::move(norm);
    }
    return e;
}

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
