// The TorchStack family: PyTorch's nn.MultiheadAttention, nn.TransformerEncoderLayer / Encoder,
// nn.TransformerDecoderLayer / Decoder and nn.Transformer, with simdformer's optional token
// embeddings and generator (the nn.Transformer dialect, arch/torch.h). Forward passes on vectors
// or tokens (model/torch_stack.cpp), and greedy or sampled encoder-decoder generation with a
// key/value cache (model/torch_stack_generate.cpp).
#pragma once

#include <optional>
#include <vector>

#include "simdformer/layers/decoder_layer.h"
#include "simdformer/layers/encoder_layer.h"
#include "simdformer/layers/token_embedding.h"
#include "simdformer/model/runner.h"

namespace simdformer::detail {

// The TorchStack's workspace. Rows are sized by max(src, tgt) lengths; multihead_attention's
// queries are "src" and its keys "tgt".
struct TorchStackWorkspace : WorkspaceImpl {
    size_t max_src = 0, max_tgt = 0;
    Buffer x, y;                          // [B*max_src, d], [B*max_tgt, d] activations
    Buffer logits;                        // [B*max_tgt, tgt_vocab]
    std::vector<Buffer> cross_k, cross_v;  // per decoder layer [B*max_src, d]
    std::vector<Buffer> cache_k, cache_v;  // per decoder layer [B*max_tgt, d]
    size_t encoder_slot = 0, decoder_self_slot = 0, decoder_cross_slot = 0;  // floats per map slot
    // generate_begin ... generate_finish
    std::vector<CrossMemory> cross;        // per decoder layer
    Buffer step_self, step_cross;          // one step's maps: [B, h, 1, max_tgt], [B, h, 1, max_src]
    std::vector<int32_t> tokens;           // [B, max_tgt]: bos, then each step's choice
    std::vector<uint8_t> memory_padding;   // [B * max_src] generate_begin's copy of the source padding
    size_t n_seq_src = 0;
    AttentionOptions options;
    bool need_weights = false;

    // Slots of `attention`: every encoder layer's (or the attention module's), then each decoder
    // layer's self-attention slot followed by its cross-attention slot; null without recording.
    float* encoder_slot_at(size_t layer);
    float* decoder_self_slot_at(size_t layer);
    float* decoder_cross_slot_at(size_t layer);
};

class TorchStack : public Runner {
public:
    static Result<std::unique_ptr<Runner>> load(const RunnerSpec& spec, WeightReader& reader);

    Family family() const override { return Family::kTorchStack; }
    nlohmann::json info() const override;
    Result<std::unique_ptr<WorkspaceImpl>> make_workspace(const WorkspaceLimits& limits, bool allocate) const override;
    Status forward(const ForwardRequest& request, WorkspaceImpl& ws) const override;
    Status generate_begin(const GenerateRequest& request, WorkspaceImpl& ws) const override;
    Status decode_step(WorkspaceImpl& ws) const override;
    Status generate_finish(WorkspaceImpl& ws) const override;

private:
    // Checks of every call: the workspace is this model's and fits the batch and options.
    Status check_call(const WorkspaceImpl& ws, size_t n_batch, bool need_weights, const AttentionOptions& options) const;
    Status check_sequence(const SequenceInput& s, size_t n_batch, size_t max_len, const char* which,
                          const std::optional<TokenEmbedding>& embedding) const;
    void embed(const SequenceInput& s, size_t n_batch, const std::optional<TokenEmbedding>& embedding,
               float* out) const;
    void run_encoder(size_t n_batch, const SequenceInput& src, const AttentionOptions& options, bool need_weights,
                     TorchStackWorkspace& ws, float* x) const;
    void run_decoder(size_t n_batch, const SequenceInput& tgt, const float* memory, size_t n_seq_memory,
                     const uint8_t* memory_padding, const AttentionOptions& options, bool need_weights,
                     TorchStackWorkspace& ws, float* y) const;
    Status forward_attention(const ForwardRequest& r, TorchStackWorkspace& ws) const;
    Status forward_stacks(const ForwardRequest& r, TorchStackWorkspace& ws) const;
    Status check_decoder_inputs(const ForwardRequest& r, const TorchStackWorkspace& ws) const;
    Status check_attention_inputs(const ForwardRequest& r, const TorchStackWorkspace& ws) const;
    void plan(TorchStackWorkspace& w, BufferPlan& p) const;

    // Generation (model/torch_stack_generate.cpp).
    void encode_memory(const GenerateRequest& r, TorchStackWorkspace& ws) const;
    void step_forward(size_t t, TorchStackWorkspace& ws) const;
    void pack_generated(size_t length, TorchStackWorkspace& ws) const;

    std::string config_text_;
    std::optional<MultiHeadAttention> attention_;  // multihead_attention
    std::vector<EncoderLayer> encoder_;
    std::optional<LayerNorm> encoder_norm_;
    std::vector<DecoderLayer> decoder_;
    std::optional<LayerNorm> decoder_norm_;
    std::optional<TokenEmbedding> src_embedding_, tgt_embedding_;
    std::optional<Linear> generator_;              // [tgt_vocab, d_model]
};

}  // namespace simdformer::detail
