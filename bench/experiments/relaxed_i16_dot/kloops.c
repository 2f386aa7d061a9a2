// int8 k-loops of 4 rows x 8 columns, in cache (k = 768, repeated), for engines without VNNI
// (BENCHMARKS.md "Session 26"): the 8-bit pair loop the library runs there (i32x4.dot_i16x8_s +
// add), the relaxed i16x8 dot product (pmaddubsw on x86) widened by extadd_pairwise + add, and the
// fused relaxed i32x4 dot-add the library's relaxed module runs (vpdpbusd with AVX-VNNI, pmaddubsw
// + pmaddwd + paddd without). run.sh builds it with clang-19 (-c, then wasm-ld-19) and times it in
// Chromium with and without --no-enable-avx-vnni. Speed only: the relaxed i16x8 dot product is
// exact only if the bytes of its second operand are 7-bit, or (x86) if no pair sum saturates.
#include <stdint.h>
#include <wasm_simd128.h>

// One k-loop of 4 rows x 8 columns, repeated `reps` times over the same block: per step, B's two
// vectors (LOAD) and per row a broadcast of its 4 activation bytes and ACC(acc, b, x) into each of
// the row's two accumulators; B_STEP bytes of B per step. `steps` is k / 2 (pairs) or k / 4 (quads).
#define KLOOP(NAME, LOAD, B_STEP, ACC)                                                                   \
    __attribute__((export_name(#NAME))) int32_t NAME(const uint8_t* a, const int8_t* b, uint32_t steps, \
                                                      uint32_t reps, int32_t* out) {                    \
        v128_t acc[4][2];                                                                               \
        for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);                        \
        for (uint32_t t = 0; t < reps; ++t) {                                                           \
            const uint8_t* ap = a;                                                                      \
            const int8_t* bp = b;                                                                       \
            for (uint32_t s = 0; s < steps; ++s, ap += 16, bp += B_STEP) {                              \
                const v128_t b0 = LOAD(bp), b1 = LOAD(bp + B_STEP / 2);                                 \
                _Pragma("unroll") for (int r = 0; r < 4; ++r) {                                         \
                    const v128_t x = wasm_v128_load32_splat(ap + 4 * r);                                \
                    acc[r][0] = ACC(acc[r][0], b0, x);                                                  \
                    acc[r][1] = ACC(acc[r][1], b1, x);                                                  \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
        for (int r = 0; r < 4; ++r) {                                                                   \
            wasm_v128_store(out + 8 * r, acc[r][0]);                                                    \
            wasm_v128_store(out + 8 * r + 4, acc[r][1]);                                                \
        }                                                                                               \
        return 0;                                                                                       \
    }

// The library's pair loop (kernels/gemm_i8_qd8.cpp): 16 bytes of B per k pair (8 columns x 2 k),
// sign-extended to i16; the activations as i16 pairs.
#define LOAD_PAIRS(p) wasm_i16x8_load8x8(p)
#define ACC_PAIRS(acc, b, x) wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(b, x))
KLOOP(pairs, LOAD_PAIRS, 16, ACC_PAIRS)

// Quads (the relaxed module's layout, 32 bytes per k quad: columns 0-3, then 4-7), activations as
// bytes: the i16x8 relaxed dot product widened by extadd_pairwise and added ...
#define ACC_QUADS16(acc, b, x) wasm_i32x4_add(acc, wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(b, x)))
KLOOP(quads16, wasm_v128_load, 32, ACC_QUADS16)

// ... and the fused i32x4 relaxed dot-add the library's module runs.
#define ACC_QUADSADD(acc, b, x) wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b, x, acc)
KLOOP(quadsadd, wasm_v128_load, 32, ACC_QUADSADD)
