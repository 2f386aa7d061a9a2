#include "simdformer/layers/mlm_head.h"

namespace simdformer {

void MlmHead::forward(size_t rows, const float* x, size_t ldx, const Linear& tied, float* hidden,
                      float* logits) const {
    const size_t d = transform_.out_features();
    transform_.forward(rows, x, ldx, hidden, d, activation_);
    norm_.forward(rows, hidden, d, hidden, d);
    const Linear& decoder = decoder_ ? *decoder_ : tied;
    decoder.forward_with_bias(rows, hidden, d, logits, decoder.out_features(), bias_.data());
}

}  // namespace simdformer
