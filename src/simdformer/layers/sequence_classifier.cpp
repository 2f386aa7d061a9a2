#include "simdformer/layers/sequence_classifier.h"

namespace simdformer {

Result<SequenceClassifier> SequenceClassifier::load(WeightReader& reader, const ClassifierRef& ref, size_t d,
                                                    size_t num_labels) {
    SequenceClassifier h;
    h.reads_pooler_ = ref.reads_pooler;
    h.activation_ = ref.activation;
    if (ref.has_dense) {
        SF_ASSIGN_OR_RETURN(Linear dense, Linear::load(reader, ref.dense, d, d));
        h.dense_ = std::move(dense);
    }
    SF_ASSIGN_OR_RETURN(h.out_, Linear::load(reader, ref.out, d, num_labels));
    return h;
}

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
