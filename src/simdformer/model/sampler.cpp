#include "simdformer/model/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "simdformer/io/number_text.h"

namespace simdformer {

uint64_t SplitMix64::next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SplitMix64::uniform() { return double(next() >> 11) * 0x1.0p-53; }

size_t argmax(const float* x, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

// top_k is not checked against the vocabulary: HF's TopKLogitsWarper takes min(top_k, vocab)
// (and candidates() keeps every token for a top_k >= vocab); top_p 0 keeps the best token, as
// HF's TopPLogitsWarper does (min_tokens_to_keep = 1).
Status check_sampler(const SamplerOptions& o, size_t) {
    if (!std::isfinite(o.temperature) || o.temperature < 0.0f)
        return Status::invalid(cat({"temperature=", float_text(o.temperature), " must be a finite number >= 0"}));
    if (!(o.top_p >= 0.0f && o.top_p <= 1.0f))
        return Status::invalid(cat({"top_p=", float_text(o.top_p), " must be in [0, 1]"}));
    return Status::ok();
}

namespace {

// HF's TemperatureLogitsWarper: s = logits / temperature. When that overflows (a temperature
// so small that the best scores pass the float range, or a +inf logit), the scores are taken
// relative to the best logit instead: (logit - best) / temperature is 0 for the best and < 0
// for the others, the same softmax without the overflow (inf - inf is NaN, and a draw over NaN
// took the worst token). As temperature -> 0 it keeps exactly the best logits: greedy, with a
// draw among ties. The caller has refused NaN logits (Decoding::choose_tokens).
void scale_scores(const float* logits, size_t vocab, float temperature, float* s) {
    float top = -INFINITY;
    for (size_t i = 0; i < vocab; ++i) {
        s[i] = logits[i] / temperature;
        top = std::max(top, s[i]);
    }
    if (std::isfinite(top)) return;
    const float best = logits[argmax(logits, vocab)];
    for (size_t i = 0; i < vocab; ++i) s[i] = logits[i] == best ? 0.0f : (logits[i] - best) / temperature;
}

}  // namespace

size_t Sampler::candidates(const float* logits, size_t vocab, float* s, int32_t* order) const {
    scale_scores(logits, vocab, options_.temperature, s);
    // Best first; equal scores in id order, so ties resolve the same way every time.
    const auto better = [s](int32_t a, int32_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); };
    for (size_t i = 0; i < vocab; ++i) order[i] = int32_t(i);
    size_t m = vocab;
    if (options_.top_k > 0 && options_.top_k < vocab) {
        // TopKLogitsWarper: remove scores < the k-th largest (so ties with it stay).
        std::nth_element(order, order + options_.top_k - 1, order + vocab, better);
        const float kth = s[order[options_.top_k - 1]];
        m = 0;
        for (size_t i = 0; i < vocab; ++i)
            if (s[i] >= kth) order[m++] = int32_t(i);
    }
    // Best first. Only as many as top-p may keep need sorting: sort a prefix, widen if needed.
    const float max = s[*std::max_element(order, order + m, [s](int32_t a, int32_t b) { return s[a] < s[b]; })];
    double total = 0;
    for (size_t i = 0; i < m; ++i) total += std::exp(double(s[order[i]]) - double(max));
    if (options_.top_p >= 1.0f) {
        std::sort(order, order + m, better);
        return m;
    }
    // TopPLogitsWarper: in ascending order, drop a token while the cumulative probability up to
    // and including it is <= 1 - top_p. Walking from the best, a token is kept exactly when the
    // probability of the tokens better than it is < top_p (the best is always kept).
    for (size_t sorted = std::min<size_t>(64, m);; sorted = std::min(m, sorted * 16)) {
        std::partial_sort(order, order + sorted, order + m, better);
        double before = 0;
        for (size_t i = 0; i < sorted; ++i) {
            if (i > 0 && before >= double(options_.top_p)) return i;
            before += std::exp(double(s[order[i]]) - double(max)) / total;
        }
        if (sorted == m) return m;
    }
}

int32_t Sampler::sample(const float* logits, size_t vocab, float* probs, int32_t* order) {
    if (greedy()) return int32_t(argmax(logits, vocab));
    const size_t m = candidates(logits, vocab, probs, order);
    // One draw from the softmax over the kept tokens, summed in double precision.
    const double max = double(probs[order[0]]);
    double total = 0;
    for (size_t i = 0; i < m; ++i) total += std::exp(double(probs[order[i]]) - max);
    const double target = rng_.uniform() * total;
    double cumulative = 0;
    for (size_t i = 0; i < m; ++i) {
        cumulative += std::exp(double(probs[order[i]]) - max);
        if (target < cumulative) return order[i];
    }
    return order[m - 1];  // rounding left target at the very end
}

}  // namespace simdformer
