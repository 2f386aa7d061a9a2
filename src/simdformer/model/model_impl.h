// Internal definitions behind Model and Workspace (not part of the public API).
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "simdformer/arch/text_config.h"
#include "simdformer/buffer.h"
#include "simdformer/layers/decoder_layer.h"
#include "simdformer/layers/encoder_layer.h"
#include "simdformer/layers/mlm_head.h"
#include "simdformer/layers/text_embeddings.h"
#include "simdformer/layers/token_embedding.h"
#include "simdformer/model.h"
#include "simdformer/model/sampler.h"

namespace simdformer::detail {

// Where run_encoder_layers copies one layer's q, k, v and context: out [4, tokens, d_model].
struct LayerProbe {
    size_t layer = 0;
    float* out = nullptr;
};

constexpr size_t kMaxStopTokens = 64;

// Where stepwise decoding stands (Model::decode_begin / generate_begin, decode_step). Only sizes,
// options and state: nothing here points into the caller's memory, so a step needs nothing but
// the workspace.
struct DecodeState {
    bool active = false;
    bool seq2seq = false;         // generate_begin (transformer) or decode_begin (causal text model)
    bool done = false;            // every item ended or max_steps reached
    size_t n_batch = 0;
    size_t steps = 0, max_steps = 0;
    size_t past = 0;              // causal text: positions cached per item
    size_t vocab = 0;
    size_t n_seq_src = 0;         // seq2seq: source length
    AttentionOptions options;     // seq2seq
    bool need_weights = false;    // seq2seq: record full decoder maps
    std::array<int32_t, kMaxStopTokens> stop{};
    size_t n_stop = 0;
    int32_t pad = 0;              // what ended items produce
    Sampler sampler;
};

struct ModelImpl {
    ModelConfig config;
    size_t parameters = 0;
    std::optional<MultiHeadAttention> mha;  // multihead_attention
    std::vector<EncoderLayer> encoder;      // encoder kinds and transformer
    std::optional<LayerNorm> encoder_norm;
    std::vector<DecoderLayer> decoder;      // decoder kinds and transformer
    std::optional<LayerNorm> decoder_norm;
    std::optional<TokenEmbedding> src_embedding, tgt_embedding;
    std::optional<Linear> generator;        // [tgt_vocab, d_model]

    // Hugging Face text encoders (bert, roberta, distilbert): `encoder` holds their layers.
    std::optional<TextConfig> text;
    std::optional<TextEmbeddings> text_embeddings;
    std::optional<Linear> pooler;           // dense [d, d], tanh
    std::optional<MlmHead> mlm;
    // Causal language models (gpt2): `encoder` holds the pre-norm blocks, encoder_norm ln_f, and
    // the LM head is the word table (tied) or lm_head [vocab, d].
    bool has_lm_head = false;
    std::optional<Linear> lm_head;          // untied LM head
    const Linear& lm() const { return lm_head ? *lm_head : text_embeddings->word_table(); }
    bool causal_text() const { return text && text->causal; }
    AttentionOptions text_attention() const;  // scaled dot-product unless the config says otherwise

    // What info_json() reports beyond the config.
    std::string config_json;                // the config as given (or as parse_model_config reads it)
    std::string stored_dtype;               // dtype of the checkpoint's weights ("F32", "F16", "mixed")
    bool int8_weights = false;              // linear weights held as int8 (info "weights")
    std::vector<std::string> unused_tensors;  // checkpoint tensors nothing used (Hugging Face models)

    // Stages of a forward pass (model/forward.cpp).
    // Checks shared by forward() and generate(): the workspace fits this model and call.
    Status check_call(const WorkspaceImpl& ws, size_t n_batch, bool need_weights, const AttentionOptions& options) const;
    Status check_sequence(const SequenceInput& s, size_t n_batch, size_t max_len, const char* which,
                          std::optional<TokenEmbedding> const& embedding) const;
    void embed(const SequenceInput& s, size_t n_batch, const std::optional<TokenEmbedding>& embedding,
               float* out) const;
    void run_encoder(size_t n_batch, const SequenceInput& src, const AttentionOptions& options, bool need_weights,
                     WorkspaceImpl& ws, float* x) const;
    // The encoder layers (and final norm) over x [n_batch * n_seq, d_model] in place; with a
    // probe, layer probe->layer's q, k, v and context are copied out (TextRequest::probe_out).
    void run_encoder_layers(size_t n_batch, size_t n_seq, const SequenceMasks& masks, const AttentionOptions& options,
                            bool need_weights, WorkspaceImpl& ws, float* x, const LayerProbe* probe = nullptr) const;
    void run_decoder(size_t n_batch, const SequenceInput& tgt, const float* memory, size_t n_seq_memory,
                     const uint8_t* memory_padding, const AttentionOptions& options, bool need_weights,
                     WorkspaceImpl& ws, float* y) const;
    Status forward_mha(const ForwardRequest& r, WorkspaceImpl& ws) const;

    // Stages of forward_text() (model/text_forward.cpp).
    Status check_text(const TextRequest& r, const WorkspaceImpl& ws) const;
    void embed_text(const TextRequest& r, WorkspaceImpl& ws) const;
    void text_heads(const TextRequest& r, WorkspaceImpl& ws) const;

    // Stages of generate() and generate_begin / decode_step (model/generate.cpp).
    void encode_memory(const GenerateRequest& r, WorkspaceImpl& ws) const;
    void seq2seq_forward(size_t t, WorkspaceImpl& ws) const;
    void seq2seq_step(WorkspaceImpl& ws) const;
    void pack_generated(size_t length, WorkspaceImpl& ws) const;

    // Stages of decode_begin / decode_step for causal text models (model/decode.cpp).
    Status check_decode(const DecodeRequest& r, const WorkspaceImpl& ws) const;
    void prefill(const DecodeRequest& r, WorkspaceImpl& ws) const;
    void text_step(WorkspaceImpl& ws) const;
};

// The end of a decoding step shared by both kinds: picks each item's token from logits
// [n_batch, ld] (ended items get the pad token), marks items that produced a stop token, counts
// the step and decides whether decoding is done.
void choose_tokens(const float* logits, size_t ld, WorkspaceImpl& ws);
// Hugging Face's causal mask as an additive matrix [n, n]: 0 on and below the diagonal, float's
// lowest above (torch.where(causal, s, finfo.min); with the padding mask added on top, a key that
// is both in the future and padding gets -inf, exactly as in HF).
void fill_causal_mask(size_t n, float* mask);

struct WorkspaceImpl {
    WorkspaceLimits limits;
    size_t d_model = 0, nhead = 0;
    size_t max_src = 0, max_tgt = 0;
    size_t bytes = 0;

    Buffer x, y;                               // [B*max_src, d], [B*max_tgt, d] activations
    Buffer q, k, v, context, s1, s2;           // [B*max(src, tgt), d]
    Buffer hidden;                             // [B*max(src, tgt), d_ff]
    Buffer scores, pack, add_q, add_k;         // attention scratch: attention_slots copies, one per
    size_t attention_slots = 1;                //   thread running heads (each copy one head at a time)
    size_t scores_floats = 0, pack_floats = 0, add_floats = 0;  // floats of one copy
    std::vector<Buffer> cross_k, cross_v;      // per decoder layer [B*max_src, d]
    std::vector<Buffer> cache_k, cache_v;      // per decoder layer [B*max_tgt, d]; causal text models:
                                               // per layer [B*max_context, d]
    std::vector<CrossMemory> cross;            // per decoder layer, during generate()
    Buffer logits;                             // [B*max_tgt, vocab], text models [max_logits_rows, vocab]
    Buffer key_bias;                           // text models: [B*max_src] 0 or float lowest per key
    Buffer pooled;                             // text models: [B, d]
    Buffer mlm_in, mlm_hidden;                 // text models: [max_logits_rows, d] each
    std::vector<int32_t> position_ids;         // text models: [B*max_src]
    Buffer attention;                          // every recorded map, one slot per layer
    Buffer step_self, step_cross;              // one decoding step: [B, h, 1, max_tgt], [B, h, 1, max_src]
    std::vector<int32_t> generated;            // [B, max_tgt]
    std::vector<int32_t> step_tokens;          // [B]
    std::vector<uint8_t> finished;             // [B]
    // Stepwise decoding.
    DecodeState decode;
    Buffer causal_mask;                        // causal text models: [max_src, max_src] (fill_causal_mask)
    Buffer cache_bias;                         // causal text models: [B, max_context] 0 or lowest per cached key
    Buffer step_maps;                          // causal text models: [n_layers, B, h, max_context], last step
    std::vector<AttentionMap> step_maps_view;  // per layer, over step_maps
    Buffer sample_probs;                       // [vocab] sampler scratch
    std::vector<int32_t> sample_order;         // [vocab] sampler scratch
    std::vector<int32_t> next_input;           // [B] the token each item consumes next (causal text)
    std::vector<int32_t> next_position;        // [B] its position id
    std::vector<uint8_t> memory_padding;       // [B * max_src] generate_begin's copy of the source padding
    size_t encoder_slot = 0, decoder_self_slot = 0, decoder_cross_slot = 0;  // floats per layer slot

    std::vector<AttentionMap> encoder_maps, decoder_self_maps, decoder_cross_maps;
    const float* output = nullptr;
    size_t output_rows = 0;
    const float* logits_out = nullptr;
    size_t logits_cols = 0;
    const float* pooler_out = nullptr;
    size_t generated_length = 0;

    LayerScratch scratch();
    // Slots of `attention`: every encoder layer's (or the multihead_attention's), then each
    // decoder layer's self-attention slot followed by its cross-attention slot.
    float* encoder_slot_at(size_t layer);
    float* decoder_self_slot_at(size_t layer);
    float* decoder_cross_slot_at(size_t layer);
    // Records layer `layer`'s map of the given shape in `slot`; null when not recording.
    float* record(std::vector<AttentionMap>& maps, size_t layer, float* slot, size_t n_batch, size_t n_seq_q,
                  size_t n_seq_k, bool need_weights);
    void clear_maps();
};

}  // namespace simdformer::detail

namespace simdformer {
using detail::DecodeState;
using detail::ModelImpl;
using detail::WorkspaceImpl;
using detail::choose_tokens;
using detail::fill_causal_mask;
}  // namespace simdformer
