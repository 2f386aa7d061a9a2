// Design (a): f32 activations x int8 weights ("f32" x "qc8w"), after XNNPACK's f32-qc8w GEMMs.
//
// The packed int8 weights are widened to f32 inside the micro-kernel and multiplied with f32
// activations; the per-channel scale is applied once, in the epilogue. Only the weights are
// quantized, so this is the more accurate of the two int8 designs; it reads 4x fewer weight bytes
// than the f32 GEMM but spends 6 extra instructions per k pair of 8 columns on widening.
//
// A k pair of the pair panels (16 bytes: columns 0..7, k = 2p and 2p+1 interleaved) is loaded as
// two i16x8 halves; the even and odd k of each half are split off while widening to i32 (a shift
// for the odd lanes, a dot product with (1, 0) for the even ones), converted to f32, and
// multiplied with broadcasts of a(2p) and a(2p+1) in turn, so every element is summed in k order
// as in the f32 GEMM. Register tile: 4 rows x 8 columns = 8 accumulators + 4 weight vectors.
#include <algorithm>
#include <cstring>

#include "int8/gemm_f32_qc8w.h"
#include "simdformer/kernels/gemm_i8_internal.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd_i8.h"

namespace simdformer::kernels {
namespace {

using i8detail::kNr;
using i8detail::kPairBytes;

constexpr size_t kMr = 4;     // rows per tile
constexpr size_t kKc = 256;   // k per block (even)
constexpr size_t kMc = 128;   // rows of A packed at a time (128 x 256 floats = 128 KiB)

// Packed A block: tile i (rows 4i..) holds a(r, 2p + e) at g_a[i * kc2 * 2 + (p * R + r) * 2 + e].
thread_local float g_a[kMc * kKc];

struct TileArgs {
    size_t kc2;             // k pairs in this block
    const float* a;         // [kc2, R, 2] packed rows of this tile
    const int8_t* panel;    // [kc2, 16] block of one packed panel
    float* c;               // [R, ncols] at the tile's first element, row stride ldc
    size_t ldc;
    size_t ncols;           // valid columns (kNr except at the right edge)
    bool first, last;       // first k block: start from zero; last: apply the epilogue
    const float* scale;     // [kNr] per-channel weight scales of the panel
    const float* bias;      // [ncols] or null
    const float* residual;  // at the tile's first element, or null
    size_t ld_residual;
};

// Partial sums of earlier k blocks are kept in C until the last block.
inline void load_prev(const float* c, size_t ncols, float* out) {  // [kNr], zero past ncols
    std::memcpy(out, c, ncols * sizeof(float));
    for (size_t j = ncols; j < kNr; ++j) out[j] = 0.0f;
}

template <size_t R>
void finish(const TileArgs& t, const Epilogue& ep, float (&sums)[R][kNr]) {
    for (size_t r = 0; r < R; ++r) {
        if (!t.last) {
            std::memcpy(t.c + r * t.ldc, sums[r], t.ncols * sizeof(float));
            continue;
        }
        i8detail::finish_row(sums[r], ep.alpha, t.scale, t.bias, ep.activation,
                             t.residual ? t.residual + r * t.ld_residual : nullptr, t.c + r * t.ldc, t.ncols);
    }
}

#if SIMDFORMER_I8_SIMD
namespace v = simd::i8;

// Not inlined: a micro-kernel in its own small function gets its accumulators in registers from
// V8, where inlined into the (large) driver it did not.
template <size_t R>
__attribute__((noinline)) void tile(const TileArgs& t, const Epilogue& ep) {
    v::vf acc[R][2];
    for (size_t r = 0; r < R; ++r) {
        if (t.first) {
            acc[r][0] = acc[r][1] = v::zero_f();
        } else {
            float prev[kNr];
            load_prev(t.c + r * t.ldc, t.ncols, prev);
            acc[r][0] = v::load_f(prev);
            acc[r][1] = v::load_f(prev + 4);
        }
    }
    // HOT LOOP, per k pair: 2 loads of 8 weight bytes sign-extended to i16, 4 widenings to i32,
    // 4 conversions to f32; per row 2 broadcasts, 4 mul, 4 add.
    const float* ap = t.a;
    const int8_t* bp = t.panel;
    for (size_t p = 0; p < t.kc2; ++p, ap += 2 * R, bp += kPairBytes) {
        const v::vi w0 = v::load_i8_as_i16(bp);      // columns 0..3, (even, odd) k
        const v::vi w1 = v::load_i8_as_i16(bp + 8);  // columns 4..7
        const v::vf e0 = v::f32_from_i32(v::i32_from_i16_even(w0));
        const v::vf e1 = v::f32_from_i32(v::i32_from_i16_even(w1));
        for (size_t r = 0; r < R; ++r) {  // k = 2p for every row, then k = 2p + 1
            const v::vf ae = v::splat_f(ap[2 * r]);
            acc[r][0] = v::add_f(acc[r][0], v::mul_f(ae, e0));
            acc[r][1] = v::add_f(acc[r][1], v::mul_f(ae, e1));
        }
        const v::vf o0 = v::f32_from_i32(v::i32_from_i16_odd(w0));
        const v::vf o1 = v::f32_from_i32(v::i32_from_i16_odd(w1));
        for (size_t r = 0; r < R; ++r) {
            const v::vf ao = v::splat_f(ap[2 * r + 1]);
            acc[r][0] = v::add_f(acc[r][0], v::mul_f(ao, o0));
            acc[r][1] = v::add_f(acc[r][1], v::mul_f(ao, o1));
        }
    }
    float sums[R][kNr];
    for (size_t r = 0; r < R; ++r) {
        v::store_f(sums[r], acc[r][0]);
        v::store_f(sums[r] + 4, acc[r][1]);
    }
    finish<R>(t, ep, sums);
}

#else  // scalar: the same sums in the same (k) order

template <size_t R>
void tile(const TileArgs& t, const Epilogue& ep) {
    float sums[R][kNr];
    for (size_t r = 0; r < R; ++r) {
        if (t.first) std::fill(sums[r], sums[r] + kNr, 0.0f);
        else load_prev(t.c + r * t.ldc, t.ncols, sums[r]);
    }
    const float* ap = t.a;
    const int8_t* bp = t.panel;
    for (size_t p = 0; p < t.kc2; ++p, ap += 2 * R, bp += kPairBytes) {
        for (size_t r = 0; r < R; ++r) {
            for (size_t j = 0; j < kNr; ++j) {
                sums[r][j] += ap[2 * r] * float(bp[2 * j]);
                sums[r][j] += ap[2 * r + 1] * float(bp[2 * j + 1]);
            }
        }
    }
    finish<R>(t, ep, sums);
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

// Packs columns [0, kc) of rows [0, mc) of A (row stride lda) into g_a, zero-padding an odd kc.
void pack_a_block(size_t mc, size_t kc, const float* a, size_t lda) {
    const size_t kc2 = (kc + 1) / 2;
    for (size_t i = 0; i < mc; i += kMr) {
        const size_t rows = std::min(kMr, mc - i);
        float* dst = g_a + i * kc2 * 2;
        for (size_t r = 0; r < rows; ++r) {
            const float* src = a + (i + r) * lda;
            for (size_t p = 0; p < kc / 2; ++p) {
                dst[(p * rows + r) * 2] = src[2 * p];
                dst[(p * rows + r) * 2 + 1] = src[2 * p + 1];
            }
            if (kc % 2) {
                dst[((kc2 - 1) * rows + r) * 2] = src[kc - 1];
                dst[((kc2 - 1) * rows + r) * 2 + 1] = 0.0f;
            }
        }
    }
}

}  // namespace

void gemm_f32_qc8w(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed_b, float* c,
                   size_t ldc, const Epilogue& ep) {
    const auto* panels = static_cast<const int8_t*>(packed_b);
    const float* scales = packed_i8_scales(k, n, packed_b);
    const size_t np = i8detail::panels(n), pb = i8detail::panel_bytes(k);
    // k == 0 still runs one (empty) block so that C = epilogue(0).
    for (size_t pc = 0; pc < k || (k == 0 && pc == 0); pc += kKc) {
        const size_t kc = std::min(kKc, k - pc);
        for (size_t ic = 0; ic < m; ic += kMc) {
            const size_t mc = std::min(kMc, m - ic);
            pack_a_block(mc, kc, a + ic * lda + pc, lda);
            for (size_t jp = 0; jp < np; ++jp) {
                const size_t col0 = jp * kNr;
                TileArgs t{};
                t.kc2 = (kc + 1) / 2;
                t.panel = panels + jp * pb + pc / 2 * kPairBytes;
                t.ldc = ldc;
                t.ncols = std::min(kNr, n - col0);
                t.first = pc == 0;
                t.last = pc + kKc >= k;
                t.scale = scales + col0;
                t.bias = ep.bias ? ep.bias + col0 : nullptr;
                t.ld_residual = ep.ld_residual;
                for (size_t i = 0; i < mc; i += kMr) {
                    const size_t row = ic + i;
                    t.a = g_a + i * t.kc2 * 2;
                    t.c = c + row * ldc + col0;
                    t.residual = ep.residual ? ep.residual + row * ep.ld_residual + col0 : nullptr;
                    tile_rows(std::min(kMr, mc - i), t, ep);
                }
            }
        }
        if (k == 0) break;
    }
}

}  // namespace simdformer::kernels
