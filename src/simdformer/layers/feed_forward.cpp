#include "simdformer/layers/feed_forward.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

Result<FeedForward> FeedForward::load(WeightReader& reader, const FeedForwardRef& ref, const ModelConfig& config) {
    FeedForward f;
    f.activation_ = config.activation;
    SF_ASSIGN_OR_RETURN(f.linear1_, Linear::load(reader, ref.in, config.d_model, config.dim_feedforward));
    SF_ASSIGN_OR_RETURN(f.linear2_, Linear::load(reader, ref.out, config.dim_feedforward, config.d_model));
    if (!ref.gate.weight.empty()) {
        SF_ASSIGN_OR_RETURN(Linear gate, Linear::load(reader, ref.gate, config.d_model, config.dim_feedforward));
        f.gate_ = std::move(gate);
    }
    return f;
}

void FeedForward::forward(size_t rows, const float* x, size_t ldx, float* hidden, float* out, size_t ldo,
                          const float* residual, size_t ld_residual) const {
    const size_t d_ff = linear1_.out_features();
    if (gate_) {
        // hidden = act(gate(x)), up = linear1(x), then hidden * up in place.
        float* up = hidden + rows * d_ff;
        gate_->forward(rows, x, ldx, hidden, d_ff, activation_);
        linear1_.forward(rows, x, ldx, up, d_ff);
        kernels::multiply_f32(rows * d_ff, hidden, up, hidden);
    } else {
        linear1_.forward(rows, x, ldx, hidden, d_ff, activation_);
    }
    linear2_.forward(rows, hidden, d_ff, out, ldo, Activation::kNone, residual, ld_residual);
}

}  // namespace simdformer
