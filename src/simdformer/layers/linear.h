// Linear: y = x Wᵀ + b with PyTorch's weight layout W [out_features, in_features] (or GPT-2's
// Conv1D layout [in, out]). W is packed once, as it loads, into the GEMM's panel layout; the
// bias is fused into the GEMM's epilogue together with an optional activation and residual.
// With int8 weights (LoadOptions::weights, or I8 tensors in the checkpoint) W is kept as int8
// per output channel in the int8 GEMM's pair panels (kernels.h), a quarter of the f32 size, and
// forward runs the int8 x int8 GEMM on dynamically quantized rows of x.
#pragma once

#include "simdformer/layers/tensor_refs.h"
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
    // Several linear maps of the same input side by side as one: the outputs of refs[0]
    // (outs[0] columns), then of refs[1], ... in one packed [in, Σ outs] weight and one bias (0
    // for the columns of a ref without one, when another has one), so that one GEMM computes
    // them all (self-attention's q | k | v). Each column gets exactly the arithmetic its own
    // Linear would give it (a column whose ref has no bias adds 0: the same but for the sign of
    // a zero result). Refs that are consecutive slices of one fused tensor (in_proj_weight,
    // c_attn) are read as one; separate tensors must be nn.Linear's [out, in]. int8 when any is
    // a pre-quantized I8 tensor or the reader asks for int8: the per-column scales and sums of
    // every ref land side by side. n_refs <= 3.
    static Result<Linear> load_concat(WeightReader& reader, const LinearRef* const* refs, const size_t* outs,
                                      size_t n_refs, size_t in_features);

    // y[rows, out] = activation(x[rows, in] Wᵀ + b) (+ residual[rows, out]).
    void forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy,
                 Activation activation = Activation::kNone, const float* residual = nullptr,
                 size_t ld_residual = 0) const;
    // The same with another bias [out] in place of the layer's own (a tied output projection).
    void forward_with_bias(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, const float* bias) const;
    // out [in] = row j of W (an embedding table stored only in packed form; dequantized if int8).
    void weight_row(size_t j, float* out) const;

    size_t in_features() const { return in_; }
    size_t out_features() const { return out_; }
    size_t parameters() const { return in_ * out_ + bias_.size(); }
    bool int8() const { return int8_; }
    size_t weight_bytes() const { return packed_.size() * sizeof(float); }  // packed W as held

private:
    // The GEMM (int8 or f32), or the f32 GEMV when there is a single row.
    void gemm(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, const kernels::Epilogue& ep) const;

    size_t in_ = 0, out_ = 0;
    bool int8_ = false;
    Buffer packed_;  // f32: pack_b of Wᵀ [in, out]; int8: pack_i8 of Wᵀ (bytes, in a float buffer)
    Buffer bias_;    // [out] (empty: no bias)
};

}  // namespace simdformer
