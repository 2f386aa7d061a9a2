// The f32 GEMM's k-loops on relaxed SIMD (issue 29, FMA): f32x4.relaxed_madd is one vfmadd where
// the engine has FMA (V8 on x86-64 with FMA3, every arm64), where SIMD128's f32x4.mul + f32x4.add
// are two instructions with the product rounded in between. On the GEMM's own 2 x 2 tile that
// measured 1.21x (Chromium) / 1.25x (Node 20) faster (bench/experiments/relaxed_f32/).
//
// Linked into the relaxed kernel module beside the int8 k-loop (i8_dot_block.c: same build, same
// rules: no stack, no globals, the engine's memory). The engine puts these exports into its own
// function table, in every thread, at the slots of placeholders with the same signature
// (kernels/relaxed_module.cpp), so that gemm.cpp and gemv.cpp call them wasm-to-wasm once per tile
// (a JavaScript import cost ~100 ns per call).
//
// Every element gets exactly the operations gemm.cpp's tile gives it -- its accumulator, then one
// multiply-add per k in order -- with the multiply-add fused or not as the engine lowers
// relaxed_madd, the same way in every one of these loops: a row's result does not depend on the
// tile shape, its batch position, GEMV or GEMM, or the thread (each loop below exists for every
// tile shape gemm.cpp's wasm build runs; the engine checks at init() that all of them agree).
#include <stdint.h>
#include <wasm_simd128.h>

// acc: the tile's R x G x 2 accumulator vectors [r][g][v], written, and read unless `first` (then
// they start from zero: a memset of them per tile cost 6 % of a forward pass). a: R floats per k
// (the packed A block of the tile, k-major; for a GEMV, the row itself with R = 1). b: the first
// panel's kc x 8 floats, the g-th panel at b + g * panel_stride floats.
#define KLOOP(NAME, R, G)                                                                                           \
    __attribute__((export_name(NAME))) void kloop_##R##x##G(const float* a, const float* b, uint32_t panel_stride, \
                                                             uint32_t kc, float* acc, uint32_t first) {           \
        v128_t x[R][G][2];                                                                                         \
        _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) _Pragma("unroll") for (uint32_t g = 0; g < G; ++g)      \
            _Pragma("unroll") for (uint32_t v = 0; v < 2; ++v)                                                     \
                x[r][g][v] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(acc + ((r * G + g) * 2 + v) * 4);    \
        const float* const end = b + kc * 8;                                                                       \
        _Pragma("nounroll") for (; b != end; a += R, b += 8) {                                                     \
            v128_t av[R];                                                                                          \
            _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) av[r] = wasm_v128_load32_splat(a + r);              \
            _Pragma("unroll") for (uint32_t g = 0; g < G; ++g) _Pragma("unroll") for (uint32_t v = 0; v < 2; ++v) { \
                const v128_t bv = wasm_v128_load(b + g * panel_stride + v * 4);                                    \
                _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) x[r][g][v] = wasm_f32x4_relaxed_madd(av[r], bv, x[r][g][v]); \
            }                                                                                                      \
        }                                                                                                          \
        _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) _Pragma("unroll") for (uint32_t g = 0; g < G; ++g)      \
            _Pragma("unroll") for (uint32_t v = 0; v < 2; ++v) wasm_v128_store(acc + ((r * G + g) * 2 + v) * 4, x[r][g][v]); \
    }

// The shapes of gemm.cpp's wasm tiles (kRowTiles and run_tile), in the order of its table
// (relaxed_module.h, F32Tile).
KLOOP("f32_kloop_0", 2, 2)
KLOOP("f32_kloop_1", 2, 1)
KLOOP("f32_kloop_2", 1, 4)
KLOOP("f32_kloop_3", 1, 2)
KLOOP("f32_kloop_4", 1, 1)
// The main tile of the relaxed path: 12 accumulators + 2 broadcasts + 1 B vector, which fits x64's
// 16 vector registers only because a fused multiply-add needs no register for the product (1.40x
// the 2 x 2 mul + add tile in Chromium, bench/experiments/relaxed_f32).
KLOOP("f32_kloop_5", 2, 3)
