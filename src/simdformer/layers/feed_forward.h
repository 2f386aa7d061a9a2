// Position-wise feed-forward: out = linear2(act(linear1(x))) (+ residual), activation fused
// into linear1's GEMM epilogue and the residual into linear2's.
#pragma once

#include "simdformer/config.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

class FeedForward {
public:
    // Reads `<prefix>linear1.{weight,bias}` [d_ff, d] and `<prefix>linear2.{weight,bias}` [d, d_ff].
    static Result<FeedForward> load(WeightReader& reader, const std::string& prefix, const ModelConfig& config);
    void forward(size_t rows, const float* x, size_t ldx,
                 float* hidden,  // [rows, d_ff] scratch
                 float* out, size_t ldo, const float* residual, size_t ld_residual) const;

private:
    Activation activation_ = Activation::kRelu;
    Linear linear1_, linear2_;
};

}  // namespace simdformer
