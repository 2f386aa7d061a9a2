#include "simdformer/arch/adapter.h"

namespace simdformer {

namespace {

bool class_ends_with(const TextConfig& config, const std::string& suffix) {
    const std::string& cls = config.head_class;
    return cls.size() > suffix.size() && cls.compare(cls.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The task heads run on the encoders (BERT, RoBERTa, DistilBERT, XLM-R). A decoder's
// ...ForSequenceClassification (`score` on the last real token), ...ForTokenClassification or
// ...ForQuestionAnswering would otherwise load as its causal LM or bare model, its head left
// unread, and answer another question than the one its checkpoint was trained for.
Status refuse_decoder_task_head(const TextConfig& t) {
    if (!t.causal) return Status::ok();
    for (const char* head : {"ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"})
        if (class_ends_with(t, head))
            return Status::unsupported(cat({"architectures ", t.head_class, ": the ", head + 3, " head of ", t.model_type,
                                            " checkpoints is not supported (", t.model_type,
                                            " loads as ...ForCausalLM or its bare model; task heads: bert, roberta, "
                                            "distilbert, xlm-roberta)"}));
    return Status::ok();
}

}  // namespace

Result<RunnerSpec> HfTextAdapter::read(const AdapterInput& input) const {
    const HfConfig hf(input.config);
    SF_ASSIGN_OR_RETURN(TextConfig config, normalize(hf));
    SF_RETURN_IF_ERROR(hf.task_head(&config));
    SF_RETURN_IF_ERROR(refuse_decoder_task_head(config));
    SF_ASSIGN_OR_RETURN(TextModelRef names_of_tensors, names(config, input.checkpoint));
    return RunnerSpec{TextSpec{std::move(config), std::move(names_of_tensors)}};
}

NormRef layer_norm_names(const WeightReader& checkpoint, const std::string& prefix) {
    if (!checkpoint.has(prefix + "weight") && checkpoint.has(prefix + "gamma"))
        return NormRef{prefix + "gamma", prefix + "beta"};
    return NormRef{prefix + "weight", prefix + "bias"};
}

Result<std::string> detect_prefix(const WeightReader& checkpoint, const std::string& prefix, const std::string& probe) {
    if (checkpoint.has(prefix + probe)) return prefix;
    if (checkpoint.has(probe)) return std::string();
    return Status::invalid(cat({"missing tensor '", prefix, probe, "' (or '", probe,
                                "' without the prefix): is this checkpoint the model its config.json describes?"}));
}

namespace {

// The per-token heads: the class-name suffix, what the head computes, its tensors' prefix.
struct TokenHeadRow {
    const char* class_suffix;
    TokenTask task;
    const char* prefix;
};
const TokenHeadRow kTokenHeads[] = {
    {"ForTokenClassification", TokenTask::kTokenClassification, "classifier."},
    {"ForQuestionAnswering", TokenTask::kQuestionAnswering, "qa_outputs."},
};

}  // namespace

bool names_sequence_classifier(const TextConfig& config) { return class_ends_with(config, "ForSequenceClassification"); }

void token_head_names(const TextConfig& config, TextModelRef* ref) {
    for (const TokenHeadRow& row : kTokenHeads) {
        if (!class_ends_with(config, row.class_suffix)) continue;
        const std::string p = row.prefix;
        ref->has_token_head = true;
        ref->token_head.task = row.task;
        ref->token_head.out = LinearRef{p + "weight", p + "bias"};
        return;
    }
}

void ignore_if_present(const WeightReader& checkpoint, const std::string& name, TextModelRef* ref) {
    if (checkpoint.has(name)) ref->ignored.push_back(name);
}

}  // namespace simdformer
