// Issue 29, the f32 ceiling: an R-row x P-panel tile (R * P * 2 f32x4 accumulators) of relaxed
// SIMD's f32x4.relaxed_madd (MADD=1) or SIMD128's mul + add (MADD=0, what gemm.cpp issues), over
// every R-row tile of a packed A block and P neighbouring B panels. Packed as gemm.cpp packs: A
// tile i at a + R i kc, element (r, p) at [R p + r]; a panel is [kc][8] floats, panels b_stride
// floats apart. No stack and no data: the module imports the page's memory.
#include <stdint.h>
#include <wasm_simd128.h>
#if MADD
#define FMA(a, b, c) wasm_f32x4_relaxed_madd(a, b, c)
#else
#define FMA(a, b, c) wasm_f32x4_add(c, wasm_f32x4_mul(a, b))
#endif
__attribute__((noinline)) static void tile(const float* a, const float* b, uint32_t b_stride, uint32_t kc, float* c,
                                           uint32_t ldc, uint32_t first) {
    v128_t acc[R][P][2];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int g = 0; g < P; ++g) {
            acc[r][g][0] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c + r * ldc + 8 * g);
            acc[r][g][1] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c + r * ldc + 8 * g + 4);
        }
    for (uint32_t p = 0; p < kc; ++p, a += R, b += 8) {
        v128_t av[R];
#pragma unroll
        for (int r = 0; r < R; ++r) av[r] = wasm_v128_load32_splat(a + r);
#pragma unroll
        for (int g = 0; g < P; ++g) {
#pragma unroll
            for (int v = 0; v < 2; ++v) {
                const v128_t x = wasm_v128_load(b + g * b_stride + 4 * v);
#pragma unroll
                for (int r = 0; r < R; ++r) acc[r][g][v] = FMA(av[r], x, acc[r][g][v]);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int g = 0; g < P; ++g) {
            wasm_v128_store(c + r * ldc + 8 * g, acc[r][g][0]);
            wasm_v128_store(c + r * ldc + 8 * g + 4, acc[r][g][1]);
        }
}
__attribute__((export_name("main_tiles"))) void main_tiles(const float* a, uint32_t rows, uint32_t kc, const float* b0,
                                                           uint32_t b_stride, float* c, uint32_t ldc,
                                                           uint32_t col_stride, uint32_t first) {
    (void)col_stride;
    for (uint32_t i = 0; i + R <= rows; i += R) tile(a + i * kc, b0, b_stride, kc, c + i * ldc, ldc, first);
}
