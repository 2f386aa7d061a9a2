// Sampler: chooses the next token from one row of logits during decoding (llama2.c keeps its
// sampler apart from the forward pass in the same way).
//
// Greedy: the argmax. Sampling follows Hugging Face's generate (do_sample=True) in its order of
// logits warpers: scores / temperature, then top-k (keep scores >= the k-th best, ties kept),
// then top-p (sort ascending, drop the tokens whose cumulative probability is <= 1 - top_p,
// always keep the best), then one draw from the softmax of what is left. The draw uses
// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
//   state += 0x9E3779B97F4A7C15; z = state;
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB; z ^ (z >> 31)
// and u = (z >> 11) * 2^-53 in [0, 1), so a seed repeats a run exactly. The
// draws do not reproduce torch.multinomial's (nothing can without its generator).
// Scratch memory (one float and one int per vocabulary entry) comes from the workspace, so
// decoding stays allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/model.h"

namespace simdformer {

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
    uint64_t next();
    double uniform();  // [0, 1), 53 random bits

private:
    uint64_t state_;
};

class Sampler {
public:
    Sampler() = default;
    explicit Sampler(const SamplerOptions& options) : options_(options), rng_(options.seed) {}

    bool greedy() const { return options_.temperature == 0.0f; }

    // The chosen token of logits [vocab] (vocab >= 1). probs [vocab] and order [vocab] are scratch.
    int32_t sample(const float* logits, size_t vocab, float* probs, int32_t* order);

    // The tokens sampling may choose after temperature, top-k and top-p, best first (equal scores
    // in id order, which decides which of tied tokens top-p keeps): their ids in
    // order[0, m), m returned; probs [vocab] holds the scaled scores (logits / temperature) of
    // every token (relative to the best logit when logits / temperature overflows). Exposed
    // for tests.
    size_t candidates(const float* logits, size_t vocab, float* probs, int32_t* order) const;

private:
    SamplerOptions options_;
    SplitMix64 rng_;
};

// Index of the largest value of x [n] (the first one on ties, as torch.argmax).
size_t argmax(const float* x, size_t n);

// Checks sampler options: temperature finite and >= 0, top_p in [0, 1] (any top_k: one above
// the vocabulary keeps every token).
Status check_sampler(const SamplerOptions& options, size_t vocab);

}  // namespace simdformer
