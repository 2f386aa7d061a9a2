// What the Hugging Face text families share (TextEncoder, CausalLm): their config, the token
// embeddings, the stack of layers and its final norm, the checks of a TextRequest, and the
// workspace buffers of a forward_text. Each family's runner holds one TextStack and adds its
// heads (pooler, masked-LM head; LM head) and, for CausalLm, its decoding.
#pragma once

#include <optional>
#include <vector>

#include "simdformer/layers/encoder_layer.h"
#include "simdformer/layers/rotary.h"
#include "simdformer/layers/text_embeddings.h"
#include "simdformer/model/runner.h"

namespace simdformer::detail {

// Where forward_text copies one layer's q, k, v and context (and for rotary models q and k before
// the rotation): out [tokens * ModelConfig::probe_width()] (TextRequest::probe_out).
struct LayerProbe {
    size_t layer = 0;
    float* out = nullptr;
    const ModelConfig* shape = nullptr;  // the runner's layer-stack shape (TextStack::load's *shape)
};

// The workspace of a text family's forward_text.
struct TextWorkspace : WorkspaceImpl {
    size_t max_len = 0;                 // tokens per item
    Buffer x;                           // [B*max_len, d] activations
    Buffer logits;                      // [rows scored, vocab]
    Buffer key_bias;                    // [B*max_len] 0 or float lowest per key (padding)
    Buffer head_in, head_hidden;        // [max_logits_rows, d] each: the rows a head scores
    Buffer pooled;                      // TextEncoder: [B, d]
    Buffer classifier_hidden;           // TextEncoder: [B, d] the classifier's dense output
    Buffer classifier_logits;           // TextEncoder: [B, num_labels]
    Buffer rope_cos, rope_sin;          // rotary models: [B*max_len, head_dim / 2] per call
    Buffer token_logits;                // TextEncoder: [B*max_len, num_labels or 2] the token head's
    std::vector<int32_t> position_ids;  // [B*max_len]
};

// Limits with the text families' defaults: max_src_len 0 = every position; they have no target
// (max_tgt_len 0 = max_src_len, and nothing is sized by it).
WorkspaceLimits text_limits(const WorkspaceLimits& requested, const TextConfig& config);
// Like Hugging Face's from_pretrained, tensors of heads simdformer does not run (a classifier,
// say) are not an error: the ones the adapter names as ignored are accepted, the others returned
// (info_json() lists them).
std::vector<std::string> accept_unused(WeightReader& reader, const TextModelRef& names);

// The largest of n_batch x n_seq positions (item b's at positions + b * stride), plus one.
size_t longest_sequence(size_t n_batch, size_t n_seq, const int32_t* positions, size_t stride);
// attention_mask [n] holds only 0 and 1.
Status check_attention_mask(const uint8_t* mask, size_t n);

struct TextStack {
    TextConfig config;
    TextEmbeddings embeddings;
    std::vector<EncoderLayer> layers;
    std::optional<LayerNorm> final_norm;  // GPT-2's ln_f, Llama's norm (an RMSNorm)
    std::optional<Rotary> rotary;         // Llama, Qwen2, Mistral

    // The embeddings, the layers and the final norm of `spec`; the layer-stack shape in *shape.
    static Result<TextStack> load(const TextSpec& spec, WeightReader& reader, ModelConfig* shape);
    // The family-neutral keys of Model::info_json().
    nlohmann::json info() const;
    // Scaled dot-product, or plain dot products for GPT-2 with scale_attn_weights false.
    AttentionOptions attention_options() const;

    // Resolves the limits (max_src_len 0: every position) and plans a forward_text's buffers,
    // with logits of `vocab` columns for up to max_logits_rows rows and maps when recording.
    void plan(const ModelConfig& shape, size_t vocab, TextWorkspace& w, BufferPlan& p) const;
    void size_vectors(TextWorkspace& w) const;
    // What a forward_text call checks before it runs: the workspace, the batch and the ids
    // (check_request), the rows a head scores (check_logits_rows; has_head: the family's head
    // exists), and the probe (check_probe). Families check their own heads in between.
    Status check_request(const Runner& owner, const TextRequest& r, const TextWorkspace& ws) const;
    Status check_logits_rows(const TextRequest& r, const TextWorkspace& ws, bool has_head) const;
    Status check_probe(const TextRequest& r) const;
    // Rotary models: cos and sin of the positions of n_seq new rows per item (item b's at
    // positions + b * stride) into the workspace, rows b * n_seq + i, and masks->rope_cos /
    // rope_sin pointing at them (nothing for other models). seq_len: the call's largest position
    // + 1 as Hugging Face's call sees it (dynamic scaling's length; longest_sequence).
    void rotary_rows(size_t n_batch, size_t n_seq, const int32_t* positions, size_t stride, size_t seq_len,
                     TextWorkspace& ws, SequenceMasks* masks) const;
    // Each item's embeddings at ws.position_ids, and the padding bias of every key.
    void embed(const TextRequest& r, TextWorkspace& ws) const;
    // The layers over x [n_batch * n_seq, d] in place, then the final norm; with a probe, that
    // layer's q, k, v and context are copied out.
    void run(size_t n_batch, size_t n_seq, const SequenceMasks& masks, bool need_weights, TextWorkspace& ws,
             const LayerProbe* probe) const;
    // The probed layer's projections from the scratch into out (LayerProbe).
    void copy_probe(size_t tokens, const LayerScratch& s, const SequenceMasks& masks, const LayerProbe& probe) const;
    // Rows r.logits_rows of the last hidden state into ws.head_in.
    void gather_rows(const TextRequest& r, TextWorkspace& ws) const;
};

}  // namespace simdformer::detail
