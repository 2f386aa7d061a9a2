// Design (a) of the int8 GEMM: f32 activations x int8 weights (XNNPACK's f32-qc8w). Not part of
// the library: design (b) (kernels/gemm_i8_qd8.cpp) replaced it everywhere it was measured
// (BENCHMARKS.md, int8). It stays here so that int8_gemm.cpp (bench_int8) can compare the two, and the
// int8 tests keep it honest against its reference.
#pragma once

#include "simdformer/kernels/kernels.h"

namespace simdformer::kernels {

// Design (a): C[m, n] = epilogue(A[m, k] · B) for B packed by pack_i8, A in f32; the int8 weights
// are widened to f32 in the micro-kernel and the per-channel scale is applied in the epilogue
// (c = act(alpha * scale[j] * sum + bias) + residual). C must not alias A or the residual.
void gemm_f32_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda,  // [m, k]
                   const void* packed_b,                                     // pack_i8 of [k, n]
                   float* c, size_t ldc, const Epilogue& epilogue = {});      // [m, n]

}  // namespace simdformer::kernels
