#include "simdformer/layers/layer_norm.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

void LayerNorm::forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy) const {
    if (rms_) kernels::rms_norm_rows_f32(rows, d_, x, ldx, gamma_.data(), eps_, y, ldy);
    else kernels::layernorm_rows_f32(rows, d_, x, ldx, gamma_.data(), beta_.data(), eps_, y, ldy);
}

}  // namespace simdformer
