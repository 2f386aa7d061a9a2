// The CausalLm family: Hugging Face decoder-only language models, with HF's semantics:
//   GPT-2: x = wte[id] + wpe[i] (i = 0 .. n-1, also for padded rows, as HF's forward)
//          each block: x = x + SelfAttention(ln_1(x), causal, key bias); x = x + MLP(ln_2(x))
//          last hidden state = ln_f(x);  LM logits = ln_f(x) Eᵀ (E = wte, tied; or lm_head [vocab, d])
//   Llama, Qwen2, Mistral: x = embed_tokens[id]; each layer:
//          x = x + o(attend(rotary(q(n1(x))), rotary(k(n1(x))), v(n1(x))))   (n1, n2 RMSNorms;
//          x = x + down(silu(gate(n2(x))) * up(n2(x)))                        grouped-query heads)
//          last hidden state = norm(x); logits = norm(x) lm_headᵀ (or tied to embed_tokens)
// Both are a TextStack of pre-norm EncoderLayers; the tensor refs and the masks choose the parts.
// forward_text runs whole prompts (model/causal_lm.cpp); decode_begin / decode_step generate
// token by token over a key/value cache (model/causal_lm_decode.cpp).
#pragma once

#include "simdformer/model/text_stack.h"

namespace simdformer::detail {

struct CausalLmWorkspace : TextWorkspace {
    Buffer causal_mask;                    // [max_len, max_len] (fill_causal_mask)
    Buffer window_mask;                    // sliding-window models: that mask with the window
    // Decoding (max_context > 0): per layer the keys and values of every position so far
    // [B, max_context, kv_width]; the padding bias of every cached key [B, max_context]; the
    // last step's maps [n_layers, B, h, max_context].
    size_t max_context = 0;
    std::vector<Buffer> cache_k, cache_v;
    Buffer cache_bias;
    Buffer step_maps_data;
    size_t past = 0;                       // positions cached per item
    size_t rotary_seq_len = 0;             // the longest sequence this decoding has seen (dynamic rope)
    std::vector<int32_t> next_input;       // [B] the token each item consumes next
    std::vector<int32_t> next_position;    // [B] its position id
};

// Hugging Face's causal mask as an additive matrix [n_q, n_k] for n_q queries at key positions
// n_k - n_q .. n_k - 1: 0 where a query may look, float's lowest elsewhere (torch.where(causal, s,
// finfo.min); with the padding mask added on top, a key that is both in the future and padding
// gets -inf, exactly as in HF's GPT-2). window > 0 (Mistral's sliding_window) also hides keys at
// least `window` positions back: query q sees keys q - window < k <= q.
void fill_causal_mask(size_t n_q, size_t n_k, size_t window, float* mask);

class CausalLm : public Runner {
public:
    static Result<std::unique_ptr<Runner>> load(const RunnerSpec& spec, WeightReader& reader);

    Family family() const override { return Family::kCausalLm; }
    nlohmann::json info() const override;
    Result<std::unique_ptr<WorkspaceImpl>> make_workspace(const WorkspaceLimits& limits, bool allocate) const override;
    Status forward(const ForwardRequest& request, WorkspaceImpl& ws) const override;
    Status forward_text(const TextRequest& request, WorkspaceImpl& ws) const override;
    Status decode_begin(const DecodeRequest& request, WorkspaceImpl& ws) const override;
    Status decode_step(WorkspaceImpl& ws) const override;

private:
    explicit CausalLm(TextStack stack) : stack_(std::move(stack)) {}
    // The LM head: the word table (tied) or lm_head [vocab, d].
    const Linear& lm() const { return lm_head_ ? *lm_head_ : stack_.embeddings.word_table(); }
    void plan(CausalLmWorkspace& w, BufferPlan& p) const;
    // Sliding-window models: the windowed causal mask [n_q, n_k] into ws and masks (else nothing).
    void window_masks(size_t n_q, size_t n_k, CausalLmWorkspace& ws, SequenceMasks* masks) const;
    // Decoding (model/causal_lm_decode.cpp).
    Status check_decode(const DecodeRequest& r, const CausalLmWorkspace& ws) const;
    Status check_stop_tokens(const DecodeRequest& r) const;
    void prefill(const DecodeRequest& r, CausalLmWorkspace& ws) const;

    TextStack stack_;
    std::optional<Linear> lm_head_;  // untied LM head
    bool has_lm_head_ = true;        // false: a bare decoder (LlamaModel) saved without lm_head
    std::vector<std::string> unused_tensors_;
};

}  // namespace simdformer::detail
