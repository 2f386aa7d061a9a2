// Position-wise feed-forward: out = linear2(act(linear1(x))) (+ residual), activation fused
// into linear1's GEMM epilogue and the residual into linear2's. Gated (SwiGLU, Llama's MLP):
// out = linear2(act(gate(x)) * linear1(x)) (+ residual), HF's down(act(gate(x)) * up(x)).
#pragma once

#include <optional>

#include "simdformer/config.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

class FeedForward {
public:
    // Reads ref.in [d_ff, d] and ref.out [d, d_ff] (with their biases), and ref.gate [d_ff, d]
    // when it names one; config.activation in between.
    static Result<FeedForward> load(WeightReader& reader, const FeedForwardRef& ref, const ModelConfig& config);
    void forward(size_t rows, const float* x, size_t ldx,
                 float* hidden,  // [rows, d_ff] scratch (gated: [2, rows, d_ff])
                 float* out, size_t ldo, const float* residual, size_t ld_residual) const;

private:
    Activation activation_ = Activation::kRelu;
    Linear linear1_, linear2_;
    std::optional<Linear> gate_;
};

}  // namespace simdformer
