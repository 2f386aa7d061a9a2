// Model: any of the supported PyTorch modules (nn.MultiheadAttention, nn.TransformerEncoderLayer,
// nn.TransformerEncoder, nn.TransformerDecoderLayer, nn.TransformerDecoder, nn.Transformer),
// optionally with token embeddings and an output generator, loaded from safetensors.
//
// Usage:
//   Result<Model> model = Model::load(bytes, size, config_json);   // weights packed once here
//   WorkspaceLimits limits;
//   limits.max_batch = 4;
//   limits.max_src_len = 128;
//   Result<Workspace> ws = model.value().make_workspace(limits);    // buffers allocated once here
//   ForwardRequest request;
//   request.n_batch = 1;
//   request.src.n_seq = n;
//   request.src.embeddings = x;                                       // [1, n, d_model]
//   Status st = model.value().forward(request, ws.value());          // allocation-free
//   const float* out = ws.value().output();                           // [n_batch, n_seq, d_model]
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "simdformer/config.h"
#include "simdformer/io.h"
#include "simdformer/status.h"

namespace simdformer {

class Workspace;
class WeightReader;  // internal: where a model's named tensors come from (io/weight_reader.h)

namespace detail {
struct ModelImpl;
struct WorkspaceImpl;
}  // namespace detail

// Inputs of one forward pass. For token models set `tokens`, otherwise `embeddings`.
struct SequenceInput {
    size_t n_seq = 0;
    const float* embeddings = nullptr;  // [n_batch, n_seq, d_model]
    const int32_t* tokens = nullptr;    // [n_batch, n_seq]
    const uint8_t* key_padding = nullptr;  // [n_batch, n_seq]; 1 = padding (ignored as a key)
    const float* attn_mask = nullptr;   // [n_seq, n_seq] additive float mask (-inf = masked), or null
    bool causal = false;                // mask keys after the query position
};

struct ForwardRequest {
    size_t n_batch = 1;
    SequenceInput src;  // encoder input, or the query of multihead_attention
    SequenceInput tgt;  // decoder input (decoder, decoder_layer, transformer)
    // multihead_attention only: key and value sequences (default: the query, i.e. self-attention).
    const float* key = nullptr;    // [n_batch, n_seq_k, d_model]
    const float* value = nullptr;  // [n_batch, n_seq_k, d_model]
    size_t n_seq_k = 0;
    const uint8_t* key_padding_k = nullptr;  // [n_batch, n_seq_k] padding of `key`
    // decoder and decoder_layer only: the encoder memory [n_batch, n_seq_memory, d_model].
    const float* memory = nullptr;
    size_t n_seq_memory = 0;
    const uint8_t* memory_key_padding = nullptr;  // [n_batch, n_seq_memory]
    AttentionOptions options;
    bool need_weights = false;  // record every layer's per-head attention weights
    bool encoder_only = false;  // transformer: run only the encoder (output = memory)
};

struct GenerateRequest {
    size_t n_batch = 1;
    SequenceInput src;      // source tokens (+ padding)
    size_t max_length = 0;  // maximum target length including bos (0: config.max_len)
    int64_t bos = -1;       // -1: config.bos_token
    int64_t eos = -1;       // -1: config.eos_token (decoding of an item stops after eos)
    AttentionOptions options;
    bool need_weights = false;
    // Called after every decoding step with (user, steps done, most steps possible); optional.
    void (*on_step)(void* user, size_t step, size_t max_steps) = nullptr;
    void* on_step_user = nullptr;
};

// Inputs of one forward pass of a Hugging Face text encoder (bert, roberta, distilbert).
struct TextRequest {
    size_t n_batch = 1, n_seq = 0;
    const int32_t* tokens = nullptr;          // [n_batch, n_seq] token ids
    const int32_t* token_types = nullptr;     // [n_batch, n_seq] segment ids, or null (all 0)
    const uint8_t* attention_mask = nullptr;  // [n_batch, n_seq]: 1 = real token, 0 = padding
                                              // (Hugging Face's convention), or null (all real)
    bool need_weights = false;                // record every layer's per-head attention weights
    bool need_pooler = false;                 // dense + tanh on each item's first token
    const int32_t* logits_rows = nullptr;     // [n_logits_rows] flat rows b * n_seq + i for the MLM head
    size_t n_logits_rows = 0;
};

// Attention weights recorded by the last call, as views into the workspace.
struct AttentionMap {
    const float* data = nullptr;  // [n_batch, nhead, n_seq_q, n_seq_k]
    size_t n_batch = 0, nhead = 0, n_seq_q = 0, n_seq_k = 0;
};

// The mean over heads of a map: out [n_batch, n_seq_q, n_seq_k] (nn.MultiheadAttention's
// average_attn_weights=True).
void average_heads(const AttentionMap& map, float* out);

struct WorkspaceLimits {
    size_t max_batch = 1;
    size_t max_src_len = 0;    // 0: config.max_len (also the query length of multihead_attention)
    size_t max_tgt_len = 0;    // 0: config.max_len (also the key length of multihead_attention);
                               // encoder-only models: 0 = max_src_len (they have no target)
    bool record_attention = true;  // reserve room for every layer's attention weights
    size_t max_logits_rows = 0;    // text models: most rows forward_text() scores with the MLM head
};

class Model {
public:
    Model();
    ~Model();
    Model(Model&&) noexcept;
    Model& operator=(Model&&) noexcept;

    // Loads from safetensors bytes. config_json may be empty when the file's metadata holds
    // the config under the key "config". Nothing is half-loaded: any problem fails the load.
    static Result<Model> load(const uint8_t* data, size_t size, const std::string& config_json);
    // Loads from any WeightReader; fails if a tensor is missing, misshapen or (for readers that
    // can tell) left unused.
    static Result<Model> load(WeightReader& reader, const ModelConfig& config);
    // Loads a checkpoint folder's contents: config.json text (Hugging Face bert / roberta /
    // distilbert, or the nn.Transformer dialect; empty: taken from the safetensors metadata),
    // one safetensors source or several shards with model.safetensors.index.json text. Bytes are
    // pulled tensor by tensor in bounded chunks and packed as they arrive.
    static Result<Model> load_checkpoint(const std::string& config_json, const std::vector<CheckpointShard>& shards,
                                         const std::string& index_json, const LoadOptions& options = {});

    // The layer-stack shape (for text models: an encoder of n_layers with their sizes).
    const ModelConfig& config() const;
    size_t parameter_count() const;
    // The normalized config as JSON: architecture (bert|roberta|distilbert|torch), model_type,
    // d_model, n_layers, n_heads, d_ff, vocab_size, max_positions, type_vocab_size, pad/bos/
    // eos_token_id, hidden_act, layer_norm_eps, has_pooler, has_mlm_head, has_lm_head, causal,
    // parameters, dtype (as stored), weights, unused_tensors, and config (the original object).
    std::string info_json() const;

    Result<Workspace> make_workspace(const WorkspaceLimits& limits) const;

    // One forward pass. Output (ws.output()): the attention output for multihead_attention,
    // the encoder output for encoder kinds, the decoder output for decoder kinds and
    // transformer; ws.logits() holds generator scores [n_batch, n_seq_tgt, tgt_vocab] when the
    // model has a generator.
    Status forward(const ForwardRequest& request, Workspace& ws) const;

    // Greedy decoding with a key/value cache (transformer with token embeddings and generator).
    // Tokens land in ws.generated() [n_batch, ws.generated_length()]; positions after an item's
    // eos hold eos.
    Status generate(const GenerateRequest& request, Workspace& ws) const;

    // One forward pass of a text encoder with Hugging Face semantics. Output: ws.output() the
    // last hidden state [n_batch * n_seq, d_model]; ws.encoder_attention() per layer
    // [n_batch, n_heads, n_seq, n_seq] (need_weights); ws.pooler() [n_batch, d_model]
    // (need_pooler); ws.logits() [n_logits_rows, vocab] (logits_rows).
    Status forward_text(const TextRequest& request, Workspace& ws) const;

private:
    std::unique_ptr<detail::ModelImpl> impl_;
};

// Buffers for forward passes of one model, allocated once (make_workspace), reused by every call.
class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;

    const float* output() const;                  // [n_batch, n_seq, d_model]
    size_t output_rows() const;                   // n_batch * n_seq of the last call
    const float* logits() const;                  // [rows, vocab] or null
    const float* pooler() const;                  // [n_batch, d_model] of the last forward_text, or null
    size_t logits_cols() const;
    const int32_t* generated() const;             // [n_batch, generated_length()]
    size_t generated_length() const;
    const std::vector<AttentionMap>& encoder_attention() const;  // one per encoder layer
    const std::vector<AttentionMap>& decoder_self_attention() const;
    const std::vector<AttentionMap>& decoder_cross_attention() const;
    const WorkspaceLimits& limits() const;
    size_t bytes() const;

private:
    friend class Model;
    std::unique_ptr<detail::WorkspaceImpl> impl_;
};

}  // namespace simdformer
