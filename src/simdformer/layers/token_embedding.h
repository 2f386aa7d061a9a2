// Token embeddings of the nn.Transformer dialect: a table lookup, an optional scale and
// positions (sinusoidal, computed here, or learned, read from the file).
#pragma once

#include <cstdint>

#include "simdformer/layers/tensor_refs.h"
#include "simdformer/buffer.h"
#include "simdformer/config.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

// Token embedding table + positions: x[i] = E[token_i] * scale + P[offset + i].
class TokenEmbedding {
public:
    // Reads the table [vocab, d] and, for learned positions, the positions [max_len, d] that
    // `ref` names; sinusoidal tables are computed here.
    static Result<TokenEmbedding> load(WeightReader& reader, const TokenEmbeddingRef& ref, size_t vocab,
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
