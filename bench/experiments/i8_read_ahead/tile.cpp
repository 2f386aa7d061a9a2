// Why the int8 8-bit k-loop reads the next panel's block ahead (kernels/gemm_i8_internal.h,
// touch_lines; BENCHMARKS.md "Session 26"): the 4-row tile of kernels/gemm_i8_qd8.cpp over 85 MB
// of packed weights (BERT-base's int8 matrices), panel block by panel block, then the 1-row tile
// over the same block (5 tokens), in variants. Built by run.sh with em++ -O3 -msimd128.
#include <emscripten.h>
#include <stdint.h>
#include <stdlib.h>
#include <wasm_simd128.h>

namespace {
// Pair p of 8 columns: 16 bytes of B; rows of A as i16 pairs, R per pair (the library's layout).
// kInline: the loop itself loads one byte of a line 2 KB ahead every 4 pairs (64 bytes).
template <int R, bool kInline>
__attribute__((noinline)) void tile(const int32_t* a, const int8_t* b, size_t kc2, int32_t* out) {
    v128_t acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
    for (size_t p = 0; p < kc2; ++p, a += R, b += 16) {
        if (kInline && p % 4 == 0) (void)*static_cast<const volatile int8_t*>(b + 2048);
        const v128_t b0 = wasm_i16x8_load8x8(b), b1 = wasm_i16x8_load8x8(b + 8);
        for (int r = 0; r < R; ++r) {
            const v128_t x = wasm_v128_load32_splat(a + r);
            acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(b0, x));
            acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(b1, x));
        }
    }
    for (int r = 0; r < R; ++r) {
        wasm_v128_store(out + 8 * r, acc[r][0]);
        wasm_v128_store(out + 8 * r + 4, acc[r][1]);
    }
}

// One byte of every line, back to back (what the library does before a block's tiles).
__attribute__((noinline)) void touch_lines(const int8_t* p, size_t bytes) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
    for (size_t i = 0; i < bytes; i += 64) (void)*static_cast<const volatile int8_t*>(p + i);
}
}  // namespace

extern "C" {
EMSCRIPTEN_KEEPALIVE void* alloc(size_t n) {
    auto* p = static_cast<int8_t*>(aligned_alloc(64, n));
    if (p)
        for (size_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(i * 7);
    return p;
}
// mode 0: the tiles alone; 1: touch_lines over the next block first; 2: the 4-row tile touches a
// line 2 KB ahead every 4 pairs (inside its loop); 3: touch_lines only.
EMSCRIPTEN_KEEPALIVE void run(int mode, const int8_t* b, size_t bytes, size_t kc2, const int32_t* a4,
                              const int32_t* a1, int32_t* out) {
    const size_t block = kc2 * 16;
    for (size_t off = 0; off + 2 * block + 2048 <= bytes; off += block) {
        const int8_t* blk = b + off;
        if (mode == 1 || mode == 3) touch_lines(blk + block, block);
        if (mode == 3) continue;
        if (mode == 2) tile<4, true>(a4, blk, kc2, out);
        else tile<4, false>(a4, blk, kc2, out);
        tile<1, false>(a1, blk, kc2, out);
    }
}
}
