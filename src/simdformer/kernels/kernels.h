// Every kernel of simdformer, declared in one place with the shapes it works on.
//
// Kernels are pure functions on raw row-major float arrays with explicit row strides (`ld*`, in
// elements). They never allocate, never fail and never see a Status: callers (layers) validate
// shapes once. Each kernel has a scalar, double-accumulating twin in `ref::` (kernels/reference.h,
// a test-only library) that tests use as the oracle. Only the .cpp files of this folder see SIMD types.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/activation.h"

namespace simdformer::kernels {

using simdformer::Activation;

// Name of the SIMD architecture the kernels were compiled for ("wasm", "sse2", "scalar", ...).
const char* simd_arch();
// Floats per SIMD register (1 in the scalar build).
size_t simd_lanes();

// ---- GEMM --------------------------------------------------------------------------------------
// B operands are packed once into column panels of gemm_panel_width() columns, k-major inside a
// panel, zero-padded on the right. The register-tiled micro-kernel streams a panel while
// broadcasting rows of A. Any B layout can be packed: pass its row and column strides, so
// B = W (row-major [k, n]: row_stride n, col_stride 1) and B = Wᵀ of a row-major [n, k] weight
// (row_stride 1, col_stride k) use the same kernel.
size_t gemm_panel_width();
size_t packed_b_size(size_t k, size_t n);  // floats needed for a packed [k, n] operand
// Where the columns [col0, n) of a packed [k, n] operand start (col0 a multiple of
// gemm_panel_width()): they form the packed [k, n - col0] operand at packed + this offset.
inline size_t packed_b_offset(size_t k, size_t col0) { return col0 * k; }
void pack_b(size_t k, size_t n,
            const float* b,  // logical [k, n]: element (p, j) at b[p*row_stride + j*col_stride]
            size_t row_stride, size_t col_stride,
            float* packed);  // [packed_b_size(k, n)]

// pack_b in pieces (kernels/pack_b_ranges.cpp), for weights that stream in: `b` points at the
// piece's first element, `packed` at the start of the whole packed [k, n] operand.
// Columns [j0, j0 + n_cols) with j0 a multiple of gemm_panel_width(): whole panels.
void pack_b_columns(size_t k, size_t j0, size_t n_cols, const float* b, size_t row_stride, size_t col_stride,
                    float* packed);
// Rows [p0, p0 + n_rows) of every panel.
void pack_b_rows(size_t k, size_t n, size_t p0, size_t n_rows, const float* b, size_t row_stride, size_t col_stride,
                 float* packed);
// out [k] = column j of a packed [k, n] operand.
void packed_b_column(size_t k, const float* packed, size_t j, float* out);

// What happens to each result before it is stored: c = act(alpha * (A·B) + bias) + residual.
struct Epilogue {
    float alpha = 1.0f;
    const float* bias = nullptr;      // [n] or null
    Activation activation = Activation::kNone;
    const float* residual = nullptr;  // [m, n] with row stride ld_residual, or null; never aliases c
    size_t ld_residual = 0;
};

// C[m, n] = epilogue(A[m, k] · B[k, n]) with B packed by pack_b. C must not alias A or residual.
void gemm_f32_packed(size_t m, size_t n, size_t k,
                     const float* a, size_t lda,  // [m, k]
                     const float* packed_b,       // pack_b of [k, n]
                     float* c, size_t ldc,        // [m, n]
                     const Epilogue& epilogue = {});

// C = epilogue(A · B) for an unpacked row-major B [k, n]; `scratch` holds packed_b_size(k, n).
void gemm_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
              float* c, size_t ldc, float* scratch, const Epilogue& epilogue = {});
// C = epilogue(A · Bᵀ) for a row-major B [n, k]; `scratch` holds packed_b_size(k, n).
void gemm_f32_nt(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                 float* c, size_t ldc, float* scratch, const Epilogue& epilogue = {});

// ---- attention scores ----------------------------------------------------------------------------
// Applies masks to scores [rows, cols] in place, in PyTorch's convention: `additive` is added
// (may hold -inf), a key with key_padding[j] != 0 is set to -inf, and with `causal` a key j is
// set to -inf when j > i + causal_offset (query i sits at position i + causal_offset).
void mask_scores_f32(size_t rows, size_t cols, float* scores, size_t ld,
                     const uint8_t* key_padding,            // [cols] or null
                     const float* additive, size_t ld_add,  // [rows, cols] or null
                     bool causal, size_t causal_offset);

// Additive (Bahdanau) scores: s[i, j] = Σ_a w[a] · tanh(pq[i, a] + pk[j, a]).
void additive_scores_f32(size_t n, size_t m, size_t d_a,
                         const float* pq, size_t ldq,  // [n, d_a]  (W_q q_i)
                         const float* pk, size_t ldk,  // [m, d_a]  (W_k k_j)
                         const float* w,               // [d_a]
                         float* scores, size_t lds);   // [n, m]

// Row softmax in place; -inf entries get weight 0. A row whose entries are all -inf (every key
// masked) becomes all zeros, never NaN.
void softmax_rows_f32(size_t rows, size_t cols, float* x, size_t ld);

// ReLU normalisation (Wortsman et al. 2023): x[i, j] = relu(x[i, j]) / n_valid(i), where n_valid
// counts the keys of row i that are not masked (not -inf). A row with no valid key becomes zeros.
void relu_normalize_rows_f32(size_t rows, size_t cols, float* x, size_t ld);

// ---- normalisation, activations, elementwise -----------------------------------------------
// y = (x - mean) / sqrt(var + eps) * gamma + beta per row (biased variance, as nn.LayerNorm).
void layernorm_rows_f32(size_t rows, size_t d,
                        const float* x, size_t ldx,  // [rows, d]
                        const float* gamma,          // [d]
                        const float* beta,           // [d]
                        float eps,
                        float* y, size_t ldy);       // [rows, d]; may equal x

void activation_f32(Activation act, size_t n, const float* x, float* y);  // y may equal x
void add_f32(size_t n, const float* a, const float* b, float* y);         // y may equal a or b
void scale_f32(size_t n, float alpha, const float* x, float* y);          // y may equal x

}  // namespace simdformer::kernels
