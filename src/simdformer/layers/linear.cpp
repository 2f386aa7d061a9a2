#include "simdformer/layers/linear.h"

#include <cstring>

#include "simdformer/runtime/parallel_gemm.h"

namespace simdformer {

Result<Linear> Linear::from_data(const float* weight, const float* bias, size_t in_features,
                                 size_t out_features) {
    Linear l;
    l.in_ = in_features;
    l.out_ = out_features;
    SF_ASSIGN_OR_RETURN(l.packed_, Buffer::uninitialized(kernels::packed_b_size(in_features, out_features), "packed weight"));
    // Wᵀ viewed as B [in, out]: element (p, j) = W[j, p] -> row stride 1, column stride in.
    kernels::pack_b(in_features, out_features, weight, 1, in_features, l.packed_.data());
    if (bias) {
        SF_ASSIGN_OR_RETURN(l.bias_, Buffer::uninitialized(out_features, "bias"));
        std::memcpy(l.bias_.data(), bias, out_features * sizeof(float));
    }
    return l;
}

Result<Linear> Linear::load(WeightReader& reader, const std::string& prefix, size_t in_features,
                            size_t out_features) {
    SF_ASSIGN_OR_RETURN(Buffer w, reader.take(prefix + "weight", {out_features, in_features}));
    SF_ASSIGN_OR_RETURN(Buffer b, reader.take(prefix + "bias", {out_features}));
    return from_data(w.data(), b.data(), in_features, out_features);
}

void Linear::forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, Activation activation,
                     const float* residual, size_t ld_residual) const {
    kernels::Epilogue ep;
    ep.bias = bias_.empty() ? nullptr : bias_.data();
    ep.activation = activation;
    ep.residual = residual;
    ep.ld_residual = ld_residual;
    runtime::gemm_f32_packed(rows, out_, in_, x, ldx, packed_.data(), y, ldy, ep);  // threads: column panels
}

}  // namespace simdformer
