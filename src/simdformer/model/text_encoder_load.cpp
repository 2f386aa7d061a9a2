// The TextEncoder runner, cold part: loading from its spec, info_json's keys and the workspace
// (compiled for size in wasm: src/CMakeLists.txt).
#include "simdformer/model/info_json.h"
#include "simdformer/model/text_encoder.h"

namespace simdformer::detail {

Result<std::unique_ptr<Runner>> TextEncoder::load(const RunnerSpec& any, WeightReader& r) {
    const TextSpec* spec = std::get_if<TextSpec>(&any);
    if (!spec) return Status::invalid("a text encoder needs a text spec");
    ModelConfig shape;
    SF_ASSIGN_OR_RETURN(TextStack stack, TextStack::load(*spec, r, &shape));
    std::unique_ptr<TextEncoder> m(new TextEncoder(std::move(stack)));
    m->shape_ = shape;
    const TextConfig& t = spec->config;
    const TextModelRef& ref = spec->names;
    if (ref.has_pooler) {
        SF_ASSIGN_OR_RETURN(Linear pooler, Linear::load(r, ref.pooler, t.d_model, t.d_model));
        m->pooler_ = std::move(pooler);
    }
    if (ref.has_mlm_head) {
        SF_ASSIGN_OR_RETURN(MlmHead head, MlmHead::load(r, ref.mlm, t.d_model, t.vocab_size, t.layer_norm_eps));
        m->mlm_ = std::move(head);
    }
    if (ref.has_classifier) {
        if (t.num_labels == 0) return Status::invalid("config \"id2label\" is empty: a classifier needs at least one label");
        SF_ASSIGN_OR_RETURN(SequenceClassifier head, SequenceClassifier::load(r, ref.classifier, t.d_model, t.num_labels));
        m->classifier_ = std::move(head);
        m->labels_ = t.labels;
        m->problem_type_ = t.problem_type;
    }
    if (ref.has_token_head) {
        const bool qa = ref.token_head.task == TokenTask::kQuestionAnswering;
        // QA: HF splits qa_outputs' [n, 2] into start and end logits, so it has exactly two outputs.
        const size_t outputs = qa ? 2 : t.num_labels;
        if (outputs == 0) return Status::invalid("config \"id2label\" is empty: a classifier needs at least one label");
        SF_ASSIGN_OR_RETURN(Linear head, Linear::load(r, ref.token_head.out, t.d_model, outputs));
        m->token_head_ = std::move(head);
        m->token_task_ = ref.token_head.task;
        if (!qa) {
            m->labels_ = t.labels;
            m->problem_type_ = t.problem_type;
        }
    }
    m->unused_tensors_ = accept_unused(r, ref);
    m->parameters_ = r.elements_taken();
    return std::unique_ptr<Runner>(std::move(m));
}

nlohmann::json TextEncoder::info() const {
    nlohmann::json info = stack_.info();
    info["has_pooler"] = pooler_.has_value();
    info["has_mlm_head"] = mlm_.has_value();
    info["has_lm_head"] = false;
    const bool token_classifier = token_head_ && token_task_ == TokenTask::kTokenClassification;
    const bool labelled = classifier_ || token_classifier;
    info["has_classifier"] = classifier_.has_value();
    info["has_token_classifier"] = token_classifier;
    info["has_qa_head"] = token_head_ && token_task_ == TokenTask::kQuestionAnswering;
    info["num_labels"] = labelled ? nlohmann::json(labels_.size()) : nlohmann::json(nullptr);
    info["labels"] = labelled ? nlohmann::json(labels_) : nlohmann::json(nullptr);
    info["problem_type"] = labelled && !problem_type_.empty() ? nlohmann::json(problem_type_) : nlohmann::json(nullptr);
    info["unused_tensors"] = unused_tensors_;
    return info;
}

Result<std::unique_ptr<WorkspaceImpl>> TextEncoder::make_workspace(const WorkspaceLimits& requested,
                                                                   bool allocate) const {
    auto w = std::make_unique<TextWorkspace>();
    adopt(*w, text_limits(requested, stack_.config));
    w->max_len = w->limits.max_src_len;
    BufferPlan p;
    const size_t vocab = mlm_ ? stack_.config.vocab_size : 0, d = shape_.d_model, B = w->limits.max_batch;
    stack_.plan(shape_, vocab, *w, p);
    const size_t R = mlm_ ? w->limits.max_logits_rows : 0;
    p.add(&w->logits, p.product({R, vocab}), "workspace.logits");
    p.add(&w->head_hidden, p.product({R, d}), "workspace.head_hidden");
    p.add(&w->pooled, pooler_ ? p.product({B, d}) : 0, "workspace.pooled");
    const size_t labels = classifier_ ? classifier_->num_labels() : 0;
    p.add(&w->classifier_hidden, labels ? p.product({B, d}) : 0, "workspace.classifier_hidden");
    p.add(&w->classifier_logits, p.product({B, labels}), "workspace.classifier_logits");
    const size_t token_cols = token_head_ ? token_head_->out_features() : 0;
    p.add(&w->token_logits, p.product({B, w->max_len, token_cols}), "workspace.token_logits");
    if (p.too_large()) return workspace_too_large(w->limits);
    w->bytes = p.total_floats() * sizeof(float);
    if (allocate) {
        SF_RETURN_IF_ERROR(p.allocate());
        stack_.size_vectors(*w);
    }
    return std::unique_ptr<WorkspaceImpl>(std::move(w));
}

}  // namespace simdformer::detail
