#include "simdformer/layers/layer_norm.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

Result<LayerNorm> LayerNorm::load(WeightReader& reader, const NormRef& ref, size_t d, float eps) {
    LayerNorm n;
    n.d_ = d;
    n.eps_ = eps;
    n.rms_ = ref.rms;
    SF_ASSIGN_OR_RETURN(n.gamma_, reader.take(ref.weight, {d}));
    if (!n.rms_) {
        SF_ASSIGN_OR_RETURN(n.beta_, reader.take(ref.bias, {d}));
    }
    return n;
}

void LayerNorm::forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy) const {
    if (rms_) kernels::rms_norm_rows_f32(rows, d_, x, ldx, gamma_.data(), eps_, y, ldy);
    else kernels::layernorm_rows_f32(rows, d_, x, ldx, gamma_.data(), beta_.data(), eps_, y, ldy);
}

}  // namespace simdformer
