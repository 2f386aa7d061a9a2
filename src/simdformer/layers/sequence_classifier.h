// Sequence-classification head (BertForSequenceClassification, RobertaClassificationHead,
// DistilBertForSequenceClassification): num_labels scores per item from its first token, or from
// the pooler's output for BERT (ClassifierRef). Dropout is the identity at inference.
#pragma once

#include <optional>

#include "simdformer/layers/linear.h"
#include "simdformer/layers/tensor_refs.h"

namespace simdformer {

class SequenceClassifier {
public:
    static Result<SequenceClassifier> load(WeightReader& reader, const ClassifierRef& ref, size_t d, size_t num_labels);

    // x [rows, d] (row stride ldx: the first token of each item, or the pooler's rows) -> hidden
    // [rows, d] scratch (when the head has a dense layer) -> logits [rows, num_labels].
    void forward(size_t rows, const float* x, size_t ldx, float* hidden, float* logits) const;

    bool reads_pooler() const { return reads_pooler_; }
    size_t num_labels() const { return out_.out_features(); }

private:
    bool reads_pooler_ = false;
    std::optional<Linear> dense_;  // RoBERTa's classifier.dense, DistilBERT's pre_classifier
    Activation activation_ = Activation::kNone;
    Linear out_;
};

}  // namespace simdformer
