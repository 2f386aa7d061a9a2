// Masked-language-model head (BertOnlyMLMHead / RobertaLMHead / DistilBERT's vocab_* layers):
//   logits = LayerNorm(act(x W_t + b_t)) Eᵀ + bias
// with E the word embeddings (tied, as Hugging Face ties them) or the head's own decoder weight.
// It runs on selected rows only: fill-mask needs a handful of rows, not n x vocab scores.
#pragma once

#include <optional>

#include "simdformer/layers/tensor_refs.h"
#include "simdformer/layers/layer_norm.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

class MlmHead {
public:
    static Result<MlmHead> load(WeightReader& reader, const MlmHeadRef& ref, size_t d, size_t vocab, float eps);

    // x [rows, d] (row stride ldx) -> hidden [rows, d] scratch -> logits [rows, vocab].
    // `tied` is the word table, used unless the head has its own decoder.
    void forward(size_t rows, const float* x, size_t ldx, const Linear& tied, float* hidden, float* logits) const;


private:
    Activation activation_ = Activation::kGeluErf;
    Linear transform_;
    LayerNorm norm_;
    Buffer bias_;                     // [vocab]
    std::optional<Linear> decoder_;   // untied: its own [vocab, d]
};

}  // namespace simdformer
