// Linear: y = x Wᵀ + b with PyTorch's weight layout W [out_features, in_features] (or GPT-2's
// Conv1D layout [in, out]). W is packed once, as it loads, into the GEMM's panel layout; the
// bias is fused into the GEMM's epilogue together with an optional activation and residual.
#pragma once

#include "simdformer/arch/tensor_refs.h"
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
    // Streams the weight of `ref` (of shape [parts*out, in] or [in, parts*out]) from the reader
    // in row chunks straight into the packed panels: no unpacked copy of W is ever held.
    static Result<Linear> load(WeightReader& reader, const LinearRef& ref, size_t in_features, size_t out_features);

    // y[rows, out] = activation(x[rows, in] Wᵀ + b) (+ residual[rows, out]).
    void forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy,
                 Activation activation = Activation::kNone, const float* residual = nullptr,
                 size_t ld_residual = 0) const;
    // The same with another bias [out] in place of the layer's own (a tied output projection).
    void forward_with_bias(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, const float* bias) const;
    // out [in] = row j of W (an embedding table stored only in packed form).
    void weight_row(size_t j, float* out) const { kernels::packed_b_column(in_, packed_.data(), j, out); }

    size_t in_features() const { return in_; }
    size_t out_features() const { return out_; }
    size_t parameters() const { return in_ * out_ + bias_.size(); }

private:
    size_t in_ = 0, out_ = 0;
    Buffer packed_;  // pack_b of Wᵀ [in, out]
    Buffer bias_;    // [out] (empty: no bias)
};

}  // namespace simdformer
