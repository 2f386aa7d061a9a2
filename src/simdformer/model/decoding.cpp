#include "simdformer/model/decoding.h"

namespace simdformer::detail {

void Decoding::plan(size_t vocab_size, BufferPlan& p) {
    p.add(&sample_probs, vocab_size, "workspace.sample_probs");
}

void Decoding::size_vectors(size_t max_batch) {
    step_tokens.assign(max_batch, 0);
    finished.assign(max_batch, 0);
    sample_order.assign(sample_probs.size(), 0);
}

void Decoding::begin(size_t items, size_t most_steps, size_t vocab_size, const SamplerOptions& options) {
    active = false;
    done = false;
    n_batch = items;
    steps = 0;
    max_steps = most_steps;
    vocab = vocab_size;
    n_stop = 0;
    pad = 0;
    sampler = Sampler(options);
    for (size_t b = 0; b < items; ++b) finished[b] = 0;
}

void Decoding::choose_tokens(const float* logits, size_t ld) {
    bool all_ended = true;
    for (size_t b = 0; b < n_batch; ++b) {
        int32_t next = pad;  // an item that has ended produces the pad token (HF's generate does the same)
        if (!finished[b]) {
            next = sampler.sample(logits + b * ld, vocab, sample_probs.data(), sample_order.data());
            for (size_t i = 0; i < n_stop; ++i)
                if (stop[i] == next) finished[b] = 1;
        }
        step_tokens[b] = next;
        all_ended = all_ended && finished[b];
    }
    ++steps;
    done = all_ended || steps >= max_steps;
}

}  // namespace simdformer::detail
