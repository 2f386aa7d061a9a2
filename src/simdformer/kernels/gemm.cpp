// GEMM: the hot spot of every layer. B is packed into column panels once (weights at load time,
// K/V per head at run time); a register-tiled micro-kernel computes an kMr x kNr tile of C while
// streaming one panel and broadcasting kMr rows of A.
//
// Tile choice: 4 rows x 2 vectors (4x8 for 128-bit lanes) keeps 8 accumulators + 2 B vectors + 1
// broadcast in registers. Measured alternatives (BENCHMARKS.md, bench/gemm_ab.mjs): 5x8 and 6x8
// tiles spill in V8 (x1.5 slower), XNNPACK's "splat" variant (one A vector load + lane shuffles)
// loses to load32_splat on x86 (x1.25), a 1x32 row kernel for decoding gains nothing (the
// one-row GEMM is bound by streaming B), and seeding the accumulators with the bias gains
// nothing over adding it in the epilogue. What did pay: no k-blocking for k <= kKc (each C tile
// is written once instead of being reloaded per k-block) and calling the 4-row tile directly.
#include <algorithm>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

constexpr size_t kNrVecs = kLanes == 1 ? 4 : 2;  // the scalar build uses 4x4 scalar tiles
constexpr size_t kNr = kNrVecs * kLanes;          // columns per panel
constexpr size_t kMr = 4;                         // rows per tile
constexpr size_t kKc = 1024;  // k-block: every BERT/GPT-2 projection but the FFN output is one block
constexpr size_t kMc = 128;   // rows of A packed at a time (kMc x kKc floats = 512 KiB per thread)

// Packed A block: rows in groups of kMr, k-major inside a group, so the micro-kernel reads one
// contiguous stream for A as it does for B. Static (not allocated per call): kernels never
// allocate, and the buffer is reused by every GEMM of the thread.
thread_local float g_a_block[kMc * kKc];

struct TileArgs {
    size_t kc;              // depth of this k-block
    const float* a;         // packed rows of this tile: element (r, p) at a[p * rows + r]
    const float* panel;     // [kc, kNr] packed block of B
    float* c;               // [rows, ncols] at the tile's first element, row stride ldc
    size_t ldc;
    size_t ncols;           // valid columns of the tile (kNr except at the right edge)
    bool first, last;       // first k-block: start from zero; last: apply the epilogue
    const float* bias;      // [ncols] at the tile's first column, or null
    const float* residual;  // at the tile's first element, or null
    size_t ld_residual;
};

// Loads kNr floats of a row that may be cut short at the right edge (zero fill).
inline void load_row(const float* p, size_t ncols, vf32* out) {
    if (ncols == kNr) {
        for (size_t v = 0; v < kNrVecs; ++v) out[v] = simd::load(p + v * kLanes);
        return;
    }
    float tmp[kNr] = {};
    std::copy(p, p + ncols, tmp);
    for (size_t v = 0; v < kNrVecs; ++v) out[v] = simd::load(tmp + v * kLanes);
}

inline void store_row(float* p, size_t ncols, const vf32* in) {
    if (ncols == kNr) {
        for (size_t v = 0; v < kNrVecs; ++v) simd::store(p + v * kLanes, in[v]);
        return;
    }
    float tmp[kNr];
    for (size_t v = 0; v < kNrVecs; ++v) simd::store(tmp + v * kLanes, in[v]);
    std::copy(tmp, tmp + ncols, p);
}

// The micro-kernel for R rows (R = kMr in the interior, fewer on the bottom edge). Every element
// of C sees the same sequence of operations whatever R and ncols are, so results do not depend
// on where a row sits in a batch.
template <size_t R>
void tile(const TileArgs& t, const Epilogue& ep) {
    vf32 acc[R][kNrVecs];
    for (size_t r = 0; r < R; ++r) {
        if (t.first) {
            for (size_t v = 0; v < kNrVecs; ++v) acc[r][v] = vf32(0.0f);
        } else {
            load_row(t.c + r * t.ldc, t.ncols, acc[r]);  // partial sums of earlier k-blocks
        }
    }

    // HOT LOOP: kNrVecs loads of B, R broadcasts of A, R * kNrVecs multiply-adds per step; A and
    // B each stream through one pointer, so addresses come from constant offsets.
    const float* ap = t.a;
    const float* bp = t.panel;
    for (size_t p = 0; p < t.kc; ++p, ap += R, bp += kNr) {
        vf32 b[kNrVecs];
        for (size_t v = 0; v < kNrVecs; ++v) b[v] = simd::load(bp + v * kLanes);
        for (size_t r = 0; r < R; ++r) {
            const vf32 av = simd::splat(ap[r]);
            for (size_t v = 0; v < kNrVecs; ++v) acc[r][v] = simd::fma(av, b[v], acc[r][v]);
        }
    }

    if (t.last) {
        vf32 bias[kNrVecs];
        if (t.bias) load_row(t.bias, t.ncols, bias);
        const vf32 alpha(ep.alpha);
        for (size_t r = 0; r < R; ++r) {
            vf32 res[kNrVecs];
            if (t.residual) load_row(t.residual + r * t.ld_residual, t.ncols, res);
            for (size_t v = 0; v < kNrVecs; ++v) {
                vf32 x = acc[r][v] * alpha;
                if (t.bias) x = x + bias[v];
                x = detail::activate(ep.activation, x);
                if (t.residual) x = x + res[v];
                acc[r][v] = x;
            }
        }
    }
    for (size_t r = 0; r < R; ++r) store_row(t.c + r * t.ldc, t.ncols, acc[r]);
}

// The bottom edge: fewer than kMr rows left.
void tile_rows(size_t rows, const TileArgs& t, const Epilogue& ep) {
    switch (rows) {
        case 3: tile<3>(t, ep); break;
        case 2: tile<2>(t, ep); break;
        case 1: tile<1>(t, ep); break;
        default: break;
    }
}

// Packs rows [0, rows) x columns [0, kc) of A (row stride lda) into g_a_block, kMr rows at a
// time (the last group may have fewer rows and then uses that many as its stride).
void pack_a_block(size_t rows, size_t kc, const float* a, size_t lda) {
    float* dst = g_a_block;
    for (size_t i = 0; i < rows; i += kMr) {
        const size_t r_count = std::min(kMr, rows - i);
        for (size_t p = 0; p < kc; ++p)
            for (size_t r = 0; r < r_count; ++r) *dst++ = a[(i + r) * lda + p];
    }
}

}  // namespace

const char* simd_arch() { return simd::arch_name(); }
size_t simd_lanes() { return kLanes; }
size_t gemm_panel_width() { return kNr; }

size_t packed_b_size(size_t k, size_t n) { return (n + kNr - 1) / kNr * kNr * k; }

void pack_b(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, float* packed) {
    const size_t panels = (n + kNr - 1) / kNr;
    for (size_t jp = 0; jp < panels; ++jp) {
        const size_t j0 = jp * kNr;
        const size_t width = std::min(kNr, n - j0);
        float* dst = packed + jp * k * kNr;
        for (size_t p = 0; p < k; ++p, dst += kNr) {
            const float* src = b + p * row_stride + j0 * col_stride;
            size_t jj = 0;
            for (; jj < width; ++jj) dst[jj] = src[jj * col_stride];
            for (; jj < kNr; ++jj) dst[jj] = 0.0f;
        }
    }
}

void gemm_f32_packed(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* packed_b,
                     float* c, size_t ldc, const Epilogue& ep) {
    const size_t panels = (n + kNr - 1) / kNr;
    // k == 0 still runs one (empty) block so that C = epilogue(0).
    for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
        const size_t kc = std::min(kKc, k - pc);
        for (size_t ic = 0; ic < m; ic += kMc) {
            const size_t mc = std::min(kMc, m - ic);
            pack_a_block(mc, kc, a + ic * lda + pc, lda);
            const size_t full = mc / kMr * kMr;  // rows in complete kMr-row tiles
            TileArgs t{};
            t.kc = kc;
            t.ldc = ldc;
            t.first = pc == 0;
            t.last = pc + kKc >= k;
            t.ld_residual = ep.ld_residual;
            for (size_t jp = 0; jp < panels; ++jp) {
                const size_t col0 = jp * kNr;
                t.panel = packed_b + (jp * k + pc) * kNr;
                t.ncols = std::min(kNr, n - col0);
                t.bias = ep.bias ? ep.bias + col0 : nullptr;
                // The panel stays in L1 while every row tile of the block streams past it.
                for (size_t i = 0; i < mc; i += kMr) {
                    const size_t row = ic + i;
                    t.a = g_a_block + i * kc;
                    t.c = c + row * ldc + col0;
                    t.residual = ep.residual ? ep.residual + row * ep.ld_residual + col0 : nullptr;
                    if (i < full) {
                        tile<kMr>(t, ep);  // interior: inlined here, not reached through a switch
                    } else {
                        tile_rows(mc - full, t, ep);
                    }
                }
            }
        }
        if (k == 0) break;
    }
}

void gemm_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
              float* c, size_t ldc, float* scratch, const Epilogue& ep) {
    pack_b(k, n, b, ldb, 1, scratch);
    gemm_f32_packed(m, n, k, a, lda, scratch, c, ldc, ep);
}

void gemm_f32_nt(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                 float* c, size_t ldc, float* scratch, const Epilogue& ep) {
    pack_b(k, n, b, 1, ldb, scratch);
    gemm_f32_packed(m, n, k, a, lda, scratch, c, ldc, ep);
}

}  // namespace simdformer::kernels
