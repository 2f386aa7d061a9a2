// Position-wise feed-forward: out = linear2(act(linear1(x))) (+ residual), activation fused
// into linear1's GEMM epilogue and the residual into linear2's.
#pragma once

#include "simdformer/config.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

class FeedForward {
public:
    // Reads ref.in [d_ff, d] and ref.out [d, d_ff] (with their biases); config.activation in between.
    static Result<FeedForward> load(WeightReader& reader, const FeedForwardRef& ref, const ModelConfig& config);
    void forward(size_t rows, const float* x, size_t ldx,
                 float* hidden,  // [rows, d_ff] scratch
                 float* out, size_t ldo, const float* residual, size_t ld_residual) const;

private:
    Activation activation_ = Activation::kRelu;
    Linear linear1_, linear2_;
};

}  // namespace simdformer
