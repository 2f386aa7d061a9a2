// The bert adapter (Hugging Face modeling_bert.py): BertModel, BertForMaskedLM,
// BertForPreTraining and BertForSequenceClassification checkpoints, with or without the `bert.`
// prefix.
#include "simdformer/arch/bert.h"

namespace simdformer {
namespace {

constexpr size_t kMaxDim = 65536, kMaxLayers = 1024, kMaxVocab = size_t{1} << 24, kMaxPositions = 65536;

LinearRef dense(const std::string& prefix) { return LinearRef{prefix + "weight", prefix + "bias"}; }

// position_embedding_type as transformers 4.x's BertEmbeddings / RobertaEmbeddings read it:
// getattr(config, "position_embedding_type", "absolute"), then the table is added only when that
// is "absolute". A JSON null is None there: no position table is added and self-attention has no
// relative term, so such a checkpoint was trained without positions. (transformers 5 dropped the
// key and always adds the table; a null config comes from 4.x training, whose weights expect
// none.) relative_key / relative_key_query add learned distance embeddings to the scores: not
// implemented here. Other strings name custom code (ALiBi, rotary) this loader does not run.
Status read_position_embedding_type(const HfConfig& c, TextConfig* t) {
    const auto it = c.json().find("position_embedding_type");
    if (it != c.json().end() && it->is_null()) {
        t->absolute_positions = false;
        return Status::ok();
    }
    return c.require("position_embedding_type", "absolute", "relative or custom position embeddings");
}

class BertAdapter : public HfTextAdapter {
public:
    Result<TextConfig> normalize(const HfConfig& c) const override {
        return normalize_bert_family(c, Architecture::kBert, BertDefaults{});
    }

    Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const override {
        TextModelRef ref;
        SF_ASSIGN_OR_RETURN(const std::string base,
                            detect_prefix(checkpoint, "bert.", "embeddings.word_embeddings.weight"));
        bert_family_body(checkpoint, config, base, &ref);
        // BertForMaskedLM / BertForPreTraining: cls.predictions.* (never under the prefix).
        const std::string p = "cls.predictions.";
        if (checkpoint.has(p + "transform.dense.weight")) {
            ref.has_mlm_head = true;
            ref.mlm.transform = dense(p + "transform.dense.");
            ref.mlm.activation = config.activation;  // BertPredictionHeadTransform: ACT2FN[hidden_act]
            ref.mlm.norm = layer_norm_names(checkpoint, p + "transform.LayerNorm.");
            // decoder.bias is the same parameter as predictions.bias; files keep one or both.
            ref.mlm.bias = checkpoint.has(p + "bias") ? p + "bias" : p + "decoder.bias";
            if (config.tie_word_embeddings) ignore_if_present(checkpoint, p + "decoder.weight", &ref);
            else ref.mlm.decoder_weight = p + "decoder.weight";
            if (ref.mlm.bias != p + "decoder.bias") ignore_if_present(checkpoint, p + "decoder.bias", &ref);
        }
        // BertForSequenceClassification: classifier [num_labels, d] on the pooler's output.
        if (names_sequence_classifier(config)) {
            if (!ref.has_pooler)
                return Status::invalid(cat({"config says ", config.head_class, ", whose classifier reads the pooler, but '",
                                            base, "pooler.dense.weight' is missing"}));
            ref.has_classifier = true;
            ref.classifier.reads_pooler = true;
            ref.classifier.out = dense("classifier.");
        }
        // BertForPreTraining's next-sentence head: not run.
        ignore_if_present(checkpoint, "cls.seq_relationship.weight", &ref);
        ignore_if_present(checkpoint, "cls.seq_relationship.bias", &ref);
        // ...ForTokenClassification / ...ForQuestionAnswering: a linear map on every token.
        token_head_names(config, &ref);
        return ref;
    }
};

}  // namespace

Result<TextConfig> normalize_bert_family(const HfConfig& c, Architecture architecture, const BertDefaults& defaults) {
    TextConfig t;
    t.architecture = architecture;
    SF_RETURN_IF_ERROR(c.string("model_type", architecture_name(architecture), &t.model_type));
    SF_RETURN_IF_ERROR(c.size({"hidden_size"}, 1, kMaxDim, 768, &t.d_model));
    SF_RETURN_IF_ERROR(c.size({"num_hidden_layers"}, 1, kMaxLayers, 12, &t.n_layers));
    SF_RETURN_IF_ERROR(c.size({"num_attention_heads"}, 1, kMaxDim, 12, &t.n_heads));
    SF_RETURN_IF_ERROR(c.size({"intermediate_size"}, 1, size_t{1} << 20, 3072, &t.d_ff));
    SF_RETURN_IF_ERROR(c.size({"vocab_size"}, 1, kMaxVocab, 30522, &t.vocab_size));
    SF_RETURN_IF_ERROR(c.size({"max_position_embeddings"}, 1, kMaxPositions, 512, &t.max_position_embeddings));
    SF_RETURN_IF_ERROR(c.size({"type_vocab_size"}, 1, kMaxPositions, 2, &t.type_vocab_size));
    // RoBERTa's position ids count from the padding id: there it shapes the forward pass and must
    // lie in the vocabulary. Elsewhere pad, bos and eos only pad batches and seed generation.
    if (architecture == Architecture::kRoberta || architecture == Architecture::kXlmRoberta) {
        SF_RETURN_IF_ERROR(c.token_id("pad_token_id", t.vocab_size, defaults.pad_token_id, &t.pad_token_id));
    } else {
        SF_RETURN_IF_ERROR(c.generation_token_id("pad_token_id", t.vocab_size, defaults.pad_token_id, &t.pad_token_id,
                                                 &t.unused_token_ids));
    }
    SF_RETURN_IF_ERROR(c.generation_token_id("bos_token_id", t.vocab_size, defaults.bos_token_id, &t.bos_token_id,
                                             &t.unused_token_ids));
    SF_RETURN_IF_ERROR(c.generation_token_ids("eos_token_id", t.vocab_size, defaults.eos_token_id, &t.eos_token_id,
                                              &t.eos_token_ids, &t.unused_token_ids));
    SF_RETURN_IF_ERROR(c.activation({"hidden_act"}, "gelu", &t.hidden_act, &t.activation));
    SF_RETURN_IF_ERROR(c.positive_number("layer_norm_eps", 1.0, 1e-12f, &t.layer_norm_eps));
    SF_RETURN_IF_ERROR(c.boolean("tie_word_embeddings", true, &t.tie_word_embeddings));
    SF_RETURN_IF_ERROR(c.string("torch_dtype", "", &t.torch_dtype));
    SF_RETURN_IF_ERROR(read_position_embedding_type(c, &t));
    SF_RETURN_IF_ERROR(c.require("is_decoder", false, "BERT as a causal decoder"));
    SF_RETURN_IF_ERROR(c.require("add_cross_attention", false, "cross-attention"));
    if (t.d_model % t.n_heads != 0)
        return Status::invalid(cat({"config \"hidden_size\" = ", t.d_model,
                                    " is not divisible by \"num_attention_heads\" = ", t.n_heads}));
    t.max_positions = t.max_position_embeddings;
    return t;
}

void bert_family_body(const WeightReader& checkpoint, const TextConfig& config, const std::string& base,
                      TextModelRef* ref) {
    const std::string e = base + "embeddings.";
    ref->embeddings.word = e + "word_embeddings.weight";
    ref->embeddings.position = e + "position_embeddings.weight";
    if (!config.absolute_positions) {  // the table is in the file (HF builds it) but never added
        ignore_if_present(checkpoint, ref->embeddings.position, ref);
        ref->embeddings.position.clear();
    }
    ref->embeddings.token_type = e + "token_type_embeddings.weight";
    ref->embeddings.norm = layer_norm_names(checkpoint, e + "LayerNorm.");
    // Older BERT / MiniLM files carry the I64 position_ids buffer.
    ignore_if_present(checkpoint, e + "position_ids", ref);
    ignore_if_present(checkpoint, e + "token_type_ids", ref);
    for (size_t i = 0; i < config.n_layers; ++i) {
        const std::string l = base + "encoder.layer." + std::to_string(i) + ".";
        EncoderLayerRef layer;
        layer.attention.q = dense(l + "attention.self.query.");
        layer.attention.k = dense(l + "attention.self.key.");
        layer.attention.v = dense(l + "attention.self.value.");
        layer.attention.out = dense(l + "attention.output.dense.");
        layer.norm1 = layer_norm_names(checkpoint, l + "attention.output.LayerNorm.");
        layer.feed_forward.in = dense(l + "intermediate.dense.");
        layer.feed_forward.out = dense(l + "output.dense.");
        layer.norm2 = layer_norm_names(checkpoint, l + "output.LayerNorm.");
        ref->layers.push_back(std::move(layer));
    }
    if (checkpoint.has(base + "pooler.dense.weight")) {
        ref->has_pooler = true;
        ref->pooler = dense(base + "pooler.dense.");
    }
}

const Adapter& bert_adapter() {
    static const BertAdapter adapter;
    return adapter;
}

}  // namespace simdformer
