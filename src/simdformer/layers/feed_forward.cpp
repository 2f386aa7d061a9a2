#include "simdformer/layers/feed_forward.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

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
