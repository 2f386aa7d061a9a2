// What each layer loads, as the tensor names of one checkpoint. Layers own these shapes (one Ref
// per layer type) and take them as given: they never build or parse a name. Architecture adapters
// (arch/*.cpp) fill them from their checkpoint family's naming scheme.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "simdformer/activation.h"

namespace simdformer {

// How a linear weight is stored. Layers pack it for the GEMM as it is, without a transpose copy.
enum class WeightLayout {
    kOutIn,  // [out_features, in_features]: nn.Linear
    kInOut,  // [in_features, out_features]: GPT-2's Conv1D
};

// A linear map y = x W + b. A fused tensor (nn.MultiheadAttention's in_proj_weight = q|k|v,
// GPT-2's c_attn) is described as part `part` of `parts` equal slices of its output dimension.
struct LinearRef {
    std::string weight;
    std::string bias;  // "" = no bias
    WeightLayout layout = WeightLayout::kOutIn;
    size_t part = 0, parts = 1;
};

struct NormRef {
    std::string weight, bias;  // LayerNorm gain and bias, both [d]
    bool rms = false;          // RMSNorm (Llama): the gain only, bias ""
};

// Additive (Bahdanau) score weights of the nn.Transformer dialect's attention.
struct AdditiveRef {
    std::string q_weight, k_weight;  // [n_heads, d_a, d_head]
    std::string v_weight;            // [n_heads, d_a]
};

struct AttentionRef {
    LinearRef q, k, v, out;
    AdditiveRef additive;  // names only used when the config has additive_dim > 0
};

struct FeedForwardRef {
    LinearRef in, out;  // d -> d_ff -> d
    // A gated feed-forward (SwiGLU, Llama's MLP): out(act(gate(x)) * in(x)), in = up_proj,
    // gate = gate_proj, out = down_proj. gate.weight "" = not gated.
    LinearRef gate;
};

// A post-norm (or, with norm_first, pre-norm) encoder layer:
//   x = norm1(x + attention(x));  x = norm2(x + feed_forward(x))
// Llama's decoder layer is this layer pre-norm, with RMSNorms, rotary attention and a gated
// feed-forward; Mistral's sliding-window layers attend through SequenceMasks::window_attn_mask.
struct EncoderLayerRef {
    AttentionRef attention;
    NormRef norm1;  // after (or before) attention: BERT's attention.output.LayerNorm
    FeedForwardRef feed_forward;
    NormRef norm2;  // after (or before) the feed-forward: BERT's output.LayerNorm
    bool sliding_window = false;
};

struct DecoderLayerRef {
    AttentionRef self_attention, cross_attention;
    FeedForwardRef feed_forward;
    NormRef norm1, norm2, norm3;
};

// BERT-family embeddings: LayerNorm(word[id] + token_type[type] + position[pos]).
struct TextEmbeddingsRef {
    std::string word;        // [vocab, d]; also the tied output projection of an MLM head
    std::string position;    // [max_position_embeddings, d]
    // A position table missing from the checkpoint is computed as the sinusoidal table
    // (layers/positional_encoding.h) instead of being an error: DistilBERT's sinusoidal_pos_embds.
    bool sinusoidal_if_missing = false;
    std::string token_type;  // [type_vocab_size, d], or "" (DistilBERT has none)
    NormRef norm;
};

// Masked-LM head: logits = LayerNorm(act(x W_t + b_t)) Eᵀ + bias, E the word embeddings (tied)
// or its own decoder weight [vocab, d].
struct MlmHeadRef {
    LinearRef transform;         // [d, d]
    Activation activation = Activation::kGeluErf;
    NormRef norm;
    std::string bias;            // [vocab]
    std::string decoder_weight;  // "" = tied to the word embeddings
};

// A sequence-classification head on each item's first token (the ...ForSequenceClassification
// classes; dropout is the identity at inference):
//   BERT:       logits = classifier(pooler)                 (reads_pooler; no dense of its own)
//   RoBERTa:    logits = out_proj(tanh(dense(x[token 0])))
//   DistilBERT: logits = classifier(relu(pre_classifier(x[token 0])))
struct ClassifierRef {
    bool reads_pooler = false;
    bool has_dense = false;
    LinearRef dense;  // [d, d]
    Activation activation = Activation::kNone;
    LinearRef out;    // [num_labels, d]
};

// A head on every token (one linear map, no dense of its own; dropout is the identity):
//   ...ForTokenClassification: logits [n_tokens, num_labels] = classifier(x)
//   ...ForQuestionAnswering:   [n_tokens, 2] = qa_outputs(x), column 0 the start logit, 1 the end
enum class TokenTask { kTokenClassification, kQuestionAnswering };
struct TokenHeadRef {
    TokenTask task = TokenTask::kTokenClassification;
    LinearRef out;  // [num_labels or 2, d]
};

// simdformer's token layers of the nn.Transformer dialect (layers/token_embedding.h): the table
// [vocab, d] and, for learned positions, the position table [max_len, d].
struct TokenEmbeddingRef {
    std::string table, positions;
};

// Everything a BERT-shaped encoder (or GPT-2-shaped decoder) checkpoint holds, as names.
struct TextModelRef {
    TextEmbeddingsRef embeddings;  // GPT-2: wte, wpe, no token types, no norm (norm.weight "")
    std::vector<EncoderLayerRef> layers;
    bool has_final_norm = false;
    NormRef final_norm;            // GPT-2's ln_f, after the last block
    // A language-model head: logits = x Eᵀ with E the word embeddings (tied, as GPT-2 ties
    // lm_head to wte) or its own weight [vocab, d].
    bool has_lm_head = false;
    std::string lm_head_weight;    // "" = tied to the word embeddings
    bool has_pooler = false;
    LinearRef pooler;  // dense [d, d], then tanh, on token 0
    bool has_mlm_head = false;
    MlmHeadRef mlm;
    bool has_classifier = false;
    ClassifierRef classifier;
    bool has_token_head = false;
    TokenHeadRef token_head;
    // Tensors the checkpoint may carry that the model deliberately does not use (buffers such as
    // position_ids, tied copies, heads it does not run).
    std::vector<std::string> ignored;
};

// Everything an nn.Transformer-dialect module holds (the TorchStack family), as names: one of
// the attention module, an encoder stack, a decoder stack or both, each stack's optional final
// norm, and the optional token layers.
struct TorchStackRef {
    std::optional<AttentionRef> attention;  // multihead_attention
    std::vector<EncoderLayerRef> encoder;
    std::optional<NormRef> encoder_norm;
    std::vector<DecoderLayerRef> decoder;
    std::optional<NormRef> decoder_norm;
    std::optional<TokenEmbeddingRef> src_embedding, tgt_embedding;
    std::optional<LinearRef> generator;     // [tgt_vocab, d_model]
};

}  // namespace simdformer
