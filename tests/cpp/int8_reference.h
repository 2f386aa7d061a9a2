// Scalar, double-accumulating references of the int8 kernels (quantization and both GEMMs), and
// the symmetric activation quantizer they are compared with. Written from the contracts in
// kernels.h, not from the kernels: plain [k, n] arrays, no packing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simdformer/kernels/kernels.h"

namespace simdformer::test::int8ref {

// B [k, n] quantized per column: B(p, j) ~ scale[j] * q[p * n + j].
struct QuantizedWeight {
    size_t k = 0, n = 0;
    std::vector<int8_t> q;     // [k, n]
    std::vector<float> scale;  // [n]
};
// b(p, j) at b[p * row_stride + j * col_stride].
QuantizedWeight quantize_weight(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride);

// One activation row, per-row asymmetric: x[i] ~ scale * centered[i] (centered = q - zero).
struct QuantizedRow {
    float scale = 0.0f;
    int32_t zero = 0;
    std::vector<int16_t> centered;  // [k]
};
// levels 255 (design b), or 127 (the relaxed-SIMD GEMM's 7-bit activations).
QuantizedRow quantize_row(size_t k, const float* x, int levels = 255);
// The alternative: per-row symmetric, x[i] ~ scale * q[i], q in [-127, 127], scale = max|x| / 127.
QuantizedRow quantize_row_symmetric(size_t k, const float* x);

// C = epilogue(A · dequant(W)) with A in f32 (design a).
void gemm_f32_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                   size_t ldc, const kernels::Epilogue& ep = {});
// C = epilogue(dequant(quantize_row(A)) · dequant(W)) (design b).
void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                   size_t ldc, const kernels::Epilogue& ep = {});
// The same with the rows quantized to 127 levels (kernels::I8Kernel kQuads7*).
void gemm_q7_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                  size_t ldc, const kernels::Epilogue& ep = {});
void gemm_qd8_qc8w_levels(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedWeight& w, float* c,
                          size_t ldc, const kernels::Epilogue& ep, int levels);

}  // namespace simdformer::test::int8ref
