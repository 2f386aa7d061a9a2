// int8 on relaxed SIMD (issue 29, VNNI): the int8 GEMM in k quads, whose k-loop runs in a kernel
// module of its own (kernels/relaxed/i8_dot_block.c, built by clang-19) where the engine validates
// it, and in a portable twin everywhere else.
//
// Each row of A is quantized per row as design (b) quantizes it, to 127 levels (q in [0, 127]
// with a zero point z: the relaxed dot product is defined on every engine only for a 7-bit second
// operand) or, where init found the engine's dot product exact on bytes up to 255, to design (b)'s
// own 255 levels -- as the bytes q where it takes them as unsigned (AVX-VNNI's vpdpbusd), as
// q - 128 where it takes them as signed (Arm's sdot) --, and packed in k quads per tile of 4
// rows. The k-loop sums S = sum_k w(k, j) byte(r, k) exactly in i32 into C; the epilogue
// subtracts (z - offset) * colsum[j] (offset 0 or 128; the packed weights carry their column
// sums) and applies the scales, the bias, the activation and the residual exactly as design (b)
// does, so every result equals design (b)'s on the same quantization -- at 255 levels, design
// (b)'s result -- and does not depend on the thread count, the row's position in the batch or
// which k-loop ran.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "simdformer/kernels/gemm_i8_internal.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/relaxed_module.h"

namespace simdformer::kernels {
namespace {
std::atomic<int> g_kernel{static_cast<int>(I8Kernel::kPairs16)};  // set_i8_kernel
}  // namespace

#if SIMDFORMER_SIMD  // the scalar build (engines without SIMD128) runs only the 8-bit k-loop
namespace {

// relaxed_i8_support's probe: 0 unknown, 1 probing, then 2 + the findings (bit 0 exact7, bit 1
// exact_u8, bit 2 exact_s8).
std::atomic<int> g_relaxed{0};

using i8detail::kNr;
using i8detail::kPairBytes;

#if defined(__clang__)
#define SF_NO_VECTORIZE _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SF_NO_VECTORIZE
#endif

constexpr size_t kMr = 4;     // rows per tile: the module's tiles are 4 rows high
constexpr size_t kKc = 1024;  // k per block, a multiple of 4 so that blocks start on whole quads
constexpr size_t kMc = 64;    // rows quantized at a time: 64 x 1024 bytes = 64 KiB

// Quantized rows of the current block: the tile of rows i .. i + R - 1 (i a multiple of 4, R its
// rows) holds quad q of row i + r at g_a[i * 4 * kq + (q * R + r) * 4].
thread_local uint8_t g_a[kMc * kKc];
thread_local Qd8Row g_rows[kMc];
// C of a ragged last panel (fewer than 8 columns): the module reads and writes whole panels.
thread_local int32_t g_edge[kMc * kNr];

// One call of the k-loop: C[r, 8 jp + j] (i32) = (first ? 0 : C) + sum over the block's k of
// weight * a, rows r < mc, whole panels jp < npanels (kernels/relaxed/i8_dot_block.c).
struct DotBlock {
    const uint8_t* a;
    size_t mc, kq;
    bool odd_pair;  // the last quad holds one pair (the block has an odd number of pairs)
    const int8_t* b;
    size_t panel_stride, npanels;
    int32_t* c;
    size_t ldc;
    bool first;
    bool signed_bytes;  // a's bytes are int8 (q - 128), else uint8 (q); the module does not know
};

// The module's dot_block in portable C++, the same exact sums. Scalar on purpose (no auto-
// vectorization, whose copies of the loop cost more bytes than this whole file): it runs only for
// relaxedSimd: 'portable' and the init check; the SIMD128 builds' fast path is the module.
void dot_block_portable(const DotBlock& d) {
    const size_t pairs = 2 * d.kq - (d.odd_pair ? 1 : 0);
    for (size_t jp = 0; jp < d.npanels; ++jp) {
        const int8_t* b = d.b + jp * d.panel_stride;
        for (size_t i = 0; i < d.mc; i += kMr) {
            const size_t rows = std::min(kMr, d.mc - i);
            const uint8_t* a = d.a + i * 4 * d.kq;
            for (size_t r = 0; r < rows; ++r) {
                int32_t* c = d.c + (i + r) * d.ldc + jp * kNr;
                for (size_t j = 0; j < kNr; ++j) {
                    int32_t s = d.first ? 0 : c[j];
                    SF_NO_VECTORIZE
                    for (size_t p = 0; p < pairs; ++p) {
                        const uint8_t* x = a + (p / 2 * rows + r) * 4 + p % 2 * 2;
                        const int32_t x0 = d.signed_bytes ? int8_t(x[0]) : x[0];
                        const int32_t x1 = d.signed_bytes ? int8_t(x[1]) : x[1];
                        s += int32_t(b[p * kPairBytes + 2 * j]) * x0 + int32_t(b[p * kPairBytes + 2 * j + 1]) * x1;
                    }
                    c[j] = s;
                }
            }
        }
    }
}

bool dot_block_relaxed(const DotBlock& d) {
    return relaxed::i8_dot_block(d.a, d.mc, d.kq, d.odd_pair, d.b, d.panel_stride, d.npanels, d.c, d.ldc, d.first);
}

// The module against the portable loop on every tile height (4, 3, 2, 1 rows), an odd number of
// pairs, two panels, starting from zero and from partial sums, with weights of both signs and
// activation bytes up to `levels` (127 or 255), taken as unsigned or as signed (`signed_bytes`):
// an engine whose relaxed dot product is not that exact sum (Node 20's experimental lowering loses
// an accumulator; bytes of 128 and above are unsigned on some engines, signed on others, and
// saturate pairs on x86 without AVX-VNNI) fails it.
// Cold (once per module), compiled for size in clang builds: link-time optimization otherwise
// inlined it, with the portable loop, into relaxed_i8_support (+1 KB in wasm).
#if defined(__clang__)
__attribute__((minsize, noinline))
#endif
bool relaxed_module_works(int levels, bool signed_bytes) {
    constexpr size_t kM = 10, kPairs = 5, kQuads = 3, kPanels = 2, kLdc = kPanels * kNr + 3;
    alignas(16) static uint8_t a[kM * 4 * kQuads];
    alignas(16) static int8_t b[kPanels * kPairs * kPairBytes];
    alignas(16) static int32_t c_module[kM * kLdc], c_portable[kM * kLdc];
    uint32_t x = 12345;
    auto next = [&x] { return (x = x * 1103515245u + 12345u) >> 16; };
    for (auto& v : a) v = uint8_t(next() % uint32_t(levels + 1));
    for (auto& v : b) v = int8_t(int(next() % 256) - 128);
    a[0] = uint8_t(levels), a[1] = uint8_t(levels / 2 + 1), b[0] = -128, b[1] = 127;  // the extremes
    for (size_t mc : {kM, size_t(3), size_t(1)}) {
        for (bool first : {true, false}) {
            for (size_t i = 0; i < kM * kLdc; ++i) c_module[i] = c_portable[i] = int32_t(next() % 2001) - 1000;
            DotBlock d{a, mc, kQuads, true, b, kPairs * kPairBytes, kPanels, c_module, kLdc, first, signed_bytes};
            if (!dot_block_relaxed(d)) return false;
            d.c = c_portable;
            dot_block_portable(d);
            if (std::memcmp(c_module, c_portable, sizeof(c_module)) != 0) return false;
        }
    }
    return true;
}

void dot_block(const DotBlock& d, bool relaxed) {
    if (!relaxed || !dot_block_relaxed(d)) dot_block_portable(d);
}

// Quantizes columns [pc, pc + kc) of rows [0, mc) of A (whose parameters are in g_rows) into
// g_a, tile by tile.
void pack_a_block(size_t mc, size_t pc, size_t kc, const float* a, size_t lda, const QuadBytes& qb) {
    const size_t kq = (kc + 3) / 4;
    for (size_t i = 0; i < mc; i += kMr) {
        const size_t rows = std::min(kMr, mc - i);
        for (size_t r = 0; r < rows; ++r)
            quantize_row_quads(kc, a + (i + r) * lda + pc, g_rows[i + r], qb.levels, qb.signed_bytes,
                               g_a + i * 4 * kq + 4 * r, rows);
    }
}

// The k-loop over panels [jp0, jp1) of one k block; a ragged last panel (`edge` < 8 columns of C)
// goes through g_edge, since the module reads and writes whole panels.
void dot_panels(const DotBlock& whole, size_t jp1_full, size_t edge, bool relaxed) {
    DotBlock d = whole;
    d.npanels = jp1_full;
    if (d.npanels) dot_block(d, relaxed);
    if (!edge) return;
    int32_t* c = whole.c + jp1_full * kNr;
    for (size_t r = 0; r < whole.mc; ++r) {
        std::fill(g_edge + r * kNr, g_edge + (r + 1) * kNr, 0);
        if (!whole.first) std::memcpy(g_edge + r * kNr, c + r * whole.ldc, edge * sizeof(int32_t));
    }
    d.b = whole.b + jp1_full * whole.panel_stride;
    d.npanels = 1;
    d.c = g_edge;
    d.ldc = kNr;
    dot_block(d, relaxed);
    for (size_t r = 0; r < whole.mc; ++r) std::memcpy(c + r * whole.ldc, g_edge + r * kNr, edge * sizeof(int32_t));
}

// C (i32 sums S of rows [0, mc), columns [col0, col_end), of bytes q - offset) -> the epilogue of
// design (b): the exact sum of w * (q - z) is S - (z - offset) * colsum, then the scales, bias,
// activation and residual.
void finish_block(size_t mc, const Qd8Row* rows, int32_t offset, size_t col0, size_t col_end, const float* scales,
                  const int32_t* colsums, float* c, size_t ldc, const Epilogue& ep, const float* residual) {
    for (size_t r = 0; r < mc; ++r) {
        const Qd8Row& row = rows[r];
        for (size_t col = col0; col < col_end; col += kNr) {
            const size_t ncols = std::min(kNr, col_end - col);
            float* cr = c + r * ldc + col;
            // |sum of w * (q - z)| <= 128 * 255 * kQd8MaxK < 2^31: the difference is exact in
            // wrapping 32-bit arithmetic whatever S and z * colsum are on their own.
            uint32_t sums[kNr] = {};
            std::memcpy(sums, cr, ncols * sizeof(uint32_t));
            float acc[kNr];
            for (size_t j = 0; j < kNr; ++j) {
                const uint32_t correction = uint32_t(row.zero - offset) * uint32_t(colsums[col + j]);
                acc[j] = static_cast<float>(static_cast<int32_t>(sums[j] - correction));
            }
            i8detail::finish_row(acc, ep.alpha * row.scale, scales + col, ep.bias ? ep.bias + col : nullptr,
                                 ep.activation, residual ? residual + r * ep.ld_residual + col : nullptr, cr, ncols);
        }
    }
}

}  // namespace

#endif  // SIMDFORMER_SIMD

RelaxedI8Support relaxed_i8_support() {
    RelaxedI8Support found;
#if SIMDFORMER_SIMD
    // Probed once, by the first caller; a caller that arrives meanwhile waits for its answer. Not
    // a function-local static: the wasm builds compile without thread-safe statics (issue 30), and
    // the checks must not run twice at once (their buffers are static).
    static_assert(std::atomic<int>::is_always_lock_free);
    enum : int { kUnknown, kProbing, kDone };
    int state = g_relaxed.load(std::memory_order_acquire);
    if (state < kDone) {
        int expected = kUnknown;
        if (g_relaxed.compare_exchange_strong(expected, kProbing, std::memory_order_acq_rel)) {
            const bool valid = relaxed::module_validates();
            const bool exact7 = valid && relaxed_module_works(127, false);
            const bool exact_u8 = exact7 && relaxed_module_works(255, false);
            const bool exact_s8 = exact7 && !exact_u8 && relaxed_module_works(255, true);
            state = kDone + (exact7 ? 1 : 0) + (exact_u8 ? 2 : 0) + (exact_s8 ? 4 : 0);
            g_relaxed.store(state, std::memory_order_release);
        } else {
            while ((state = g_relaxed.load(std::memory_order_acquire)) < kDone) {
            }
        }
    }
    const int bits = state - kDone;
    found.exact7 = bits & 1;
    found.exact_u8 = bits & 2;
    found.exact_s8 = bits & 4;
#endif
    return found;
}

I8Kernel best_quad_kernel(bool relaxed) {
    const RelaxedI8Support s = relaxed_i8_support();
    if (s.exact_u8) return relaxed ? I8Kernel::kQuadsU8Relaxed : I8Kernel::kQuadsU8Portable;
    if (s.exact_s8) return relaxed ? I8Kernel::kQuadsS8Relaxed : I8Kernel::kQuadsS8Portable;
    return relaxed ? I8Kernel::kQuads7Relaxed : I8Kernel::kQuads7Portable;
}

I8Kernel auto_i8_kernel() {
    // 8-bit activations on the relaxed dot product where it is exact on them (one vpdpbusd per 16
    // multiply-adds on x86 with AVX-VNNI: BENCHMARKS.md, session 23; sdot on Arm), else the 8-bit
    // pair loop. An engine exact only on 7-bit bytes adds products in pairs into 16 bits with
    // saturation (V8 on x86 without AVX-VNNI: pmaddubsw + pmaddwd), which on AMD Zen 4 was no faster
    // than the pair loop (session 22: within +-4 %), and 7-bit activations cost accuracy (BERT-base
    // cosine 0.99883 to f32, under the 0.999 bound): true still runs it there.
    const I8Kernel best = best_quad_kernel(true);
    return quad_bytes(best).levels == 255 ? best : I8Kernel::kPairs16;
}

QuadBytes quad_bytes(I8Kernel kernel) {
    switch (kernel) {
        case I8Kernel::kQuads7Relaxed: return {127, false, true};
        case I8Kernel::kQuads7Portable: return {127, false, false};
        case I8Kernel::kQuadsU8Relaxed: return {255, false, true};
        case I8Kernel::kQuadsU8Portable: return {255, false, false};
        case I8Kernel::kQuadsS8Relaxed: return {255, true, true};
        case I8Kernel::kQuadsS8Portable: return {255, true, false};
        case I8Kernel::kPairs16: break;
    }
    return {};
}

bool set_i8_kernel(I8Kernel kernel) {
    const RelaxedI8Support s = kernel == I8Kernel::kPairs16 ? RelaxedI8Support{} : relaxed_i8_support();
    if (kernel == I8Kernel::kQuads7Relaxed && !s.exact7) return false;
    if (kernel == I8Kernel::kQuadsU8Relaxed && !s.exact_u8) return false;
    if (kernel == I8Kernel::kQuadsS8Relaxed && !s.exact_s8) return false;
    if (quad_bytes(kernel).levels && !SIMDFORMER_SIMD) return false;
    g_kernel.store(static_cast<int>(kernel), std::memory_order_relaxed);
    return true;
}

I8Kernel i8_kernel() { return static_cast<I8Kernel>(g_kernel.load(std::memory_order_relaxed)); }

#if SIMDFORMER_SIMD
namespace i8detail {

// Not inlined: one copy serves both callers (the threads build's size budget).
__attribute__((noinline)) void gemm_quads_qc8w_cols(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                                    const QuantizedA* qa, const void* packed_b, size_t col0,
                                                    size_t col1, float* c, size_t ldc, const Epilogue& ep,
                                                    I8Kernel kernel) {
    const QuadBytes qb = quad_bytes(kernel);
    const int32_t offset = qb.signed_bytes ? 128 : 0;  // byte = q - offset
    const auto* panels = static_cast<const int8_t*>(packed_b);
    const float* scales = packed_i8_scales(k, n, packed_b);
    const int32_t* colsums = packed_i8_colsums(k, n, packed_b);
    const size_t pb = panel_bytes(k);
    const size_t col_end = std::min(col1, n);
    if (col0 >= col_end) return;
    const size_t jp0 = col0 / kNr, jp1 = i8detail::panels(col_end);
    const size_t edge = col_end % kNr;  // columns of a ragged last panel (0: whole)
    const size_t full = jp1 - jp0 - (edge ? 1 : 0);
    for (size_t ic = 0; ic < m; ic += kMc) {
        const size_t mc = std::min(kMc, m - ic);
        const Qd8Row* rows = qa ? qa_params(*qa) + ic : g_rows;  // quantized once, or here
        if (!qa) {
            for (size_t r = 0; r < mc; ++r) g_rows[r] = qd8_row_params(k, a + (ic + r) * lda, qb.levels);
        }
        // k == 0 still runs one (empty) block, so that C = epilogue(0).
        for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
            const size_t kc = std::min(kKc, k - pc);
            const size_t kc2 = (kc + 1) / 2, kq = (kc2 + 1) / 2;
            // This block of rows: quantized here, or in the shared copy after m rows of each
            // earlier (kKc-byte) block, tile i of the block at i * 4 * kq as here.
            const uint8_t* a_block = g_a;
            if (qa) a_block = qa_values(*qa) + qa->m * pc + ic * 4 * kq;
            else pack_a_block(mc, pc, kc, a + ic * lda, lda, qb);
            DotBlock d{a_block, mc, kq, kc2 % 2 == 1, panels + jp0 * pb + pc / 2 * kPairBytes, pb, 0,
                       reinterpret_cast<int32_t*>(c + ic * ldc + col0), ldc, pc == 0, qb.signed_bytes};
            dot_panels(d, full, edge, qb.relaxed);
            if (k == 0) break;
        }
        finish_block(mc, rows, offset, col0, col_end, scales, colsums, c + ic * ldc, ldc, ep,
                     ep.residual ? ep.residual + ic * ep.ld_residual : nullptr);
    }
}

void quantize_a_rows_quads(const QuantizedA& qa, const float* a, size_t lda, size_t row0, size_t row1) {
    const QuadBytes qb = quad_bytes(qa.kernel);
    static_assert(kKc == kQaKc && kMc % kMr == 0, "a QuantizedA's blocks are this k-loop's blocks");
    Qd8Row* params = qa_params(qa);
    uint8_t* values = qa_values(qa);
    for (size_t row = row0; row < row1; ++row) {
        const float* x = a + row * lda;
        params[row] = qd8_row_params(qa.k, x, qb.levels);
        const size_t tile = row - row % kMr, rows = std::min(kMr, qa.m - tile);
        for (size_t pc = 0; pc < qa.k; pc += kKc) {
            // Every earlier k block is kKc bytes per row; tile at tile * 4 * kq, row r at 4 r.
            const size_t kc = std::min(kKc, qa.k - pc), kq = (kc + 3) / 4;
            quantize_row_quads(kc, x + pc, params[row], qb.levels, qb.signed_bytes,
                               values + qa.m * pc + tile * 4 * kq + 4 * (row - tile), rows);
        }
    }
}

}  // namespace i8detail
#endif  // SIMDFORMER_SIMD
}  // namespace simdformer::kernels
