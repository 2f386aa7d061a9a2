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

// y[n] = epilogue(x[k] · B[k, n]) for a single row x and B packed by pack_b (kernels/gemv.cpp):
// the row is read in place and several panels stream at once. Each element gets exactly the
// operations gemm_f32_packed gives it, so results are bit-identical to a one-row GEMM.
// The epilogue's residual is [n] (ld_residual is not used). y must not alias x or the residual.
void gemv_f32_packed(size_t n, size_t k,
                     const float* x,         // [k]
                     const float* packed_b,  // pack_b of [k, n]
                     float* y,               // [n]
                     const Epilogue& epilogue = {});

// ---- one query against stored keys and values (kernels/attention_query.cpp) ----------------
// The heads of one query, side by side in q, out and scores' rows: query head i (of the model's
// heads first .. first + heads - 1) reads d floats at column(i) of each stored row, whose first
// float is head `first`'s key/value head's (grouped-query attention: `group` query heads per
// key/value head).
struct HeadSpan {
    size_t heads = 1, d = 0, first = 0, group = 1;
    size_t column(size_t i) const { return ((first + i) / group - first / group) * d; }
};
// scores[i, j] = alpha * (q_i · rows[j] at column(i)): the scores of one query against keys read in
// place (a cache or encoder memory), no packing; every row read once for all the heads.
void dot_rows_heads_f32(size_t n, const HeadSpan& span,
                        const float* q,                       // [heads, d]
                        const float* rows, size_t ld,         // [n, ...], row stride ld
                        float alpha,
                        float* scores, size_t ld_scores);     // [heads, n], row stride ld_scores
// out_i = Σ_j w[i, j] · rows[j] at column(i): the context of one query, a weighted sum of value
// rows read in place, every row once for all the heads. Weights exactly 0 (masked keys) skip
// their row.
void weighted_sum_rows_heads_f32(size_t n, const HeadSpan& span,
                                 const float* w, size_t ld_w,     // [heads, n], row stride ld_w
                                 const float* rows, size_t ld,    // [n, ...], row stride ld
                                 float* out);                     // [heads, d]

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

// y = x / sqrt(mean(x²) + eps) * gamma per row (RMSNorm: no mean subtracted, no bias), in the
// order of Hugging Face's LlamaRMSNorm: the normalised row first, then times gamma.
void rms_norm_rows_f32(size_t rows, size_t d,
                       const float* x, size_t ldx,  // [rows, d]
                       const float* gamma,          // [d]
                       float eps,
                       float* y, size_t ldy);       // [rows, d]; may equal x

void activation_f32(Activation act, size_t n, const float* x, float* y);  // y may equal x
// y = erf(x), the vectorised erf of the exact GELU (kernels/vector_math.h): within 1e-7 of the
// exact value for every float. y may equal x.
void erf_f32(size_t n, const float* x, float* y);
// y = exp(x) as softmax_rows_f32 computes it from a score minus its row's max (x <= 0): within
// 1.2 ulps of the exact value where the result is a normal float (kernels_test asserts 2), 0 below
// -87 and for -inf. y may equal x.
void softmax_exp_f32(size_t n, const float* x, float* y);
void multiply_f32(size_t n, const float* a, const float* b, float* y);    // y may equal a or b
void floor_f32(size_t n, float lowest, float* x);                         // x = max(x, lowest)
void add_f32(size_t n, const float* a, const float* b, float* y);         // y may equal a or b
void scale_f32(size_t n, float alpha, const float* x, float* y);          // y may equal x

// ---- int8 weights and GEMMs (kernels/quantize.cpp, kernels/gemm_i8_qd8.cpp) ----------------------
// A weight used as B [k, n] (n = output channels) is quantized symmetrically per column j:
//   B(p, j) ~ scale[j] * q(p, j),  scale[j] = max_p |B(p, j)| / 127,
//   q(p, j) = round-half-even(B(p, j) / scale[j]) in [-127, 127]  (a zero column: scale 0, q 0).
//
// Packed layout ("qc8w pair panels"), one format for both int8 GEMMs so that a single packed copy
// serves every batch size: columns in panels of kI8PanelWidth = 8, and inside a panel k taken in
// pairs, so that 16 bytes hold (k = 2p, 2p+1) x (8 columns):
//   byte ((jp * k2 + p) * 16 + 2 * c + e) = q(2p + e, 8 jp + c),   k2 = ceil(k / 2), jp < n8 = ceil(n / 8)
// zero-padded in k and n, followed by f32 scale[n8 * 8] (0 for padding columns) and i32
// colsum[n8 * 8] = sum over p of q(p, j) (the relaxed-SIMD GEMM's zero-point term; kept up to date
// by pack_i8_quantize / pack_i8_copy, which must write each element once). Design (b) feeds
// the 16 bytes to i32x4.dot_i16x8_s as two sign-extended i16x8 halves; the relaxed-SIMD GEMM
// interleaves two pairs into k quads for i32x4.relaxed_dot_i8x16_i7x16_add_s. Size: k2 * n8 * 16 +
// n8 * 64 bytes (~0.25x f32); `packed` must be at least 4-byte aligned (the scales are floats),
// 64 as Buffer gives is best.
constexpr size_t kI8PanelWidth = 8;
size_t packed_i8_size(size_t k, size_t n);             // bytes; multiple of 16
void packed_i8_init(size_t k, size_t n, void* packed);  // zero padding, scales and sums; call first
float* packed_i8_scales(size_t k, size_t n, void* packed);  // [n8 * 8] inside `packed`
const float* packed_i8_scales(size_t k, size_t n, const void* packed);
const int32_t* packed_i8_colsums(size_t k, size_t n, const void* packed);  // [n8 * 8] inside `packed`

// Streaming a weight into the layout, one chunk of rows at a time. A chunk is the logical block
// B[p0 : p0 + rows, j0 : j0 + cols] with element (p0 + p, j0 + j) at b[p * row_stride + j * col_stride]:
//  - nn.Linear weight [out, in], a chunk of output rows j0..: p0 = 0, rows = k, row_stride 1,
//    col_stride = in. Each chunk holds whole channels: absmax, scales, then quantize, per chunk.
//  - GPT-2 Conv1D weight [in, out], a chunk of input rows p0..: j0 = 0, cols = n,
//    row_stride = out, col_stride 1. A channel spans every chunk: pass 1 updates absmax for all
//    chunks, then scales_from_absmax, then pass 2 quantizes the chunks.
// The absmax accumulator may be the packed scales themselves (zeroed by packed_i8_init).
void absmax_cols_update(size_t rows, size_t cols, const float* b, size_t row_stride, size_t col_stride,
                        float* absmax);                          // [cols], for columns j0..
void scales_from_absmax(size_t n, float* absmax_to_scales);    // in place: absmax / 127
// Quantizes a chunk with the scales already stored in `packed` (RNE, clamped to [-127, 127]).
void pack_i8_quantize(size_t k, size_t n, size_t p0, size_t rows, size_t j0, size_t cols, const float* b,
                      size_t row_stride, size_t col_stride, void* packed);
// Places an already quantized chunk as it is (pre-quantized checkpoints; -128 is accepted).
void pack_i8_copy(size_t k, size_t n, size_t p0, size_t rows, size_t j0, size_t cols, const int8_t* q,
                  size_t row_stride, size_t col_stride, void* packed);
// The whole of B at once (init, absmax, scales, quantize).
void pack_i8(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, void* packed);
// out [k] = column j of a packed [k, n] operand, dequantized (scale[j] * q(p, j)).
void packed_i8_column(size_t k, size_t n, const void* packed, size_t j, float* out);

// Dynamic quantization of one activation row for design (b): per-row asymmetric, 256 levels over
// [lo, hi] = [min(0, min x), max(0, max x)] so that 0 is exact and a one-sided row (GELU output)
// keeps the full resolution: scale = (hi - lo) / 255, inv_scale = 255 / (hi - lo),
// zero = clamp(round(-lo * inv_scale), 0, 255), x ~ scale * (q - zero) with
// q = clamp(round(x * inv_scale) + zero, 0, 255) (round = half to even, in f32). A row of zeros
// gets scale 0. The GEMM multiplies q - zero in [-255, 255] as i16, so no zero-point correction
// term is needed.
struct Qd8Row {
    float scale = 0.0f;
    float inv_scale = 0.0f;
    int32_t zero = 0;
};
// `levels` 255, or 127 for the relaxed-SIMD GEMM, whose activation operand must be 7-bit
// (q in [0, 127]; scale = (hi - lo) / 127 and the zero point clamped to [0, 127]).
Qd8Row qd8_row_params(size_t k, const float* x, int levels = 255);
// q[2 p * pair_stride + e] = q(x[2p + e]) - zero for p < ceil(k / 2) (0 for the odd pad);
// `row` must be qd8_row_params of x (or of a range containing x).
void quantize_row_qd8(size_t k, const float* x, const Qd8Row& row, int16_t* q, size_t pair_stride = 1);
// The quad k-loops' row (kernels/gemm_i8_relaxed.cpp) in k quads: byte i at
// q[(i / 4) * 4 * quad_stride + i % 4] holds clamp(round(x[i] * inv_scale) + zero, 0, levels) for
// i < k -- itself, or minus 128 as an int8 when `signed_bytes` -- and 0 (q = 0, or -128) up to the
// next multiple of 4; `row` must be qd8_row_params(k, x, levels) (or of a range containing x),
// levels 127 or 255.
void quantize_row_quads(size_t k, const float* x, const Qd8Row& row, int levels, bool signed_bytes, uint8_t* q,
                        size_t quad_stride = 1);

// Design (a), widening the int8 weights to f32 in the micro-kernel, lost to design (b) on every
// shape measured and lives in bench/experiments/int8/ (gemm_f32_qc8w.h) beside the benchmark that compared them.
// Design (b): the same product with every row of A quantized on the fly by quantize_row_qd8,
// i16 x i16 dot products accumulated exactly in i32 (k <= kQd8MaxK), dequantized in the epilogue
// (c = act(alpha * scale_row * scale[j] * sum + bias) + residual).
constexpr size_t kQd8MaxK = 65536;  // 255 * 128 * k must fit in i32
void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b,
                   float* c, size_t ldc, const Epilogue& epilogue = {});
// Columns [col0, col1) of that product only (col0 a multiple of kI8PanelWidth), the share of one
// thread in a column split: c, the bias and the residual are those of the whole product, and
// every element gets the operations the whole call gives it.
void gemm_qd8_qc8w_cols(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b,
                        size_t col0, size_t col1, float* c, size_t ldc, const Epilogue& epilogue = {});

// ---- int8 on relaxed SIMD (kernels/gemm_i8_relaxed.cpp) ------------------------------------------
// Which k-loop every int8 GEMM above runs, for the whole module (set once, before work starts):
//  - kPairs16: design (b), 8-bit activations (255 levels) as i16 pairs, i32x4.dot_i16x8_s;
//  - the quad k-loops: the int8 weights times activation bytes four k at a time with
//    i32x4.relaxed_dot_i8x16_i7x16_add_s, in a kernel module built apart (kernels/relaxed/) and
//    run beside this one on the same memory (*Relaxed), or in its portable twin (*Portable: for
//    engines that cannot run the module and for checking it; bit-identical, the sums being exact
//    integers). The relaxed dot product is defined on every engine only for a 7-bit second
//    operand; what it does with bytes of 128 and above depends on the engine, so init finds out
//    (relaxed_i8_support):
//    - kQuads7*: 7-bit activations (127 levels), bytes q in [0, 127]: exact everywhere;
//    - kQuadsU8*: 8-bit activations (255 levels), bytes q, where the engine multiplies them as
//      unsigned (V8 on x86 with AVX-VNNI: one vpdpbusd);
//    - kQuadsS8*: 8-bit activations, bytes q - 128 as int8, where the engine multiplies them as
//      signed (V8 on Arm: sdot; on x86 with AVX-VNNI-INT8: vpdpbssd).
//    The 8-bit ones sum exactly the products kPairs16 sums, so their results are kPairs16's bit
//    for bit. SIMD builds only: the scalar build (SIMDFORMER_SIMD=0) has only kPairs16.
// A pair of int8 GEMM results is bit-identical across thread counts and batch positions under
// any one setting.
enum class I8Kernel {
    kPairs16,
    kQuads7Relaxed,
    kQuads7Portable,
    kQuadsU8Relaxed,
    kQuadsU8Portable,
    kQuadsS8Relaxed,
    kQuadsS8Portable
};
// A quad k-loop's activation bytes: q in [0, levels], held as q - 128 (int8) when `signed_bytes`;
// levels 0 for kPairs16, which is no quad k-loop.
struct QuadBytes {
    int levels = 0;
    bool signed_bytes = false, relaxed = false;
};
QuadBytes quad_bytes(I8Kernel kernel);
// What this engine's relaxed int8 dot product does, probed once: the module validated, was
// instantiated and gave the portable loop's exact sums on every tile shape with 7-bit activation
// bytes (`exact7`; an engine that lowers it wrongly -- Node 20's experimental relaxed SIMD -- does
// not), with bytes up to 255 taken as unsigned (`exact_u8`) or as signed (`exact_s8`). All false
// outside wasm builds with the module.
struct RelaxedI8Support {
    bool exact7 = false, exact_u8 = false, exact_s8 = false;
};
RelaxedI8Support relaxed_i8_support();
// The quad k-loop with the most activation bits this engine's relaxed dot product is exact on
// (U8, else S8, else 7-bit), as the relaxed module (`relaxed`) or its portable twin.
I8Kernel best_quad_kernel(bool relaxed);
// The k-loop init's relaxedSimd 'auto' picks from what relaxed_i8_support() found (see the
// definition for the measurements behind it).
I8Kernel auto_i8_kernel();
// Sets the k-loop; a relaxed one the engine does not run exactly, or a quad one in the scalar
// build, is refused (false).
bool set_i8_kernel(I8Kernel kernel);
I8Kernel i8_kernel();

// ---- f32 on relaxed SIMD (kernels/relaxed_module.cpp) -------------------------------------------
// Whether every f32 GEMM and GEMV k-loop (gemm.cpp, gemv.cpp) runs f32x4.relaxed_madd from the
// relaxed kernel module instead of SIMD128's f32x4.mul + f32x4.add, for the whole module (set once,
// before work starts). relaxed_madd is one fused multiply-add where the engine has FMA, else a
// multiply and an add like SIMD128's: results differ from the default path by rounding only, and
// under either setting a row is bit-identical across thread counts, batch positions and GEMV /
// GEMM, since every k-loop takes the same path.
// Does this engine run the module's f32 k-loops, consistently? Validates and instantiates it, and
// checks that every tile shape gives exactly the fused or exactly the unfused multiply-adds, the
// same for all. Always false outside wasm SIMD128 builds with the module.
bool relaxed_f32_available();
// Turns the relaxed f32 k-loops on or off; on where relaxed_f32_available() is false is refused.
bool set_relaxed_f32(bool on);
bool relaxed_f32();

// ---- int8 GEMM on activations quantized once (runtime::gemm_qd8_qc8w's column split) ------------
// gemm_qd8_qc8w_cols quantizes all of A for the columns it computes, so a column split across T
// threads quantizes and packs A T times. The runtime instead quantizes A once (rows in parallel)
// into memory every thread reads, then each thread computes its columns from it. A QuantizedA is
// that memory: rows [0, m) of A quantized for `kernel`'s k-loop, in the blocks that k-loop reads
// (kernels/gemm_i8_internal.h: the row parameters, then the values k block by k block).
struct QuantizedA {
    I8Kernel kernel;  // the k-loop whose numerics and layout `data` holds
    size_t m, k;
    void* data;       // quantized_a_bytes(kernel, m, k) bytes, 64-byte aligned
};
// Bytes one more row adds to a QuantizedA (k <= kQd8MaxK: at most 128 KiB + 12).
size_t quantized_a_row_bytes(I8Kernel kernel, size_t k);
// Bytes of a QuantizedA of m rows: at most m * quantized_a_row_bytes(kernel, k) + 64 (callers
// size m from the memory they have, so this cannot overflow).
size_t quantized_a_bytes(I8Kernel kernel, size_t m, size_t k);
// Quantizes rows [row0, row1) of A [qa.m, qa.k] (row stride lda) into qa. Calls on disjoint row
// ranges may run on different threads at once.
void quantize_a_rows(const QuantizedA& qa, const float* a, size_t lda, size_t row0, size_t row1);
// gemm_qd8_qc8w_cols(qa.m, n, qa.k, A, ...) from the quantized A: bit-identical to it under
// i8_kernel() == qa.kernel (the same quantization, the same exact sums, the same epilogue).
void gemm_qd8_qc8w_quantized_cols(const QuantizedA& qa, size_t n, const void* packed_b, size_t col0, size_t col1,
                                  float* c, size_t ldc, const Epilogue& epilogue = {});

}  // namespace simdformer::kernels
