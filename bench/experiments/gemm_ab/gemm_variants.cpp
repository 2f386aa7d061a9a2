// The GEMM micro-kernel experiments of BENCHMARKS.md ("GEMM micro-kernel experiments"): a copy
// of kernels/gemm.cpp as it was before them, restructured (full row tiles called directly, the
// row remainder after every panel) and with compile-time knobs. Not part of the library build;
// bench/experiments/gemm_ab/build.sh links it into a module for bench/experiments/gemm-ab.mjs, e.g.
//   AB_FLAGS="-DSF_SPLAT=1" bash bench/experiments/gemm_ab/build.sh splat bench/experiments/gemm_ab/gemm_variants.cpp
// Knobs: SF_KC (k-block), SF_MC (rows of A per packed block), SF_ABUDGET (packed-A floats; rows
// per block = budget / k-block), SF_MR (tile rows: 4, 5, 6), SF_SPLAT (XNNPACK-style: one A
// vector load per 4 k + lane shuffles), SF_BIAS_SEED (accumulators start from the bias),
// SF_GEMV (1- and 2-row tiles span 4 and 2 panels), SF_ORDER (1: row tiles outer, panels inner).
#include <algorithm>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/vector_math.h"

#ifndef SF_KC
#define SF_KC 256
#endif
#ifndef SF_MC
#define SF_MC 128
#endif
#ifndef SF_MR
#define SF_MR 4
#endif
#ifndef SF_SPLAT
#define SF_SPLAT 0
#endif
#ifndef SF_BIAS_SEED
#define SF_BIAS_SEED 0
#endif
#ifndef SF_GEMV
#define SF_GEMV 0
#endif
#ifndef SF_ORDER
#define SF_ORDER 0  // 0: panels outer, row groups inner; 1: row groups outer
#endif

namespace simdformer::kernels {
namespace {

using detail::kLanes;
using detail::vf32;

constexpr size_t kNrVecs = kLanes == 1 ? 4 : 2;
constexpr size_t kNr = kNrVecs * kLanes;
constexpr size_t kMr = SF_MR;
constexpr size_t kKc = SF_KC;
constexpr size_t kMc = SF_MC;
constexpr bool kSplat = SF_SPLAT && kLanes == 4;

#ifndef SF_ABUDGET
#define SF_ABUDGET (kMc * kKc)
#endif
constexpr size_t kABudget = SF_ABUDGET;
thread_local float g_a_block[kABudget + kMr * kKc];

struct TileArgs {
    size_t kc;
    const float* a;
    const float* panel;
    size_t panel_stride;    // floats between consecutive panels (k * kNr)
    float* c;
    size_t ldc;
    size_t ncols;           // valid columns over the P panels
    bool first, last;
    bool seed_bias;
    const float* bias;
    const float* residual;
    size_t ld_residual;
};

template <size_t W>
inline void load_cols(const float* p, size_t ncols, vf32* out) {
    if (ncols >= W * kLanes) {
        for (size_t v = 0; v < W; ++v) out[v] = simd::load(p + v * kLanes);
        return;
    }
    float tmp[W * kLanes] = {};
    std::copy(p, p + ncols, tmp);
    for (size_t v = 0; v < W; ++v) out[v] = simd::load(tmp + v * kLanes);
}

template <size_t W>
inline void store_cols(float* p, size_t ncols, const vf32* in) {
    if (ncols >= W * kLanes) {
        for (size_t v = 0; v < W; ++v) simd::store(p + v * kLanes, in[v]);
        return;
    }
    float tmp[W * kLanes];
    for (size_t v = 0; v < W; ++v) simd::store(tmp + v * kLanes, in[v]);
    std::copy(tmp, tmp + ncols, p);
}

#if SIMDFORMER_SIMD
template <uint32_t L>
inline vf32 lane(vf32 v) {
    return xsimd::swizzle(v, xsimd::batch_constant<uint32_t, vf32::arch_type, L, L, L, L>());
}
#endif

template <size_t R, size_t P>
void tile(const TileArgs& t, const Epilogue& ep) {
    constexpr size_t W = P * kNrVecs;  // vectors per row
    vf32 acc[R][W];
    for (size_t r = 0; r < R; ++r) {
        if (!t.first) {
            load_cols<W>(t.c + r * t.ldc, t.ncols, acc[r]);
        } else if (t.seed_bias) {
            if (r == 0) load_cols<W>(t.bias, t.ncols, acc[0]);
            else for (size_t v = 0; v < W; ++v) acc[r][v] = acc[0][v];
        } else {
            for (size_t v = 0; v < W; ++v) acc[r][v] = vf32(0.0f);
        }
    }

    const float* ap = t.a;
    const float* bp = t.panel;
    size_t p = 0;
#if SIMDFORMER_SIMD
    if constexpr (kSplat) {
        for (; p + 4 <= t.kc; p += 4, ap += 4 * R, bp += 4 * kNr) {
            vf32 va[R];
            for (size_t r = 0; r < R; ++r) va[r] = simd::load(ap + r * 4);
            auto step = [&](auto lc, const float* bq) {
                constexpr uint32_t L = decltype(lc)::value;
                vf32 b[W];
                for (size_t q = 0; q < P; ++q)
                    for (size_t v = 0; v < kNrVecs; ++v) b[q * kNrVecs + v] = simd::load(bq + q * t.panel_stride + v * kLanes);
                for (size_t r = 0; r < R; ++r) {
                    const vf32 av = lane<L>(va[r]);
                    for (size_t v = 0; v < W; ++v) acc[r][v] = simd::fma(av, b[v], acc[r][v]);
                }
            };
            step(std::integral_constant<uint32_t, 0>(), bp);
            step(std::integral_constant<uint32_t, 1>(), bp + kNr);
            step(std::integral_constant<uint32_t, 2>(), bp + 2 * kNr);
            step(std::integral_constant<uint32_t, 3>(), bp + 3 * kNr);
        }
    }
#endif
    for (; p < t.kc; ++p, ap += R, bp += kNr) {
        vf32 b[W];
        for (size_t q = 0; q < P; ++q)
            for (size_t v = 0; v < kNrVecs; ++v) b[q * kNrVecs + v] = simd::load(bp + q * t.panel_stride + v * kLanes);
        for (size_t r = 0; r < R; ++r) {
            const vf32 av = simd::splat(ap[r]);
            for (size_t v = 0; v < W; ++v) acc[r][v] = simd::fma(av, b[v], acc[r][v]);
        }
    }

    if (t.last) {
        vf32 bias[W];
        const bool add_bias = t.bias && !t.seed_bias;
        if (add_bias) load_cols<W>(t.bias, t.ncols, bias);
        const vf32 alpha(ep.alpha);
        for (size_t r = 0; r < R; ++r) {
            vf32 res[W];
            if (t.residual) load_cols<W>(t.residual + r * t.ld_residual, t.ncols, res);
            for (size_t v = 0; v < W; ++v) {
                vf32 x = acc[r][v];
                if (!t.seed_bias) x = x * alpha;
                if (add_bias) x = x + bias[v];
                x = detail::activate(ep.activation, x);
                if (t.residual) x = x + res[v];
                acc[r][v] = x;
            }
        }
    }
    for (size_t r = 0; r < R; ++r) store_cols<W>(t.c + r * t.ldc, t.ncols, acc[r]);
}

// Packs rows [0, rows) x k [0, kc) of A into g_a_block in groups of kMr rows (fewer in the last).
// Plain layout: k-major inside a group. Splat layout: chunks of 4 k, row-major inside a chunk
// ([R][4]), then the kc % 4 tail k-major.
void pack_a_block(size_t rows, size_t kc, const float* a, size_t lda) {
    float* dst = g_a_block;
    for (size_t i = 0; i < rows; i += kMr) {
        const size_t rc = std::min(kMr, rows - i);
        size_t p = 0;
        if (kSplat) {
            for (; p + 4 <= kc; p += 4)
                for (size_t r = 0; r < rc; ++r)
                    for (size_t l = 0; l < 4; ++l) *dst++ = a[(i + r) * lda + p + l];
        }
        for (; p < kc; ++p)
            for (size_t r = 0; r < rc; ++r) *dst++ = a[(i + r) * lda + p];
    }
}

template <size_t R>
void rows_remainder(TileArgs t, size_t panels, size_t n, const Epilogue& ep) {
    constexpr size_t P = SF_GEMV ? (R == 1 ? 4 : R == 2 ? 2 : 1) : 1;
    const float* bias0 = t.bias;
    const float* res0 = t.residual;
    float* c0 = t.c;
    const float* panel0 = t.panel;
    size_t jp = 0;
    for (; jp + P <= panels; jp += P) {
        const size_t col0 = jp * kNr;
        t.panel = panel0 + jp * t.panel_stride;
        t.ncols = std::min(P * kNr, n - col0);
        t.bias = bias0 ? bias0 + col0 : nullptr;
        t.residual = res0 ? res0 + col0 : nullptr;
        t.c = c0 + col0;
        tile<R, P>(t, ep);
    }
    for (; jp < panels; ++jp) {
        const size_t col0 = jp * kNr;
        t.panel = panel0 + jp * t.panel_stride;
        t.ncols = std::min(kNr, n - col0);
        t.bias = bias0 ? bias0 + col0 : nullptr;
        t.residual = res0 ? res0 + col0 : nullptr;
        t.c = c0 + col0;
        tile<R, 1>(t, ep);
    }
}

void remainder_dispatch(size_t rows, const TileArgs& t, size_t panels, size_t n, const Epilogue& ep) {
    switch (rows) {
        case 1: rows_remainder<1>(t, panels, n, ep); break;
        case 2: rows_remainder<2>(t, panels, n, ep); break;
        case 3: rows_remainder<3>(t, panels, n, ep); break;
#if SF_MR > 4
        case 4: rows_remainder<4>(t, panels, n, ep); break;
#endif
#if SF_MR > 5
        case 5: rows_remainder<5>(t, panels, n, ep); break;
#endif
        default: break;
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
    const bool seed_bias = SF_BIAS_SEED && ep.bias && ep.alpha == 1.0f;
    for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
        const size_t kc = std::min(kKc, k - pc);
        const size_t mc_max = std::max(kMr, kABudget / std::max<size_t>(kc, 1) / kMr * kMr);
        for (size_t ic = 0; ic < m; ic += mc_max) {
            const size_t mc = std::min(mc_max, m - ic);
            pack_a_block(mc, kc, a + ic * lda + pc, lda);
            const size_t full = mc / kMr * kMr;
            TileArgs t{};
            t.kc = kc;
            t.panel_stride = k * kNr;
            t.ldc = ldc;
            t.first = pc == 0;
            t.last = pc + kKc >= k;
            t.seed_bias = seed_bias;
            t.ld_residual = ep.ld_residual;
            auto one = [&](size_t jp, size_t i) {
                const size_t col0 = jp * kNr, row = ic + i;
                t.panel = packed_b + (jp * k + pc) * kNr;
                t.ncols = std::min(kNr, n - col0);
                t.bias = ep.bias ? ep.bias + col0 : nullptr;
                t.a = g_a_block + i * kc;
                t.c = c + row * ldc + col0;
                t.residual = ep.residual ? ep.residual + row * ep.ld_residual + col0 : nullptr;
                tile<kMr, 1>(t, ep);
            };
            if (SF_ORDER == 0) {
                for (size_t jp = 0; jp < panels; ++jp)
                    for (size_t i = 0; i < full; i += kMr) one(jp, i);
            } else {
                for (size_t i = 0; i < full; i += kMr)
                    for (size_t jp = 0; jp < panels; ++jp) one(jp, i);
            }
            if (full < mc) {
                const size_t row = ic + full;
                t.a = g_a_block + full * kc;
                t.panel = packed_b + pc * kNr;
                t.bias = ep.bias;
                t.c = c + row * ldc;
                t.residual = ep.residual ? ep.residual + row * ep.ld_residual : nullptr;
                remainder_dispatch(mc - full, t, panels, n, ep);
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
