// Where stepwise decoding stands, for both decoding families (TorchStack's encoder-decoder
// generate and CausalLm's decode), and the end of every step they share: pick each item's next
// token, notice stop tokens, count the step. Only sizes, options and state live here: nothing
// points into the caller's memory, so a step needs nothing but the workspace.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "simdformer/buffer.h"
#include "simdformer/model/buffer_plan.h"
#include "simdformer/model/sampler.h"

namespace simdformer::detail {

// Stop tokens one decoding holds (a model may list many eos ids: generation_config.json's
// eos_token_id is a list, and some have a hundred or more). Stored in the state, so no step allocates.
constexpr size_t kMaxStopTokens = 1024;

struct Decoding {
    bool active = false;
    bool done = false;            // every item ended or max_steps reached
    size_t n_batch = 0;
    size_t steps = 0, max_steps = 0;
    size_t vocab = 0;
    std::array<int32_t, kMaxStopTokens> stop{};
    size_t n_stop = 0;
    int32_t pad = 0;              // what ended items produce
    Sampler sampler;

    std::vector<int32_t> step_tokens;  // [B] the tokens the last step chose
    std::vector<uint8_t> finished;     // [B] 1 once an item produced a stop token
    Buffer sample_probs;               // [vocab] sampler scratch
    std::vector<int32_t> sample_order;  // [vocab] sampler scratch

    // The sampler's scratch for `vocab` logits; then, once allocated, the per-item vectors.
    void plan(size_t vocab, BufferPlan& plan);
    void size_vectors(size_t max_batch);  // after the plan is allocated
    // Forgets the previous decoding and starts one of n_batch items and max_steps steps.
    void begin(size_t n_batch, size_t max_steps, size_t vocab, const SamplerOptions& sampler);
    void add_stop(int32_t token) { stop[n_stop++] = token; }
    // Picks each item's token from logits [n_batch, ld] (ended items get the pad token), marks
    // items that produced a stop token, counts the step and decides whether decoding is done.
    // Logits with no token to choose (a NaN, or every one -inf: weights or activations that
    // overflowed) end the decoding with an error instead of a token that means nothing.
    Status choose_tokens(const float* logits, size_t ld);
};

}  // namespace simdformer::detail
