// Design (b): int8 x int8 GEMM with dynamically quantized activations ("qd8" x "qc8w").
//
// Each row of A is quantized on the fly (per-row asymmetric, quantize_row_qd8) and widened to
// i16 pairs; the packed weights are sign-extended from int8 to i16 as they are loaded; one
// i32x4.dot_i16x8_s (pmaddwd natively) then multiplies a k pair of four columns and adds the two
// products, so every instruction does 8 multiply-adds against 4 for f32. Sums are exact i32, so
// the order of accumulation cannot change a result; the per-row activation scale and the
// per-channel weight scale are applied once, in the epilogue.
//
// Register tile: kMr = 4 rows x 8 columns = 8 i32x4 accumulators + 2 weight vectors + 1
// broadcast pair. Rows of A are packed per tile in k-pair-major order (pair p of rows 0..3 next
// to each other) so that A and B each stream through one pointer, as in the f32 GEMM.
//
// A block of packed rows comes from this thread's buffers (quantized here, block by block) or
// from a QuantizedA that the threads of a column split quantized once together (kernels.h):
// the same bytes at another address, read by the same tiles.
#include <algorithm>
#include <cstring>

#include "simdformer/kernels/gemm_i8_internal.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd_i8.h"

namespace simdformer::kernels {
namespace {

using i8detail::kNr;
using i8detail::kPairBytes;

constexpr size_t kMr = 4;     // rows per tile (5 and 6 rows measured slower in wasm)
constexpr size_t kKc = 1024;  // k per block (even): a panel block of 8 KiB stays in L1
constexpr size_t kMc = 64;    // rows quantized at a time: 64 x 1024 i16 = 128 KiB

// Quantized rows of the current block: tile i (rows 4i..4i+3) holds pair p of row r at
// g_a[i * 4 * kc2 + p * R + r] (R = rows of that tile), each entry one i32 = two i16.
thread_local int32_t g_a[kMc * kKc / 2];
thread_local Qd8Row g_rows[kMc];

struct TileArgs {
    size_t kc2;             // k pairs in this block
    const int32_t* a;       // [kc2, R] packed pairs of this tile's rows
    const int8_t* panel;    // [kc2, 16] block of one packed panel
    float* c;               // [R, ncols] at the tile's first element, row stride ldc
    size_t ldc;
    size_t ncols;           // valid columns (kNr except at the right edge)
    bool first, last;       // first k block: start from zero; last: apply the epilogue
    const Qd8Row* rows;     // [R] quantization of the tile's rows
    const float* scale;     // [kNr] per-channel weight scales of the panel
    const float* bias;      // [ncols] or null
    const float* residual;  // at the tile's first element, or null
    size_t ld_residual;
};

// Partial sums of earlier k blocks live in C as i32 bit patterns until the last block.
inline void load_partial(const float* c, size_t ncols, int32_t* acc) {
    std::memcpy(acc, c, ncols * sizeof(int32_t));
    for (size_t j = ncols; j < kNr; ++j) acc[j] = 0;
}
inline void store_partial(float* c, size_t ncols, const int32_t* acc) { std::memcpy(c, acc, ncols * sizeof(int32_t)); }

// The end of a k block: partial i32 sums stay in C, or the last block's sums (already f32 in
// `acc`) go through the epilogue.
template <size_t R>
void finish(const TileArgs& t, const Epilogue& ep, const int32_t (&sums)[R][kNr], const float (&acc)[R][kNr]) {
    for (size_t r = 0; r < R; ++r) {
        if (!t.last) {
            store_partial(t.c + r * t.ldc, t.ncols, sums[r]);
            continue;
        }
        i8detail::finish_row(acc[r], ep.alpha * t.rows[r].scale, t.scale, t.bias, ep.activation,
                             t.residual ? t.residual + r * t.ld_residual : nullptr, t.c + r * t.ldc, t.ncols);
    }
}

#if SIMDFORMER_I8_SIMD
namespace v = simd::i8;

// Not inlined: a micro-kernel in its own small function gets its accumulators in registers from
// V8, where inlined into the (large) driver it did not.
template <size_t R>
__attribute__((noinline)) void tile(const TileArgs& t, const Epilogue& ep) {
    v::vi acc[R][2];
    for (size_t r = 0; r < R; ++r) {
        if (t.first) {
            acc[r][0] = acc[r][1] = v::zero_i();
        } else {
            int32_t prev[kNr];
            load_partial(t.c + r * t.ldc, t.ncols, prev);
            acc[r][0] = v::load_i(prev);
            acc[r][1] = v::load_i(prev + 4);
        }
    }
    // HOT LOOP, per k pair: 2 loads that sign-extend 8 weight bytes to i16 (4 columns x 2 k
    // each), and per row 1 broadcast of the row's i16 pair + 2 dot products + 2 adds.
    const int32_t* ap = t.a;
    const int8_t* bp = t.panel;
    for (size_t p = 0; p < t.kc2; ++p, ap += R, bp += kPairBytes) {
        const v::vi b0 = v::load_i8_as_i16(bp);
        const v::vi b1 = v::load_i8_as_i16(bp + 8);
        for (size_t r = 0; r < R; ++r) {
            const v::vi a = v::load32_splat(ap + r);
            acc[r][0] = v::add_i32(acc[r][0], v::dot_i16(b0, a));
            acc[r][1] = v::add_i32(acc[r][1], v::dot_i16(b1, a));
        }
    }
    int32_t sums[R][kNr];
    float fsums[R][kNr];
    for (size_t r = 0; r < R; ++r) {
        if (t.last) {
            v::store_f(fsums[r], v::f32_from_i32(acc[r][0]));
            v::store_f(fsums[r] + 4, v::f32_from_i32(acc[r][1]));
        } else {
            v::store_i(sums[r], acc[r][0]);
            v::store_i(sums[r] + 4, acc[r][1]);
        }
    }
    finish<R>(t, ep, sums, fsums);
}

#else  // scalar: the same exact integer sums

template <size_t R>
void tile(const TileArgs& t, const Epilogue& ep) {
    int32_t sums[R][kNr];
    for (size_t r = 0; r < R; ++r) {
        if (t.first) std::fill(sums[r], sums[r] + kNr, 0);
        else load_partial(t.c + r * t.ldc, t.ncols, sums[r]);
    }
    const int32_t* ap = t.a;
    const int8_t* bp = t.panel;
    for (size_t p = 0; p < t.kc2; ++p, ap += R, bp += kPairBytes) {
        for (size_t r = 0; r < R; ++r) {
            int16_t a[2];
            std::memcpy(a, ap + r, sizeof(a));
            for (size_t j = 0; j < kNr; ++j) sums[r][j] += a[0] * bp[2 * j] + a[1] * bp[2 * j + 1];
        }
    }
    float fsums[R][kNr];
    for (size_t r = 0; r < R; ++r)
        for (size_t j = 0; j < kNr; ++j) fsums[r][j] = static_cast<float>(sums[r][j]);
    finish<R>(t, ep, sums, fsums);
}
#endif

void tile_rows(size_t rows, const TileArgs& t, const Epilogue& ep) {
    switch (rows) {
        case 4: tile<4>(t, ep); break;
        case 3: tile<3>(t, ep); break;
        case 2: tile<2>(t, ep); break;
        case 1: tile<1>(t, ep); break;
        default: break;
    }
}

// Quantizes columns [pc, pc + kc) of rows [0, mc) of A (whose parameters are in g_rows) into
// g_a, tile by tile.
void pack_a_block(size_t mc, size_t pc, size_t kc, const float* a, size_t lda) {
    const size_t kc2 = (kc + 1) / 2;
    for (size_t i = 0; i < mc; i += kMr) {
        const size_t rows = std::min(kMr, mc - i);
        int32_t* dst = g_a + i * kc2;
        for (size_t r = 0; r < rows; ++r)
            quantize_row_qd8(kc, a + (i + r) * lda + pc, g_rows[i + r], reinterpret_cast<int16_t*>(dst + r), rows);
    }
}

static_assert(kKc == i8detail::kQaKc && kMc % kMr == 0, "a QuantizedA's blocks are this k-loop's blocks");

// Where the driver finds each block of quantized rows: in a QuantizedA shared by the threads, or
// quantized here, block by block, into this thread's g_rows and g_a.
struct RowSource {
    const float* a;
    size_t lda;
    const QuantizedA* qa;  // null: quantize a

    // The parameters of rows [ic, ic + mc) (k values each).
    const Qd8Row* params(size_t ic, size_t mc, size_t k) const {
        if (qa) return i8detail::qa_params(*qa) + ic;
        for (size_t r = 0; r < mc; ++r) g_rows[r] = qd8_row_params(k, a + (ic + r) * lda);
        return g_rows;
    }
    // Columns [pc, pc + kc) of rows [ic, ic + mc), tile i (i a multiple of 4) at i * (kc + 1) / 2.
    const int32_t* block(size_t ic, size_t mc, size_t pc, size_t kc) const {
        if (!qa) {
            pack_a_block(mc, pc, kc, a + ic * lda, lda);
            return g_a;
        }
        // Every earlier k block is kKc wide: m rows of kKc / 2 pairs each.
        const auto* values = reinterpret_cast<const int32_t*>(i8detail::qa_values(*qa));
        return values + qa->m * (pc / 2) + ic * ((kc + 1) / 2);
    }
};

// gemm_qd8_qc8w_cols with the rows of A from `src`. Not inlined: one copy serves both callers
// (the threads build's size budget; a call per GEMM costs nothing).
__attribute__((noinline)) void gemm_cols(size_t m, size_t n, size_t k, const RowSource& src, const void* packed_b, size_t col0, size_t col1,
               float* c, size_t ldc, const Epilogue& ep) {
    const auto* panels = static_cast<const int8_t*>(packed_b);
    const float* scales = packed_i8_scales(k, n, packed_b);
    const size_t pb = i8detail::panel_bytes(k);
    const size_t jp0 = col0 / kNr, jp1 = i8detail::panels(std::min(col1, n));
    for (size_t ic = 0; ic < m; ic += kMc) {
        const size_t mc = std::min(kMc, m - ic);
        const Qd8Row* rows = src.params(ic, mc, k);
        // k == 0 still runs one (empty) block so that C = epilogue(0).
        for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
            const size_t kc = std::min(kKc, k - pc);
            const int32_t* a_block = src.block(ic, mc, pc, kc);
            for (size_t jp = jp0; jp < jp1; ++jp) {
                const size_t col = jp * kNr;
                TileArgs t{};
                t.kc2 = (kc + 1) / 2;
                t.panel = panels + jp * pb + pc / 2 * kPairBytes;
                // The first block of rows brings the next panel's block in (gemm_i8_internal.h).
                if (ic == 0 && jp + 1 < jp1) i8detail::touch_lines(t.panel + pb, t.kc2 * kPairBytes);
                t.ldc = ldc;
                t.ncols = std::min(kNr, std::min(col1, n) - col);
                t.first = pc == 0;
                t.last = pc + kKc >= k;
                t.scale = scales + col;
                t.bias = ep.bias ? ep.bias + col : nullptr;
                t.ld_residual = ep.ld_residual;
                for (size_t i = 0; i < mc; i += kMr) {  // the panel block stays in L1 for every row tile
                    const size_t row = ic + i;
                    t.a = a_block + i * t.kc2;
                    t.rows = rows + i;
                    t.c = c + row * ldc + col;
                    t.residual = ep.residual ? ep.residual + row * ep.ld_residual + col : nullptr;
                    tile_rows(std::min(kMr, mc - i), t, ep);
                }
            }
            if (k == 0) break;
        }
    }
}

// quantize_a_rows for design (b): i16 pairs, [m, ceil(k / 2)] i32 in all.
void quantize_a_rows_qd8(const QuantizedA& qa, const float* a, size_t lda, size_t row0, size_t row1) {
    Qd8Row* params = i8detail::qa_params(qa);
    auto* values = reinterpret_cast<int32_t*>(i8detail::qa_values(qa));
    for (size_t row = row0; row < row1; ++row) {
        const float* x = a + row * lda;
        params[row] = qd8_row_params(qa.k, x);
        const size_t tile = row - row % kMr, rows = std::min(kMr, qa.m - tile);
        for (size_t pc = 0; pc < qa.k; pc += kKc) {
            const size_t kc = std::min(kKc, qa.k - pc);
            int32_t* dst = values + qa.m * (pc / 2) + tile * ((kc + 1) / 2) + (row - tile);
            quantize_row_qd8(kc, x + pc, params[row], reinterpret_cast<int16_t*>(dst), rows);
        }
    }
}

bool is_quads(I8Kernel kernel) { return SIMDFORMER_SIMD && quad_bytes(kernel).levels != 0; }

}  // namespace

void gemm_qd8_qc8w_cols(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b,
                        size_t col0, size_t col1, float* c, size_t ldc, const Epilogue& ep) {
#if SIMDFORMER_SIMD  // the scalar build has only this k-loop
    if (const I8Kernel kernel = i8_kernel(); kernel != I8Kernel::kPairs16)
        return i8detail::gemm_quads_qc8w_cols(m, n, k, a, lda, nullptr, packed_b, col0, col1, c, ldc, ep, kernel);
#endif
    gemm_cols(m, n, k, RowSource{a, lda, nullptr}, packed_b, col0, col1, c, ldc, ep);
}

void gemm_qd8_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b, float* c,
                   size_t ldc, const Epilogue& ep) {
    gemm_qd8_qc8w_cols(m, n, k, a, lda, packed_b, 0, n, c, ldc, ep);
}

size_t quantized_a_row_bytes(I8Kernel kernel, size_t k) {
    const size_t values = is_quads(kernel) ? (k + 3) / 4 * 4 : (k + 1) / 2 * sizeof(int32_t);
    return sizeof(Qd8Row) + values;
}

size_t quantized_a_bytes(I8Kernel kernel, size_t m, size_t k) {
    return i8detail::qa_params_bytes(m) + m * (quantized_a_row_bytes(kernel, k) - sizeof(Qd8Row));
}

void quantize_a_rows(const QuantizedA& qa, const float* a, size_t lda, size_t row0, size_t row1) {
#if SIMDFORMER_SIMD
    if (is_quads(qa.kernel)) return i8detail::quantize_a_rows_quads(qa, a, lda, row0, row1);
#endif
    quantize_a_rows_qd8(qa, a, lda, row0, row1);
}

void gemm_qd8_qc8w_quantized_cols(const QuantizedA& qa, size_t n, const void* packed_b, size_t col0, size_t col1,
                                  float* c, size_t ldc, const Epilogue& ep) {
#if SIMDFORMER_SIMD
    if (is_quads(qa.kernel))
        return i8detail::gemm_quads_qc8w_cols(qa.m, n, qa.k, nullptr, 0, &qa, packed_b, col0, col1, c, ldc, ep,
                                              qa.kernel);
#endif
    gemm_cols(qa.m, n, qa.k, RowSource{nullptr, 0, &qa}, packed_b, col0, col1, c, ldc, ep);
}

}  // namespace simdformer::kernels
