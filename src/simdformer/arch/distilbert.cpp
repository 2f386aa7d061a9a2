// The distilbert adapter (Hugging Face modeling_distilbert.py): its own key names (dim, n_heads,
// n_layers, hidden_dim, activation), LayerNorm eps fixed at 1e-12, no token types, and the
// q_lin/k_lin/v_lin/out_lin, sa_layer_norm, ffn.lin1/lin2, output_layer_norm layer names.
// Its attention scales q by 1/sqrt(d_head) before q·kᵀ and masks padding with masked_fill(min);
// both give the same weights as BERT's scaled-then-add-min (see layers/attention_head.h).
#include "simdformer/arch/adapter.h"

namespace simdformer {
namespace {

LinearRef lin(const std::string& prefix) { return LinearRef{prefix + "weight", prefix + "bias"}; }

class DistilBertAdapter : public HfTextAdapter {
public:
    Result<TextConfig> normalize(const HfConfig& c) const override {
        TextConfig t;
        t.architecture = Architecture::kDistilBert;
        // DistilBertConfig maps hidden_size / num_attention_heads / num_hidden_layers onto these.
        SF_RETURN_IF_ERROR(c.string("model_type", "distilbert", &t.model_type));
        SF_RETURN_IF_ERROR(c.size({"dim", "hidden_size"}, 1, 65536, 768, &t.d_model));
        SF_RETURN_IF_ERROR(c.size({"n_layers", "num_hidden_layers"}, 1, 1024, 6, &t.n_layers));
        SF_RETURN_IF_ERROR(c.size({"n_heads", "num_attention_heads"}, 1, 65536, 12, &t.n_heads));
        SF_RETURN_IF_ERROR(c.size({"hidden_dim"}, 1, size_t{1} << 20, 3072, &t.d_ff));
        SF_RETURN_IF_ERROR(c.size({"vocab_size"}, 1, size_t{1} << 24, 30522, &t.vocab_size));
        SF_RETURN_IF_ERROR(c.size({"max_position_embeddings"}, 1, 65536, 512, &t.max_position_embeddings));
        SF_RETURN_IF_ERROR(c.generation_token_id("pad_token_id", t.vocab_size, 0, &t.pad_token_id, &t.unused_token_ids));
        // "activation" only: hidden_act is not a DistilBertConfig alias, and HF leaves it unread.
        SF_RETURN_IF_ERROR(c.activation({"activation"}, "gelu", &t.hidden_act, &t.activation));
        SF_RETURN_IF_ERROR(c.boolean("tie_word_embeddings", true, &t.tie_word_embeddings));
        // sinusoidal_pos_embds: HF fills position_embeddings with create_sinusoidal_embeddings at
        // init (sin(pos / 10000^(2j/dim)) in column 2j, cos in 2j+1, computed in float64, then
        // float32: sinusoidal_positions' formula); a table in the checkpoint replaces it on load.
        SF_RETURN_IF_ERROR(c.boolean("sinusoidal_pos_embds", false, &t.sinusoidal_positions));
        SF_RETURN_IF_ERROR(c.string("torch_dtype", "", &t.torch_dtype));
        if (t.d_model % t.n_heads != 0)
            return Status::invalid(cat({"config \"dim\" = ", t.d_model, " is not divisible by \"n_heads\" = ",
                                        t.n_heads}));
        t.layer_norm_eps = 1e-12f;  // hard-coded in every DistilBERT LayerNorm
        t.type_vocab_size = 0;
        t.max_positions = t.max_position_embeddings;
        return t;
    }

    Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const override {
        TextModelRef ref;
        SF_ASSIGN_OR_RETURN(const std::string base,
                            detect_prefix(checkpoint, "distilbert.", "embeddings.word_embeddings.weight"));
        const std::string e = base + "embeddings.";
        ref.embeddings.word = e + "word_embeddings.weight";
        ref.embeddings.position = e + "position_embeddings.weight";
        ref.embeddings.sinusoidal_if_missing = config.sinusoidal_positions;
        ref.embeddings.norm = layer_norm_names(checkpoint, e + "LayerNorm.");
        ignore_if_present(checkpoint, e + "position_ids", &ref);
        for (size_t i = 0; i < config.n_layers; ++i) {
            const std::string l = base + "transformer.layer." + std::to_string(i) + ".";
            EncoderLayerRef layer;
            layer.attention.q = lin(l + "attention.q_lin.");
            layer.attention.k = lin(l + "attention.k_lin.");
            layer.attention.v = lin(l + "attention.v_lin.");
            layer.attention.out = lin(l + "attention.out_lin.");
            layer.norm1 = layer_norm_names(checkpoint, l + "sa_layer_norm.");
            layer.feed_forward.in = lin(l + "ffn.lin1.");
            layer.feed_forward.out = lin(l + "ffn.lin2.");
            layer.norm2 = layer_norm_names(checkpoint, l + "output_layer_norm.");
            ref.layers.push_back(std::move(layer));
        }
        // DistilBertForMaskedLM: vocab_transform, activation, vocab_layer_norm, vocab_projector
        // (weight tied to the word embeddings, its own bias).
        if (checkpoint.has("vocab_transform.weight")) {
            ref.has_mlm_head = true;
            ref.mlm.transform = lin("vocab_transform.");
            ref.mlm.activation = config.activation;
            ref.mlm.norm = layer_norm_names(checkpoint, "vocab_layer_norm.");
            ref.mlm.bias = "vocab_projector.bias";
            if (config.tie_word_embeddings) ignore_if_present(checkpoint, "vocab_projector.weight", &ref);
            else ref.mlm.decoder_weight = "vocab_projector.weight";
        }
        // DistilBertForSequenceClassification: pre_classifier + ReLU on token 0, then classifier.
        if (names_sequence_classifier(config)) {
            ref.has_classifier = true;
            ref.classifier.has_dense = true;
            ref.classifier.dense = lin("pre_classifier.");
            ref.classifier.activation = Activation::kRelu;
            ref.classifier.out = lin("classifier.");
        }
        // ...ForTokenClassification / ...ForQuestionAnswering: a linear map on every token.
        token_head_names(config, &ref);
        return ref;
    }
};

}  // namespace

const Adapter& distilbert_adapter() {
    static const DistilBertAdapter adapter;
    return adapter;
}

}  // namespace simdformer
