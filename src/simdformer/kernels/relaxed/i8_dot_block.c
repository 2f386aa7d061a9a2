// The int8 GEMM's k-loop on relaxed SIMD (issue 29, VNNI): a stand-alone wasm module of one
// function, compiled by a clang that emits the final relaxed-SIMD opcodes (clang-19; Debian's
// Emscripten 3.1.6 bundles clang 14, which cannot) and instantiated by the engine's own module
// beside itself on the same memory (kernels/gemm_i8_relaxed.cpp, which also holds the C++ twin
// of this loop that the builds without relaxed SIMD run).
//
// i32x4.relaxed_dot_i8x16_i7x16_add_s multiplies 16 int8 weights by 16 activation bytes and adds
// them four at a time into four i32 sums: one vpdpbusd where the engine lowers it to AVX-VNNI or
// AVX-512 VNNI (Chromium does), vpmaddubsw + vpmaddwd + add elsewhere on x86. Its result is
// defined only when the second operand is 7-bit, so the activations come quantized to 0..127 and
// every sum is exact on every engine.
//
// The packed weights keep their one layout (kernels.h, "qc8w pair panels": 16 bytes hold k pair p
// of 8 columns, as i16 element c = the two bytes of column c). Two pairs interleaved as i16
// (one shuffle each half, punpcklwd / punpckhwd) give the four consecutive k of columns 0-3 and
// 4-7 in each i32 lane, which is what the dot product reduces.
//
// No stack, no globals, no data: the module imports the engine's memory and must never write
// anything but C. Built with -O3 and checked at build time (src/CMakeLists.txt) to define no
// global, so that no stack pointer of its own can point into the engine's heap.
#include <stdint.h>
#include <wasm_simd128.h>

#define INLINE static inline __attribute__((always_inline))

// Columns 0-3 (lo) or 4-7 (hi) of pairs p and p + 1: lane c holds k = 4q .. 4q + 3 of column c.
INLINE v128_t quad_lo(v128_t b0, v128_t b1) { return wasm_i16x8_shuffle(b0, b1, 0, 8, 1, 9, 2, 10, 3, 11); }
INLINE v128_t quad_hi(v128_t b0, v128_t b1) { return wasm_i16x8_shuffle(b0, b1, 4, 12, 5, 13, 6, 14, 7, 15); }

// acc[r] += the dot products of row r's quad (at a + 4r) with the quads of columns 0-3 (lo) and
// 4-7 (hi), for the R rows of a tile.
#define DOT_ROWS(R, lo, hi)                                                                                   \
    _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) {                                                      \
        const v128_t x = wasm_v128_load32_splat(a + 4 * r);                                                   \
        acc[r][0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(lo, x, acc[r][0]);                                 \
        acc[r][1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(hi, x, acc[r][1]);                                 \
    }

// One tile: R rows x 8 columns over kq quads of k (the last one a single pair when `odd_pair`).
// a: quad q of row r at a + (q * R + r) * 4. b: the panel block, 16 bytes per pair.
#define TILE_BODY(R)                                                                                          \
    v128_t acc[R][2];                                                                                         \
    _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) {                                                      \
        acc[r][0] = first ? wasm_i32x4_splat(0) : wasm_v128_load(c + r * ldc);                                \
        acc[r][1] = first ? wasm_i32x4_splat(0) : wasm_v128_load(c + r * ldc + 4);                            \
    }                                                                                                         \
    const uint32_t whole = kq - odd_pair;                                                                     \
    _Pragma("nounroll") for (uint32_t q = 0; q < whole; ++q, a += 4 * R, b += 32) {                           \
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 16);                                     \
        const v128_t lo = quad_lo(b0, b1), hi = quad_hi(b0, b1);                                              \
        DOT_ROWS(R, lo, hi)                                                                                   \
    }                                                                                                         \
    if (odd_pair) { /* the last pair alone: its partner is zero, never read past the panel */                 \
        const v128_t b0 = wasm_v128_load(b), z = wasm_i32x4_splat(0);                                         \
        const v128_t lo = quad_lo(b0, z), hi = quad_hi(b0, z);                                                \
        DOT_ROWS(R, lo, hi)                                                                                   \
    }                                                                                                         \
    _Pragma("unroll") for (uint32_t r = 0; r < R; ++r) {                                                      \
        wasm_v128_store(c + r * ldc, acc[r][0]);                                                              \
        wasm_v128_store(c + r * ldc + 4, acc[r][1]);                                                          \
    }

// Separate, not inlined functions: V8 keeps a small function's accumulators in registers.
__attribute__((noinline)) static void tile4(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t odd_pair,
                                            int32_t* c, uint32_t ldc, uint32_t first) {
    TILE_BODY(4)
}
__attribute__((noinline)) static void tile3(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t odd_pair,
                                            int32_t* c, uint32_t ldc, uint32_t first) {
    TILE_BODY(3)
}
__attribute__((noinline)) static void tile2(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t odd_pair,
                                            int32_t* c, uint32_t ldc, uint32_t first) {
    TILE_BODY(2)
}
__attribute__((noinline)) static void tile1(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t odd_pair,
                                            int32_t* c, uint32_t ldc, uint32_t first) {
    TILE_BODY(1)
}

// C[r, 8 jp + j] (i32) = (first ? 0 : C[r, 8 jp + j]) + sum over the block's k of
// weight(k, 8 jp + j) * a(r, k), for rows r < mc and whole panels jp < npanels (all 8 columns
// are read and written: a ragged last panel is left to the caller). Rows come in tiles of 4 (the last one shorter), tile t's quads at
// a + t * 16 * kq; panel jp's block at b + jp * panel_stride; C's row r at c + r * ldc.
__attribute__((export_name("dot_block"))) void dot_block(const uint8_t* a, uint32_t mc, uint32_t kq,
                                                         uint32_t odd_pair, const int8_t* b, uint32_t panel_stride,
                                                         uint32_t npanels, int32_t* c, uint32_t ldc,
                                                         uint32_t first) {
    const uint32_t block_bytes = (2 * kq - odd_pair) * 16;
    for (uint32_t jp = 0; jp < npanels; ++jp, b += panel_stride, c += 8) {
        // The next panel's block, one byte per cache line, loads back to back before this one's
        // tiles (gemm_i8_internal.h's touch_lines says why; volatile, or clang drops them). Not
        // for one row (decoding): its tile does ~7 operations per 32 bytes, its own loads keep
        // enough lines in flight.
        if (mc > 1 && jp + 1 < npanels) {
            const int8_t* next = b + panel_stride;
            _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
            for (uint32_t i = 0; i < block_bytes; i += 64) (void)*(const volatile int8_t*)(next + i);
        }
        for (uint32_t i = 0; i < mc; i += 4) {  // the panel block stays in L1 for every row tile
            const uint8_t* at = a + i * 4 * kq;
            int32_t* ct = c + i * ldc;
            switch (mc - i < 4 ? mc - i : 4) {
                case 4: tile4(at, b, kq, odd_pair, ct, ldc, first); break;
                case 3: tile3(at, b, kq, odd_pair, ct, ldc, first); break;
                case 2: tile2(at, b, kq, odd_pair, ct, ldc, first); break;
                default: tile1(at, b, kq, odd_pair, ct, ldc, first); break;
            }
        }
    }
}
