// TokenEmbedding::load: the token table and the positions (read or computed), once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/token_embedding.h"

#include <cmath>

#include "simdformer/layers/positional_encoding.h"

namespace simdformer {

Result<TokenEmbedding> TokenEmbedding::load(WeightReader& reader, const TokenEmbeddingRef& ref, size_t vocab,
                                            const ModelConfig& config) {
    TokenEmbedding e;
    e.vocab_ = vocab;
    e.d_ = config.d_model;
    e.scale_ = config.scale_embedding ? std::sqrt(float(config.d_model)) : 1.0f;
    SF_ASSIGN_OR_RETURN(e.table_, reader.take(ref.table, {vocab, config.d_model}));
    if (config.positional == PositionalKind::kLearned) {
        SF_ASSIGN_OR_RETURN(e.positions_, reader.take(ref.positions, {config.max_len, config.d_model}));
    } else if (config.positional == PositionalKind::kSinusoidal) {
        SF_ASSIGN_OR_RETURN(e.positions_, Buffer::uninitialized(config.max_len * config.d_model, "positional table"));
        sinusoidal_positions(config.max_len, config.d_model, e.positions_.data());
    }
    return e;
}

}  // namespace simdformer
