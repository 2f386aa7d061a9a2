// Model: any checkpoint simdformer reads, whatever its family: PyTorch's nn.MultiheadAttention,
// nn.TransformerEncoderLayer / Encoder, nn.TransformerDecoderLayer / Decoder and nn.Transformer
// (optionally with token embeddings and an output generator) in simdformer's nn.Transformer
// dialect; Hugging Face encoders (BERT, RoBERTa, DistilBERT); Hugging Face GPT-2. Loaded from
// safetensors; each family runs behind the same Model and Workspace (model/runner.h).
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
#include <optional>
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

// How decoding picks each next token from a row of logits (model/sampler.cpp), in the order
// Hugging Face's generate applies them: temperature, then top-k, then top-p, then a draw.
struct SamplerOptions {
    float temperature = 0.0f;  // 0: greedy (the argmax, first on ties); > 0: sample softmax(logits / temperature)
    size_t top_k = 0;          // sampling: keep tokens scoring >= the k-th best (ties kept, as HF); 0 or >= vocab: all
    float top_p = 1.0f;        // sampling: keep the most likely tokens whose probabilities reach top_p (HF's rule; 0: the best)
    uint64_t seed = 0;         // state of the PRNG (SplitMix64): the same seed repeats a run exactly
};

struct GenerateRequest {
    size_t n_batch = 1;
    SequenceInput src;      // source tokens (+ padding)
    size_t max_length = 0;  // maximum target length including bos (0: config.max_len)
    int64_t bos = -1;       // -1: config.bos_token
    int64_t eos = -1;       // -1: config.eos_token (decoding of an item stops after eos)
    AttentionOptions options;
    bool need_weights = false;
    SamplerOptions sampler;  // greedy by default
    // Called after every decoding step with (user, steps done, most steps possible); optional.
    void (*on_step)(void* user, size_t step, size_t max_steps) = nullptr;
    void* on_step_user = nullptr;
};

// Token-by-token decoding of a causal language model (GPT-2), one step per call of
// Model::decode_step so a caller can stream tokens, stop at any step or do other work between
// steps. Position ids follow Hugging Face's generate: the count of real tokens before a token.
struct DecodeRequest {
    size_t n_batch = 1, n_seq = 0;
    const int32_t* tokens = nullptr;          // [n_batch, n_seq] prompts, padded on the left
    const uint8_t* attention_mask = nullptr;  // [n_batch, n_seq] 1 = token, 0 = padding; or null (no padding)
    size_t max_new_tokens = 0;                // steps at most; n_seq + max_new_tokens <= the workspace's max_context
    SamplerOptions sampler;
    const int32_t* stop_tokens = nullptr;     // [n_stop_tokens]: an item ends once it produced one of these
    size_t n_stop_tokens = 0;
    int64_t pad_token = -1;                   // what ended items produce (-1: the first stop token, else 0)
    bool need_weights = false;                // record every step's attention over the context
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
    bool need_classifier = false;             // the sequence-classification head (checkpoints of a
                                              // ...ForSequenceClassification): raw logits per item
    bool need_token_logits = false;           // the token head on every token (...ForTokenClassification:
                                              // num_labels logits; ...ForQuestionAnswering: start, end)
    const int32_t* logits_rows = nullptr;     // [n_logits_rows] flat rows b * n_seq + i for the MLM head
    size_t n_logits_rows = 0;
    // The step-by-step view of one layer: when probe_out is set, layer probe_layer's projections
    // are copied out as computed — q, k, v (bias added, not yet scaled; rotated, for rotary
    // models) and the per-head context Σ_j α_ij v_j (before the output projection), heads side by
    // side (head h = columns h * d_head ...), one block after the other: q [T, q_width], k [T,
    // kv_width], v [T, kv_width], context [T, q_width], and for rotary models q and k before the
    // rotation, [T, q_width] and [T, kv_width] (T = n_batch * n_seq; widths: ModelConfig, which is
    // d_model each but for grouped-query attention or an explicit head_dim).
    // probe_out [T * config().probe_width()].
    float* probe_out = nullptr;
    size_t probe_layer = 0;
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
    size_t max_logits_rows = 0;    // text models: most rows forward_text() scores with the MLM / LM head
    size_t max_context = 0;        // causal text models: key/value cache positions per item for
                                   // decode_begin/decode_step (prompt + new tokens); 0: no cache
};

// The workspace one call needs: forward_text (rows, record_attention, logits rows) and
// decode_begin (the prompt, and a cache of prompt + max_new_tokens positions per item; fails when
// that exceeds 2^32 - 1).
WorkspaceLimits workspace_limits(const TextRequest& request);
Result<WorkspaceLimits> workspace_limits(const DecodeRequest& request);

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
    // The normalized config as JSON: architecture (bert|roberta|xlm-roberta|distilbert|gpt2|
    // llama|qwen2|mistral|ministral|torch), model_type, d_model, n_layers, n_heads, d_ff, vocab_size,
    // max_positions, type_vocab_size, pad/bos/eos_token_id, eos_token_ids, unused_token_ids (the
    // config's special-token ids outside the vocabulary), hidden_act, layer_norm_eps, norm,
    // n_kv_heads, head_dim, rotary (or null), sliding_window, first_window_layer (the first layer
    // with the window) and window_layers (every layer with it: layer_types may alternate) or null,
    // has_pooler, has_mlm_head, has_lm_head, has_classifier (with num_labels, labels and
    // problem_type, or null), has_token_classifier (also with labels) and has_qa_head (text
    // encoders only), causal, parameters, dtype (as stored), weights, unused_tensors, and config
    // (the original object). The nn.Transformer dialect has its own keys (its config's).
    std::string info_json() const;

    Result<Workspace> make_workspace(const WorkspaceLimits& limits) const;
    // The sizing policy of callers that keep one workspace per model across calls of every size
    // (the JavaScript bindings), sized per call: *ws is kept when it fits `want` and is at most 4x
    // what `want` needs (or a decoding is under way in it); otherwise it is re-created (the old
    // one freed first: the new one may need its memory) for `want`, or for the union of the old
    // limits and `want` when that costs at most 2x `want` alone. Never the product of past
    // maxima. A failure leaves *ws empty.
    Status ensure_workspace(std::optional<Workspace>* ws, const WorkspaceLimits& want) const;

    // One forward pass. Output (ws.output()): the attention output for multihead_attention,
    // the encoder output for encoder kinds, the decoder output for decoder kinds and
    // transformer; ws.logits() holds generator scores [n_batch, n_seq_tgt, tgt_vocab] when the
    // model has a generator.
    Status forward(const ForwardRequest& request, Workspace& ws) const;

    // Greedy decoding with a key/value cache (transformer with token embeddings and generator).
    // Tokens land in ws.generated() [n_batch, ws.generated_length()]; positions after an item's
    // eos hold eos.
    Status generate(const GenerateRequest& request, Workspace& ws) const;

    // One forward pass of a text model with Hugging Face semantics. Output: ws.output() the
    // last hidden state [n_batch * n_seq, d_model]; ws.encoder_attention() per layer
    // [n_batch, n_heads, n_seq, n_seq] (need_weights); ws.pooler() [n_batch, d_model]
    // (need_pooler); ws.logits() [n_logits_rows, vocab] (logits_rows: MLM or LM head);
    // ws.classifier_logits() [n_batch, num_labels] (need_classifier); ws.token_logits()
    // [n_batch * n_seq, num_labels or 2] (need_token_logits).
    // GPT-2: causal, position ids arange(n_seq) even for padded rows (as HF's forward).
    Status forward_text(const TextRequest& request, Workspace& ws) const;

    // Stepwise decoding. Begin with decode_begin (a causal text model: runs the prompt but its
    // last token into the key/value cache) or generate_begin (a transformer with token
    // embeddings: encodes the source, projects every layer's cross-attention keys and values
    // once, starts each item at bos). Each decode_step then consumes one token per item,
    // appends its keys and values to the cache, and chooses the next token (ws.step_tokens());
    // steps end when every item produced a stop token (eos) or the step budget is used
    // (ws.decode_done()). Nothing is allocated after the begin call; other calls on the same
    // workspace between steps would overwrite shared scratch only, never the decoding state,
    // but a workspace re-created in between loses it. generate_finish packs a transformer's
    // results as generate() leaves them; end_decoding (on the workspace) forgets the state.
    Status decode_begin(const DecodeRequest& request, Workspace& ws) const;
    Status generate_begin(const GenerateRequest& request, Workspace& ws) const;
    Status decode_step(Workspace& ws) const;
    Status generate_finish(Workspace& ws) const;

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
    // [n_batch, num_labels] of the last forward_text with need_classifier, or null; num_labels,
    // labels and problem_type are in Model::info_json().
    const float* classifier_logits() const;
    // [n_batch * n_seq, cols] of the last forward_text with need_token_logits, or null: cols is
    // num_labels (info_json) for a token classifier, 2 (start, end) for a question-answering head.
    const float* token_logits() const;
    size_t logits_cols() const;
    const int32_t* generated() const;             // [n_batch, generated_length()]
    size_t generated_length() const;
    const std::vector<AttentionMap>& encoder_attention() const;  // one per encoder layer
    const std::vector<AttentionMap>& decoder_self_attention() const;
    const std::vector<AttentionMap>& decoder_cross_attention() const;
    const WorkspaceLimits& limits() const;
    size_t bytes() const;

    // Stepwise decoding (Model::decode_begin / generate_begin, decode_step).
    bool decoding() const;                     // begun and not ended
    bool decode_done() const;                  // every item ended, or the step budget is used
    size_t decode_steps() const;               // steps done since the begin call
    const int32_t* step_tokens() const;        // [n_batch] the tokens the last step chose
    const uint8_t* step_finished() const;      // [n_batch] 1 once an item produced a stop token
    // Causal text models with need_weights: per layer, the last step's attention of the
    // consumed token over every cached position, [n_batch, n_heads, 1, context]. The logits of
    // the last step are logits() [n_batch, vocab].
    const std::vector<AttentionMap>& step_attention() const;
    void end_decoding();

private:
    friend class Model;
    std::unique_ptr<detail::WorkspaceImpl> impl_;
};

}  // namespace simdformer
