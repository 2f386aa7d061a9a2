#include "simdformer/model/decoding.h"

#include <cmath>

namespace simdformer::detail {
namespace {

// Whether logits [vocab] name a token to choose: no NaN (argmax and the softmax would read it as
// anything, e.g. token 0 on every step), and one logit above -inf (a softmax of nothing but
// -inf is 0/0; torch.multinomial refuses such probabilities). +inf is a token that wins: greedy
// takes the first one, sampling draws among them (the sampler's limit).
Status check_logits(const float* logits, size_t vocab, size_t item) {
    bool any_above = false;
    for (size_t i = 0; i < vocab; ++i) {
        if (std::isnan(logits[i]))
            return Status::invalid(cat({"decode_step: the logits of item ", item, " are NaN (token ", i,
                                        "): the model's weights or activations hold NaN or overflowed"}));
        any_above = any_above || logits[i] > -INFINITY;
    }
    if (!any_above)
        return Status::invalid(cat({"decode_step: every logit of item ", item,
                                    " is -inf: there is no token to choose (weights or activations overflowed)"}));
    return Status::ok();
}

}  // namespace

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

Status Decoding::choose_tokens(const float* logits, size_t ld) {
    for (size_t b = 0; b < n_batch; ++b) {
        if (finished[b]) continue;
        const Status st = check_logits(logits + b * ld, vocab, b);
        if (!st.is_ok()) {
            done = true;  // no further step: the next ones would read the same broken numbers
            return st;
        }
    }
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
    return Status::ok();
}

}  // namespace simdformer::detail
