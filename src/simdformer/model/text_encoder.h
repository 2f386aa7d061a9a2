// The TextEncoder family: Hugging Face encoders (BERT, RoBERTa, DistilBERT and BERT-shaped
// checkpoints: MiniLM, BGE, GTE, E5) with the heads their checkpoints carry, with HF's semantics:
//   x = LayerNorm(word[id] + token_type[type] + position[pos])
//   each layer: x = LN1(x + SelfAttention(x, key bias)); x = LN2(x + FFN(x))   (post-norm)
//   pooler = tanh(x[token 0] W_p + b_p);  MLM logits = LN(act(x W_t + b_t)) Eᵀ + bias
//   sequence-classification logits: layers/sequence_classifier.h
//   token-classification logits [n_tokens, num_labels] = x W_c + b_c; question answering's
//   start / end logits [n_tokens, 2] = x W_qa + b_qa (columns 0 and 1), on every token
// Padding keys get float32's lowest value added to their scaled scores (not -inf: a query with no
// real key gets uniform weights, as in HF).
#pragma once

#include "simdformer/layers/mlm_head.h"
#include "simdformer/layers/sequence_classifier.h"
#include "simdformer/model/text_stack.h"

namespace simdformer::detail {

class TextEncoder : public Runner {
public:
    static Result<std::unique_ptr<Runner>> load(const RunnerSpec& spec, WeightReader& reader);

    Family family() const override { return Family::kTextEncoder; }
    nlohmann::json info() const override;
    Result<std::unique_ptr<WorkspaceImpl>> make_workspace(const WorkspaceLimits& limits, bool allocate) const override;
    Status forward(const ForwardRequest& request, WorkspaceImpl& ws) const override;
    Status forward_text(const TextRequest& request, WorkspaceImpl& ws) const override;

private:
    explicit TextEncoder(TextStack stack) : stack_(std::move(stack)) {}
    // Position ids: arange, or RoBERTa's count of real tokens after the padding id.
    void fill_positions(const TextRequest& r, TextWorkspace& ws) const;
    void run_heads(const TextRequest& r, TextWorkspace& ws) const;
    void run_classifier(const TextRequest& r, TextWorkspace& ws) const;
    void run_token_head(const TextRequest& r, TextWorkspace& ws) const;
    Status check_heads(const TextRequest& r) const;

    TextStack stack_;
    std::optional<Linear> pooler_;  // dense [d, d], tanh
    std::optional<MlmHead> mlm_;
    std::optional<SequenceClassifier> classifier_;
    std::optional<Linear> token_head_;  // [d] -> [num_labels] (token classification) or [2] (QA)
    TokenTask token_task_ = TokenTask::kTokenClassification;
    std::vector<std::string> labels_;  // [num_labels] names of the (sequence or token) classifier's outputs
    std::string problem_type_;
    std::vector<std::string> unused_tensors_;
};

}  // namespace simdformer::detail
