// Positional information added to token embeddings.
#pragma once

#include "simdformer/buffer.h"
#include "simdformer/config.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

// p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(i / 10000^(2j/d)), for i < n_positions.
// With odd d the last column is a sine. Computed in double, stored as float.
void sinusoidal_positions(size_t n_positions, size_t d, float* out /* [n_positions, d] */);

// Token embedding table + positions: x[i] = E[token_i] * scale + P[offset + i].
class TokenEmbedding {
public:
    // Reads `<prefix>embedding.weight` [vocab, d] and, for learned positions,
    // `<prefix>pos_embedding.weight` [max_len, d]; sinusoidal tables are computed here.
    static Result<TokenEmbedding> load(WeightReader& reader, const std::string& prefix, size_t vocab,
                                       const ModelConfig& config);

    // tokens must already be validated against vocab_size() and positions against the table.
    void embed(size_t n, const int32_t* tokens, size_t position_offset, float* out, size_t ld) const;
    size_t vocab_size() const { return vocab_; }

private:
    size_t vocab_ = 0, d_ = 0;
    float scale_ = 1.0f;
    Buffer table_;      // [vocab, d]
    Buffer positions_;  // [max_len, d] (empty: no positions)
};

}  // namespace simdformer
