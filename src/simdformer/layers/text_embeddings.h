// BERT-family input embeddings (Hugging Face BertEmbeddings / RobertaEmbeddings / DistilBERT's
// Embeddings): x = LayerNorm(word[id] + token_type[type] + position[pos]); GPT-2's are
// word[id] + position[pos] (no token types, no LayerNorm); Llama's word[id] alone (its positions
// are rotary, in attention).
//
// The word table is stored only in the GEMM's packed form: rows are gathered from the panels
// for lookups, and the same panels serve as the tied MLM output projection, so the largest
// tensor of a BERT model is held once.
#pragma once

#include <cstdint>
#include <optional>

#include "simdformer/layers/tensor_refs.h"
#include "simdformer/buffer.h"
#include "simdformer/layers/layer_norm.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

class TextEmbeddings {
public:
    // word [vocab, d], position [n_positions, d] unless ref.position is "", token_type [n_types,
    // d] (n_types 0: none), and the LayerNorm unless ref.norm.weight is "".
    static Result<TextEmbeddings> load(WeightReader& reader, const TextEmbeddingsRef& ref, size_t vocab, size_t d,
                                       size_t n_positions, size_t n_types, float eps);

    // out [n, d] (row stride ld) for tokens [n], token types [n] (null: all 0) and position ids
    // [n]; every id must already be validated against the tables.
    void embed(size_t n, const int32_t* tokens, const int32_t* token_types, const int32_t* positions, float* out,
               size_t ld) const;

    const Linear& word_table() const { return word_; }  // [vocab, d] as a Linear d -> vocab
    size_t vocab_size() const { return word_.out_features(); }
    size_t n_positions() const { return n_positions_; }
    size_t n_types() const { return n_types_; }

private:
    size_t d_ = 0, n_positions_ = 0, n_types_ = 0;
    Linear word_;
    Buffer positions_;  // [n_positions, d]
    Buffer types_;      // [n_types, d] (empty: none)
    std::optional<LayerNorm> norm_;
};

}  // namespace simdformer
