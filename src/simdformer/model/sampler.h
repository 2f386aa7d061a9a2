// Sampler: chooses the next token from one row of logits during decoding (llama2.c keeps its
// sampler apart from the forward pass in the same way).
//
// Greedy (argmax) is the only strategy so far. Stochastic strategies (temperature, top-k, top-p)
// extend SamplerOptions; their random state lives in the Sampler, seeded from the options so a
// run repeats exactly, and any per-token scratch (probabilities) is passed in from the Workspace
// so decoding stays allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simdformer {

struct SamplerOptions {};  // greedy: nothing to choose yet

class Sampler {
public:
    explicit Sampler(const SamplerOptions& /*options*/ = {}) {}

    // The chosen token of logits [vocab] (vocab >= 1).
    int32_t sample(const float* logits, size_t vocab);
};

// Index of the largest value of x [n] (the first one on ties, as torch.argmax).
size_t argmax(const float* x, size_t n);

}  // namespace simdformer
