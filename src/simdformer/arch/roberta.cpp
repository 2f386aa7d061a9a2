// The roberta adapter (Hugging Face modeling_roberta.py): BERT's layout under `roberta.`, one
// token type, positions counted after the padding index, the `lm_head.*` MLM head and the
// `classifier.{dense,out_proj}` sequence-classification head. XLM-RoBERTa (modeling_xlm_roberta.py)
// is the same code under XLMRoberta* names, with the same `roberta.` prefix: this adapter under
// its own architecture.
#include "simdformer/arch/bert.h"

namespace simdformer {
namespace {

class RobertaAdapter : public HfTextAdapter {
public:
    explicit RobertaAdapter(Architecture architecture) : architecture_(architecture) {}

    Result<TextConfig> normalize(const HfConfig& c) const override {
        BertDefaults defaults;  // RobertaConfig's token ids
        defaults.pad_token_id = 1;
        defaults.bos_token_id = 0;
        defaults.eos_token_id = 2;
        SF_ASSIGN_OR_RETURN(TextConfig t, normalize_bert_family(c, architecture_, defaults));
        // Real tokens sit at positions pad + 1, pad + 2, ...: the table's first pad + 1 rows are
        // never a real token's, so 514 rows with pad 1 hold 512 tokens.
        if (t.pad_token_id < 0 || size_t(t.pad_token_id) + 1 >= t.max_position_embeddings)
            return Status::invalid(cat({"config \"pad_token_id\" = ", t.pad_token_id,
                                        " leaves no room in \"max_position_embeddings\" = ",
                                        t.max_position_embeddings}));
        t.position_ids = PositionIds::kAfterPadding;
        t.max_positions = t.max_position_embeddings - size_t(t.pad_token_id) - 1;
        return t;
    }

    Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const override {
        TextModelRef ref;
        SF_ASSIGN_OR_RETURN(const std::string base,
                            detect_prefix(checkpoint, "roberta.", "embeddings.word_embeddings.weight"));
        bert_family_body(checkpoint, config, base, &ref);
        // RobertaForMaskedLM: lm_head.{dense, layer_norm, decoder (tied), bias}; RobertaLMHead
        // applies gelu (the erf form) whatever hidden_act says.
        const std::string p = "lm_head.";
        if (checkpoint.has(p + "dense.weight")) {
            ref.has_mlm_head = true;
            ref.mlm.transform = LinearRef{p + "dense.weight", p + "dense.bias"};
            ref.mlm.activation = Activation::kGeluErf;
            ref.mlm.norm = layer_norm_names(checkpoint, p + "layer_norm.");
            ref.mlm.bias = checkpoint.has(p + "bias") ? p + "bias" : p + "decoder.bias";
            if (config.tie_word_embeddings) ignore_if_present(checkpoint, p + "decoder.weight", &ref);
            else ref.mlm.decoder_weight = p + "decoder.weight";
            if (ref.mlm.bias != p + "decoder.bias") ignore_if_present(checkpoint, p + "decoder.bias", &ref);
        }
        // RobertaForSequenceClassification: RobertaClassificationHead on <s> (no pooler).
        if (names_sequence_classifier(config)) {
            ref.has_classifier = true;
            ref.classifier.has_dense = true;
            ref.classifier.dense = LinearRef{"classifier.dense.weight", "classifier.dense.bias"};
            ref.classifier.activation = Activation::kTanh;
            ref.classifier.out = LinearRef{"classifier.out_proj.weight", "classifier.out_proj.bias"};
        }
        // ...ForTokenClassification / ...ForQuestionAnswering: a linear map on every token.
        token_head_names(config, &ref);
        return ref;
    }

private:
    Architecture architecture_;
};

}  // namespace

const Adapter& roberta_adapter() {
    static const RobertaAdapter adapter(Architecture::kRoberta);
    return adapter;
}

const Adapter& xlm_roberta_adapter() {
    static const RobertaAdapter adapter(Architecture::kXlmRoberta);
    return adapter;
}

}  // namespace simdformer
