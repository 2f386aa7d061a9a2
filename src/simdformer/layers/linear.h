// Linear: y = x Wᵀ + b with PyTorch's weight layout W [out_features, in_features].
// W is packed once at load into the GEMM's panel layout; the bias is fused into the GEMM's
// epilogue together with an optional activation and residual.
#pragma once

#include "simdformer/buffer.h"
#include "simdformer/io/weight_reader.h"
#include "simdformer/kernels/kernels.h"

namespace simdformer {

class Linear {
public:
    Linear() = default;
    static Result<Linear> from_data(const float* weight,  // [out, in]
                                    const float* bias,    // [out] or null
                                    size_t in_features, size_t out_features);
    // Reads `<prefix>weight` and `<prefix>bias`.
    static Result<Linear> load(WeightReader& reader, const std::string& prefix, size_t in_features,
                               size_t out_features);

    // y[rows, out] = activation(x[rows, in] Wᵀ + b) (+ residual[rows, out]).
    void forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy,
                 Activation activation = Activation::kNone, const float* residual = nullptr,
                 size_t ld_residual = 0) const;

    size_t in_features() const { return in_; }
    size_t out_features() const { return out_; }

private:
    size_t in_ = 0, out_ = 0;
    Buffer packed_;  // pack_b of Wᵀ [in, out]
    Buffer bias_;    // [out] (empty: no bias)
};

}  // namespace simdformer
