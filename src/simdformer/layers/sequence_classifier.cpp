#include "simdformer/layers/sequence_classifier.h"

namespace simdformer {

void SequenceClassifier::forward(size_t rows, const float* x, size_t ldx, float* hidden, float* logits) const {
    if (dense_) {
        const size_t d = dense_->out_features();
        dense_->forward(rows, x, ldx, hidden, d, activation_);
        x = hidden;
        ldx = d;
    }
    out_.forward(rows, x, ldx, logits, out_.out_features());
}

}  // namespace simdformer
