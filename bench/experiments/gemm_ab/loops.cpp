// Issue 29: the f32 micro-kernel's k-loop alone, in L1 (loops.sh builds it, loops.mjs times it
// beside the mul + add ceiling). Each loop keeps 8 f32x4 accumulators, as gemm.cpp's tiles do,
// and differs only in how A and B reach them, to tell which instruction limits the tile:
//   tile4x1       4 rows x 1 panel (2 B loads + 4 load32_splat of A per k-step): gemm.cpp's wasm
//                 main tile until 2026-12-03
//   no_a_loads    the same with A's 4 values in registers (no broadcasts): the FP work alone
//   a_prebcast    the same with A stored pre-broadcast (4 plain v128 loads instead of splats)
//   a_shuffle     one v128 load of A and 4 lane shuffles (XNNPACK's "splat" kernels)
//   tile2x2       2 rows x 2 panels (4 B loads from two panel streams + 2 load32_splat):
//                 gemm.cpp's wasm main tile since 2026-12-03
#include <wasm_simd128.h>

#include <cstdlib>

namespace {
float* g_a;      // [4 * kc] A values, k-major in groups of 4 rows
float* g_a4;     // [16 * kc] the same, each value 4 times (a_prebcast)
float* g_b;      // [8 * kc] a panel of 8 columns (tile2x2: two panels of kc / 2 steps, 4 * kc apart)
}  // namespace

extern "C" int setup(int kc) {
    g_a = static_cast<float*>(aligned_alloc(64, 16 * kc));
    g_a4 = static_cast<float*>(aligned_alloc(64, 64 * kc));
    g_b = static_cast<float*>(aligned_alloc(64, 32 * kc));
    if (!g_a || !g_a4 || !g_b) return 0;
    for (int i = 0; i < 4 * kc; ++i) g_a[i] = 0.001f * (i % 7);
    for (int i = 0; i < 16 * kc; ++i) g_a4[i] = 0.001f * ((i / 4) % 7);
    for (int i = 0; i < 8 * kc; ++i) g_b[i] = 0.001f * (i % 5);
    return 1;
}

#define ACCUMULATORS v128_t c0 = wasm_f32x4_splat(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
#define LANE0_SUM                                                                                  \
    (wasm_f32x4_extract_lane(c0, 0) + wasm_f32x4_extract_lane(c1, 0) + wasm_f32x4_extract_lane(c2, 0) + \
     wasm_f32x4_extract_lane(c3, 0) + wasm_f32x4_extract_lane(c4, 0) + wasm_f32x4_extract_lane(c5, 0) + \
     wasm_f32x4_extract_lane(c6, 0) + wasm_f32x4_extract_lane(c7, 0))
#define MADD(c, a, b) c = wasm_f32x4_add(c, wasm_f32x4_mul(a, b))

namespace {
// Every loop does 8 multiply-adds of 4 lanes (64 flops) per k-step, kc k-steps per rep (tile2x2:
// kc / 2 steps of 2 x 8). The four 4-row loops differ only in where row r's A vector comes from:
// A::row<r>(ap), with ap advancing A::kStep floats per k-step from A::base().
template <class A>
float four_rows(int kc, int reps) {
    float s = 0;
    for (int r = 0; r < reps; ++r) {
        ACCUMULATORS
        const A src;
        const float* ap = A::base();
        for (const float *bp = g_b, *e = g_b + 8 * kc; bp != e; ap += A::kStep, bp += 8) {
            const v128_t b0 = wasm_v128_load(bp), b1 = wasm_v128_load(bp + 4);
            v128_t a = src.template row<0>(ap);
            MADD(c0, a, b0); MADD(c1, a, b1);
            a = src.template row<1>(ap);
            MADD(c2, a, b0); MADD(c3, a, b1);
            a = src.template row<2>(ap);
            MADD(c4, a, b0); MADD(c5, a, b1);
            a = src.template row<3>(ap);
            MADD(c6, a, b0); MADD(c7, a, b1);
        }
        s += LANE0_SUM;
    }
    return s;
}

struct SplatA {  // load32_splat of each row's value
    static constexpr int kStep = 4;
    static const float* base() { return g_a; }
    template <int R> v128_t row(const float* ap) const { return wasm_v128_load32_splat(ap + R); }
};
struct RegisterA {  // the four values splatted once, before the loop
    static constexpr int kStep = 0;
    static const float* base() { return g_a; }
    v128_t v[4] = {wasm_f32x4_splat(g_a[0]), wasm_f32x4_splat(g_a[1]), wasm_f32x4_splat(g_a[2]), wasm_f32x4_splat(g_a[3])};
    template <int R> v128_t row(const float*) const { return v[R]; }
};
struct PrebroadcastA {  // each value stored 4 times: plain vector loads
    static constexpr int kStep = 16;
    static const float* base() { return g_a4; }
    template <int R> v128_t row(const float* ap) const { return wasm_v128_load(ap + 4 * R); }
};
struct ShuffleA {  // one vector of the 4 values, lane R shuffled out
    static constexpr int kStep = 4;
    static const float* base() { return g_a; }
    template <int R> v128_t row(const float* ap) const {
        const v128_t av = wasm_v128_load(ap);
        return wasm_i32x4_shuffle(av, av, R, R, R, R);
    }
};

}  // namespace

extern "C" float tile4x1(int kc, int reps) { return four_rows<SplatA>(kc, reps); }
extern "C" float no_a_loads(int kc, int reps) { return four_rows<RegisterA>(kc, reps); }
extern "C" float a_prebcast(int kc, int reps) { return four_rows<PrebroadcastA>(kc, reps); }
extern "C" float a_shuffle(int kc, int reps) { return four_rows<ShuffleA>(kc, reps); }

extern "C" float tile2x2(int kc, int reps) {
    float s = 0;
    const int stride = 4 * kc;  // floats from the first panel to the second
    for (int r = 0; r < reps; ++r) {
        ACCUMULATORS
        const float* ap = g_a;
        for (const float *bp = g_b, *e = g_b + 8 * (kc / 2); bp != e; ap += 2, bp += 8) {
            const v128_t a0 = wasm_v128_load32_splat(ap), a1 = wasm_v128_load32_splat(ap + 1);
            v128_t b = wasm_v128_load(bp);
            MADD(c0, a0, b); MADD(c4, a1, b);
            b = wasm_v128_load(bp + 4);
            MADD(c1, a0, b); MADD(c5, a1, b);
            b = wasm_v128_load(bp + stride);
            MADD(c2, a0, b); MADD(c6, a1, b);
            b = wasm_v128_load(bp + stride + 4);
            MADD(c3, a0, b); MADD(c7, a1, b);
        }
        s += LANE0_SUM;
    }
    return s;
}
