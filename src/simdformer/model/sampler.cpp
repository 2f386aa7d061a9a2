#include "simdformer/model/sampler.h"

namespace simdformer {

size_t argmax(const float* x, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

int32_t Sampler::sample(const float* logits, size_t vocab) {
    return static_cast<int32_t>(argmax(logits, vocab));
}

}  // namespace simdformer
