// The one internal config of every Hugging Face text model simdformer runs, whatever the
// checkpoint family calls its keys (hidden_size / dim, num_attention_heads / n_heads, ...).
// Each adapter's normaliser fills it from config.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/activation.h"
#include "simdformer/arch/architecture.h"
#include "simdformer/layers/rotary.h"

namespace simdformer {


// How position ids follow from the tokens.
enum class PositionIds {
    kArange,         // 0, 1, 2, ... (BERT, DistilBERT)
    kAfterPadding,   // RoBERTa: pad_token_id + (number of non-pad tokens so far) for real tokens,
                     // pad_token_id for pads
};

struct TextConfig {
    Architecture architecture = Architecture::kBert;
    std::string model_type;            // as written in config.json
    size_t d_model = 0, n_layers = 0, n_heads = 0, d_ff = 0;
    size_t vocab_size = 0;
    size_t max_position_embeddings = 0;  // rows of the position table
    size_t max_positions = 0;            // usable sequence length (RoBERTa: table rows - pad - 1)
    size_t type_vocab_size = 0;          // 0: no token types
    int64_t pad_token_id = -1, bos_token_id = -1, eos_token_id = -1;  // -1: none
    std::vector<int64_t> eos_token_ids;  // every end-of-sequence id (Llama 3 lists several); [] = none
    Activation activation = Activation::kGeluErf;
    std::string hidden_act;            // as written ("gelu", "gelu_new", "relu", ...)
    float layer_norm_eps = 1e-12f;
    PositionIds position_ids = PositionIds::kArange;
    // false: the position table is not added (a BERT-family config whose position_embedding_type
    // is null; see normalize_bert_family). Its rows still bound the sequence length.
    bool absolute_positions = true;
    // DistilBERT's sinusoidal_pos_embds: a position table absent from the checkpoint is the
    // sinusoidal one, which Hugging Face computes at init (create_sinusoidal_embeddings).
    bool sinusoidal_positions = false;
    bool tie_word_embeddings = true;
    // Decoder-only language models (GPT-2): causal self-attention, pre-norm blocks (LayerNorm
    // before each sub-block, a final one after the last), scores q·k scaled by 1/sqrt(d_head)
    // unless scale_attention is false.
    bool causal = false;
    bool pre_norm = false;
    bool scale_attention = true;
    // Rotary decoders (Llama, Qwen2, Mistral): grouped-query attention with n_kv_heads key/value
    // heads (0: n_heads) of head_dim (0: d_model / n_heads), rotary positions (no position table),
    // RMSNorms, a gated feed-forward (SwiGLU); sliding_window > 0: the layers from
    // first_window_layer on attend to the last sliding_window positions only.
    size_t n_kv_heads = 0, head_dim = 0;
    bool rotary = false;
    RopeConfig rope;
    std::string rope_type;             // as written ("default", "linear", "dynamic", "llama3")
    bool rms_norm = false;
    bool gated_feed_forward = false;
    size_t sliding_window = 0, first_window_layer = 0;
    // layer_types when the config lists them (Qwen2, Mistral, Ministral): which layers slide (then
    // first_window_layer is the first of them, and later ones need not slide); empty: every layer
    // from first_window_layer on.
    std::vector<bool> window_layers;
    // Whether layer i attends to the last sliding_window positions only.
    bool layer_slides(size_t i) const {
        return sliding_window > 0 && (window_layers.empty() ? i >= first_window_layer : bool(window_layers[i]));
    }
    bool attention_bias = false, mlp_bias = false;
    // HF builds this family's attention mask with masked_fill (Llama, Qwen2, Mistral), not as a
    // sum of masks (GPT-2): see HeadMasks::combine_by_fill.
    bool masks_by_fill = false;
    std::string torch_dtype;           // as written, informational
    // The task head: architectures[0] as written ("BertForSequenceClassification"; "" when
    // absent) names which head the checkpoint's head tensors are, as the Auto class that saved them.
    std::string head_class;
    // The labels of a classification head, as PretrainedConfig reads them: num_labels is the size
    // of id2label when present (its keys are strings of integers), else "num_labels", else 2;
    // labels[i] is id2label[i], or "LABEL_<i>" where id2label has no key i.
    size_t num_labels = 2;
    std::vector<std::string> labels;
    std::string problem_type;          // "", regression, single_label_classification, multi_label_classification
    // Special-token ids of the config that lie outside the vocabulary and so are none here
    // (HfConfig::generation_token_id): name and value as written, reported by info_json(); for a
    // key holding a list, the list of every id of it outside the vocabulary.
    std::vector<std::pair<std::string, nlohmann::json>> unused_token_ids;
};

}  // namespace simdformer
