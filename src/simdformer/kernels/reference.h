// Scalar, double-accumulating twins of the kernels in kernels.h: same contracts, written for
// obviousness. Built as the test-only library simdformer_reference, never into simdformer.
#pragma once

#include "simdformer/kernels/kernels.h"

namespace simdformer::kernels::ref {

void gemm_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
              const float* b, size_t row_stride, size_t col_stride,  // logical [k, n]
              float* c, size_t ldc, const Epilogue& epilogue = {});
void dot_rows_f32(size_t n, size_t d, const float* x, const float* rows, size_t ld, float alpha, float* out);
void weighted_sum_rows_f32(size_t n, size_t d, const float* w, const float* rows, size_t ld, float* out);
void mask_scores_f32(size_t rows, size_t cols, float* scores, size_t ld, const uint8_t* key_padding,
                     const float* additive, size_t ld_add, bool causal, size_t causal_offset);
void additive_scores_f32(size_t n, size_t m, size_t d_a, const float* pq, size_t ldq, const float* pk,
                         size_t ldk, const float* w, float* scores, size_t lds);
void softmax_rows_f32(size_t rows, size_t cols, float* x, size_t ld);
void relu_normalize_rows_f32(size_t rows, size_t cols, float* x, size_t ld);
void layernorm_rows_f32(size_t rows, size_t d, const float* x, size_t ldx, const float* gamma,
                        const float* beta, float eps, float* y, size_t ldy);
void activation_f32(Activation act, size_t n, const float* x, float* y);
void add_f32(size_t n, const float* a, const float* b, float* y);
void scale_f32(size_t n, float alpha, const float* x, float* y);
double activation(Activation act, double x);

}  // namespace simdformer::kernels::ref
