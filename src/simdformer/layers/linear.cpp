#include "simdformer/layers/linear.h"

#include "simdformer/runtime/parallel_gemm.h"

namespace simdformer {

void Linear::forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, Activation activation,
                     const float* residual, size_t ld_residual) const {
    kernels::Epilogue ep;
    ep.bias = bias_.empty() ? nullptr : bias_.data();
    ep.activation = activation;
    ep.residual = residual;
    ep.ld_residual = ld_residual;
    gemm(rows, x, ldx, y, ldy, ep);
}

void Linear::forward_with_bias(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, const float* bias) const {
    kernels::Epilogue ep;
    ep.bias = bias;
    gemm(rows, x, ldx, y, ldy, ep);
}

void Linear::gemm(size_t rows, const float* x, size_t ldx, float* y, size_t ldy, const kernels::Epilogue& ep) const {
    // int8: the dynamically quantized int8 x int8 GEMM, measured faster than f32 activations x
    // int8 weights (gemm_f32_qc8w) for every shape from 1 to 128 rows (BENCHMARKS.md).
    // Threads: over column panels, so that even one row (a decoding step, which runs the GEMV)
    // splits the weights it streams (runtime/parallel_gemm.h).
    if (int8_) {
        runtime::gemm_qd8_qc8w(rows, out_, in_, x, ldx, packed_.data(), y, ldy, ep);
    } else {
        runtime::gemm_f32_packed(rows, out_, in_, x, ldx, packed_.data(), y, ldy, ep);
    }
}

void Linear::weight_row(size_t j, float* out) const {
    if (int8_) kernels::packed_i8_column(in_, out_, packed_.data(), j, out);
    else kernels::packed_b_column(in_, packed_.data(), j, out);
}

}  // namespace simdformer
