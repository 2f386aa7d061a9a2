// The gpt2 adapter (Hugging Face modeling_gpt2.py): GPT2Model and GPT2LMHeadModel checkpoints,
// with the `transformer.` prefix (GPT2LMHeadModel.save_pretrained) or without it (GPT2Model, and
// the original OpenAI files, which also carry the h.N.attn.bias / attn.masked_bias buffers and a
// legacy config with n_ctx).
//
// A block is pre-norm: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)); ln_f follows the last one.
// Every projection is a Conv1D, weight stored [in, out] (WeightLayout::kInOut, packed as stored);
// c_attn holds q | k | v along its output dimension (three parts). The LM head is lm_head tied to
// wte (GPT2LMHeadModel does not save lm_head.weight), so logits = ln_f(x) wteᵀ.
#include "simdformer/arch/adapter.h"

namespace simdformer {
namespace {

constexpr size_t kMaxDim = 65536, kMaxLayers = 1024, kMaxVocab = size_t{1} << 24, kMaxPositions = 65536;

LinearRef conv1d(const std::string& prefix, size_t part = 0, size_t parts = 1) {
    return LinearRef{prefix + "weight", prefix + "bias", WeightLayout::kInOut, part, parts};
}

class Gpt2Adapter : public HfTextAdapter {
public:
    Result<TextConfig> normalize(const HfConfig& c) const override {
        TextConfig t;
        t.architecture = Architecture::kGpt2;
        // GPT2Config's attribute_map: hidden_size -> n_embd, num_hidden_layers -> n_layer,
        // num_attention_heads -> n_head, max_position_embeddings -> n_positions.
        SF_RETURN_IF_ERROR(c.string("model_type", "gpt2", &t.model_type));
        SF_RETURN_IF_ERROR(c.size({"n_embd", "hidden_size"}, 1, kMaxDim, 768, &t.d_model));
        SF_RETURN_IF_ERROR(c.size({"n_layer", "num_hidden_layers"}, 1, kMaxLayers, 12, &t.n_layers));
        SF_RETURN_IF_ERROR(c.size({"n_head", "num_attention_heads"}, 1, kMaxDim, 12, &t.n_heads));
        SF_RETURN_IF_ERROR(c.size({"vocab_size"}, 1, kMaxVocab, 50257, &t.vocab_size));
        SF_RETURN_IF_ERROR(c.size({"n_positions", "max_position_embeddings"}, 1, kMaxPositions, 1024,
                                  &t.max_position_embeddings));
        // n_inner: null (or absent) means 4 * n_embd.
        const auto inner = c.json().find("n_inner");
        if (inner == c.json().end() || inner->is_null()) {
            t.d_ff = 4 * t.d_model;
        } else {
            SF_RETURN_IF_ERROR(c.size({"n_inner"}, 1, size_t{1} << 20, 0, &t.d_ff));
        }
        // bos / eos / pad only seed generation's defaults and batch padding, never the forward pass.
        const int64_t eot = 50256 < int64_t(t.vocab_size) ? 50256 : -1;  // GPT2Config's <|endoftext|>
        SF_RETURN_IF_ERROR(c.generation_token_id("bos_token_id", t.vocab_size, eot, &t.bos_token_id, &t.unused_token_ids));
        SF_RETURN_IF_ERROR(c.generation_token_ids("eos_token_id", t.vocab_size, eot, &t.eos_token_id, &t.eos_token_ids,
                                                  &t.unused_token_ids));
        SF_RETURN_IF_ERROR(c.generation_token_id("pad_token_id", t.vocab_size, -1, &t.pad_token_id, &t.unused_token_ids));
        SF_RETURN_IF_ERROR(c.activation({"activation_function"}, "gelu_new", &t.hidden_act, &t.activation));
        SF_RETURN_IF_ERROR(c.positive_number("layer_norm_epsilon", 1.0, 1e-5f, &t.layer_norm_eps));
        SF_RETURN_IF_ERROR(c.boolean("tie_word_embeddings", true, &t.tie_word_embeddings));
        SF_RETURN_IF_ERROR(c.boolean("scale_attn_weights", true, &t.scale_attention));
        SF_RETURN_IF_ERROR(c.string("torch_dtype", "", &t.torch_dtype));
        SF_RETURN_IF_ERROR(c.require("scale_attn_by_inverse_layer_idx", false, "scaling attention by 1/(layer + 1)"));
        SF_RETURN_IF_ERROR(c.require("add_cross_attention", false, "GPT-2 with cross-attention"));
        // Accepted as they are: reorder_and_upcast_attn (float32 throughout here anyway), the
        // dropout probabilities, summary_* (GPT2DoubleHeadsModel's head), n_ctx and
        // task_specific_params of the original checkpoints, use_cache.
        if (t.d_model % t.n_heads != 0)
            return Status::invalid(cat({"config \"n_embd\" = ", t.d_model, " is not divisible by \"n_head\" = ",
                                        t.n_heads}));
        t.type_vocab_size = 0;
        t.max_positions = t.max_position_embeddings;
        t.causal = true;
        t.pre_norm = true;
        return t;
    }

    Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const override {
        TextModelRef ref;
        SF_ASSIGN_OR_RETURN(const std::string base, detect_prefix(checkpoint, "transformer.", "wte.weight"));
        ref.embeddings.word = base + "wte.weight";
        ref.embeddings.position = base + "wpe.weight";  // no token types, no embedding LayerNorm
        for (size_t i = 0; i < config.n_layers; ++i) {
            const std::string l = base + "h." + std::to_string(i) + ".";
            EncoderLayerRef layer;
            layer.norm1 = layer_norm_names(checkpoint, l + "ln_1.");
            layer.attention.q = conv1d(l + "attn.c_attn.", 0, 3);
            layer.attention.k = conv1d(l + "attn.c_attn.", 1, 3);
            layer.attention.v = conv1d(l + "attn.c_attn.", 2, 3);
            layer.attention.out = conv1d(l + "attn.c_proj.");
            layer.norm2 = layer_norm_names(checkpoint, l + "ln_2.");
            layer.feed_forward.in = conv1d(l + "mlp.c_fc.");
            layer.feed_forward.out = conv1d(l + "mlp.c_proj.");
            // The causal-mask buffers of older checkpoints: the mask is built, not loaded.
            ignore_if_present(checkpoint, l + "attn.bias", &ref);
            ignore_if_present(checkpoint, l + "attn.masked_bias", &ref);
            ref.layers.push_back(std::move(layer));
        }
        ref.has_final_norm = true;
        ref.final_norm = layer_norm_names(checkpoint, base + "ln_f.");
        // The LM head: tied to wte unless the config unties it (then lm_head.weight [vocab, d]).
        ref.has_lm_head = true;
        if (config.tie_word_embeddings) ignore_if_present(checkpoint, "lm_head.weight", &ref);
        else ref.lm_head_weight = "lm_head.weight";
        return ref;
    }
};

}  // namespace

const Adapter& gpt2_adapter() {
    static const Gpt2Adapter adapter;
    return adapter;
}

}  // namespace simdformer
