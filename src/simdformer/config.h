// Model and call configuration, with PyTorch's names where PyTorch has one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "simdformer/activation.h"
#include "simdformer/status.h"

namespace simdformer {

// How a query is compared with a key.
enum class ScoreKind {
    kScaledDot,  // q·k / sqrt(d_head)   (the Transformer's default)
    kDot,        // q·k
    kAdditive,   // w_vᵀ tanh(W_q q + W_k k)   (Bahdanau; needs additive weights)
};

// How scores become weights.
enum class NormalizeKind {
    kSoftmax,  // default
    kRelu,     // relu(s) / n_valid_keys   (Wortsman et al. 2023)
};

struct AttentionOptions {
    ScoreKind score = ScoreKind::kScaledDot;
    NormalizeKind normalize = NormalizeKind::kSoftmax;
};

// Which PyTorch module a model of the nn.Transformer dialect is (its config's "model_type"). The
// words for what a checkpoint is are architecture and family (arch/architecture.h); this one
// only tells the TorchStack family's modules apart.
enum class TorchModule {
    kMultiheadAttention,  // nn.MultiheadAttention
    kEncoderLayer,        // nn.TransformerEncoderLayer
    kEncoder,             // nn.TransformerEncoder
    kDecoderLayer,        // nn.TransformerDecoderLayer
    kDecoder,             // nn.TransformerDecoder
    kTransformer,         // nn.Transformer
};

enum class PositionalKind { kNone, kSinusoidal, kLearned };

// The JSON config of a model file. Field names follow PyTorch (d_model, nhead, ...); the token
// fields (vocabularies, positions, generator) describe simdformer's optional embedding layers.
struct ModelConfig {
    TorchModule kind = TorchModule::kEncoder;  // the module ("model_type")
    size_t d_model = 0;
    size_t nhead = 1;
    size_t dim_feedforward = 0;
    Activation activation = Activation::kRelu;  // "relu" | "gelu" | "gelu_tanh"
    bool norm_first = false;
    float layer_norm_eps = 1e-5f;
    size_t num_encoder_layers = 0;
    size_t num_decoder_layers = 0;
    size_t additive_dim = 0;  // d_a of the optional additive-score weights (0 = none)
    // Rotary decoders (Llama, Qwen2, Mistral) only; the nn.Transformer dialect keeps the
    // defaults. Grouped-query attention: n_kv_heads heads of keys and values (0 = nhead), each
    // read by nhead / n_kv_heads query heads; head_dim may be given explicitly (0 = d_model /
    // nhead), so the attention width nhead * head_dim need not be d_model. A gated feed-forward
    // (SwiGLU) holds two d_ff-wide products per row.
    size_t n_kv_heads = 0;
    size_t head_dim = 0;
    bool gated_feed_forward = false;
    bool rotary_positions = false;  // q and k rotated by position (Llama) before they meet

    // Token models: vocab 0 means the model takes vectors [n, d_model] directly.
    size_t src_vocab_size = 0;
    size_t tgt_vocab_size = 0;
    size_t max_len = 512;            // longest sequence accepted (and learned-position table size)
    PositionalKind positional = PositionalKind::kNone;
    bool scale_embedding = false;    // multiply embeddings by sqrt(d_model) (Vaswani et al.)
    int64_t bos_token = -1;
    int64_t eos_token = -1;

    size_t d_head() const { return head_dim ? head_dim : nhead ? d_model / nhead : 0; }
    size_t kv_heads() const { return n_kv_heads ? n_kv_heads : nhead; }
    size_t q_width() const { return nhead * d_head(); }       // queries and context per row
    size_t kv_width() const { return kv_heads() * d_head(); }  // keys (and values) per row
    // Floats per token of TextRequest::probe_out: q, k, v, context, and with rotary positions q
    // and k before the rotation.
    size_t probe_width() const {
        return 2 * q_width() + 2 * kv_width() + (rotary_positions ? q_width() + kv_width() : 0);
    }
    bool has_encoder() const;
    bool has_decoder() const;
    Status validate() const;
};

// Parses a config JSON object. Unknown keys are ignored only if PyTorch has them (dropout,
// batch_first, ...); any other unknown key is an error so typos do not pass silently.
Result<ModelConfig> parse_model_config(const std::string& json);
std::string torch_module_name(TorchModule kind);
// The config as JSON with the same keys parse_model_config reads.
std::string model_config_to_json(const ModelConfig& config);
std::string activation_name(Activation act);

}  // namespace simdformer
