// TextEmbeddings::load: the word, position and token-type tables and the norm, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/text_embeddings.h"
#include "simdformer/layers/positional_encoding.h"

namespace simdformer {

Result<TextEmbeddings> TextEmbeddings::load(WeightReader& reader, const TextEmbeddingsRef& ref, size_t vocab,
                                            size_t d, size_t n_positions, size_t n_types, float eps) {
    TextEmbeddings e;
    e.d_ = d;
    e.n_positions_ = n_positions;
    e.n_types_ = n_types;
    // [vocab, d] is nn.Linear's layout of a d -> vocab map: packed as that map.
    SF_ASSIGN_OR_RETURN(e.word_, Linear::load(reader, LinearRef{ref.word, ""}, d, vocab));
    if (!ref.position.empty() && ref.sinusoidal_if_missing && !reader.has(ref.position)) {
        SF_ASSIGN_OR_RETURN(e.positions_, Buffer::uninitialized(n_positions * d, "sinusoidal position table"));
        sinusoidal_positions(n_positions, d, e.positions_.data());
    } else if (!ref.position.empty()) {  // rotary models (Llama) have no position table
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

}  // namespace simdformer
