// What the int8 kernels share: the packed-weight geometry and the epilogue of one tile row.
// Internal to kernels/ (it exposes SIMD types).
#pragma once

#include <algorithm>
#include <cstring>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels::i8detail {

constexpr size_t kNr = kI8PanelWidth;  // columns per panel
constexpr size_t kPairBytes = 2 * kNr;  // one k pair of a panel: 16 bytes

inline size_t pairs(size_t k) { return (k + 1) / 2; }
inline size_t panels(size_t n) { return (n + kNr - 1) / kNr; }
inline size_t panel_bytes(size_t k) { return pairs(k) * kPairBytes; }
inline size_t scales_offset(size_t k, size_t n) { return panels(n) * panel_bytes(k); }
inline size_t colsums_offset(size_t k, size_t n) { return scales_offset(k, n) + panels(n) * kNr * sizeof(float); }
// Byte of q(p, j) inside the packed panels.
inline size_t byte_index(size_t k, size_t p, size_t j) {
    return (j / kNr) * panel_bytes(k) + (p / 2) * kPairBytes + (j % kNr) * 2 + (p % 2);
}

// The epilogue of one row of a tile: acc[kNr] holds the raw sums of columns j0 .. j0 + ncols;
// c[j] = act(acc[j] * (row_mult * scale[j]) + bias[j]) + residual[j] for j < ncols. Every element
// goes through the same operations whatever its row or column, so results do not depend on the
// position of a row in the batch.
inline void finish_row(const float* acc, float row_mult, const float* scale,  // [kNr] each
                       const float* bias,                                     // [ncols] or null
                       Activation act, const float* residual,                 // [ncols] or null
                       float* c, size_t ncols) {                              // [ncols]
    using detail::kLanes;
    using detail::vf32;
    // A panel row is kNr = 8 floats: whole vectors up to 8 lanes (SSE2, wasm, AVX2); wider
    // registers (AVX-512's 16 lanes) work on one vector padded with zeros, the same operations.
    constexpr size_t kW = kNr % kLanes == 0 ? kNr : kLanes;  // floats computed, a whole number of vectors
    static_assert(kW % kLanes == 0 && kW >= kNr, "a panel row fits whole float vectors");
    constexpr bool kInPlace = kW == kNr;
    float a[kW] = {}, s[kW] = {}, b[kW] = {}, res[kW] = {}, out[kW];
    const float* ap = acc;
    const float* sp = scale;
    if (!kInPlace) {
        std::copy(acc, acc + kNr, a);
        std::copy(scale, scale + kNr, s);
        ap = a;
        sp = s;
    }
    const bool full = kInPlace && ncols == kNr;  // interior tiles read and write in place
    if (!full) {
        if (bias) std::copy(bias, bias + ncols, b);
        if (residual) std::copy(residual, residual + ncols, res);
    }
    const float* bp = full ? bias : b;
    const float* rp = full ? residual : res;
    float* op = full ? c : out;
    const vf32 rm(row_mult);
    for (size_t v = 0; v < kW; v += kLanes) {
        vf32 x = simd::load(ap + v) * (rm * simd::load(sp + v));
        if (bias) x = x + simd::load(bp + v);
        x = detail::activate(act, x);
        if (residual) x = x + simd::load(rp + v);
        simd::store(op + v, x);
    }
    if (!full) std::memcpy(c, out, ncols * sizeof(float));
}

// Brings [p, p + bytes) into the cache: the next panel's block of weights, read before the tiles
// of this one. A tile does ~20 operations per 16 bytes of weights (4 rows), so the loads of its
// loop that miss are only a few lines apart in the core's reorder window, and each waits out the
// memory's latency nearly alone: BERT-base's 85 MB of int8 weights streamed at ~2 GB/s at 5
// tokens. Here the loads come back to back, dozens of lines in flight at once (BENCHMARKS.md
// "Session 26"). wasm has no prefetch instruction: one volatile byte load per 64-byte line
// (volatile, or the compiler drops a load whose value nobody uses); natively, a prefetch, which
// does not hold up the work after it.
inline void touch_lines(const int8_t* p, size_t bytes) {
#if !SIMDFORMER_SIMD
    (void)p, (void)bytes;  // the scalar build's k-loop is slow enough for the memory to keep up
#elif defined(__wasm__)
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
#endif
    for (size_t i = 0; i < bytes; i += 64) (void)*static_cast<const volatile int8_t*>(p + i);
#else
    for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(p + i);
#endif
}

// ---- a QuantizedA (kernels.h): [m] Qd8Row, padded to 64 bytes, then the values --------------------
// The values are laid out k block by k block (kKc = 1024 columns of k, the blocks both k-loops
// read), each block holding all m rows in tiles of kMr = 4 rows, exactly as one thread's buffer
// holds one block of rows (gemm_i8_qd8.cpp, gemm_i8_relaxed.cpp): a block of rows of the shared
// copy is then read by the same code at a different address.
constexpr size_t kQaKc = 1024;  // both k-loops' k block (a multiple of 4: blocks start on whole quads)
constexpr size_t kQaAlign = 64;
inline size_t qa_params_bytes(size_t m) { return (m * sizeof(Qd8Row) + kQaAlign - 1) / kQaAlign * kQaAlign; }
inline Qd8Row* qa_params(const QuantizedA& qa) { return static_cast<Qd8Row*>(qa.data); }
inline uint8_t* qa_values(const QuantizedA& qa) { return static_cast<uint8_t*>(qa.data) + qa_params_bytes(qa.m); }

// The int8 GEMM in k quads (kernels/gemm_i8_relaxed.cpp) for a quad `kernel` (kQuads7* / kQuads8*):
// the k-loop in the relaxed-SIMD module or its portable twin, activations at the kernel's levels;
// gemm_qd8_qc8w_cols's contract, quantizing A itself (qa null) or reading it from a QuantizedA of
// that kernel (a, lda unused).
void gemm_quads_qc8w_cols(size_t m, size_t n, size_t k, const float* a, size_t lda, const QuantizedA* qa,
                          const void* packed_b, size_t col0, size_t col1, float* c, size_t ldc, const Epilogue& ep,
                          I8Kernel kernel);
// quantize_a_rows for the quad k-loops: k quads of 4 bytes, [m, round_up(k, 4)] bytes in all.
void quantize_a_rows_quads(const QuantizedA& qa, const float* a, size_t lda, size_t row0, size_t row1);

}  // namespace simdformer::kernels::i8detail
