// int8 k-loops of 4 rows x 8 columns, in cache (k = 768, repeated), for engines without VNNI
// (BENCHMARKS.md "Session 26"): the 8-bit pair loop the library runs there (i32x4.dot_i16x8_s +
// add), the relaxed i16x8 dot product (pmaddubsw on x86) widened by extadd_pairwise + add, and the
// fused relaxed i32x4 dot-add the library's relaxed module runs (vpdpbusd with AVX-VNNI, pmaddubsw
// + pmaddwd + paddd without). run.sh builds it with clang-19 (-c, then wasm-ld-19) and times it in
// Chromium with and without --no-enable-avx-vnni. Speed only: the relaxed i16x8 dot product is
// exact only if the bytes of its second operand are 7-bit, or (x86) if no pair sum saturates.
#include <stdint.h>
#include <wasm_simd128.h>
// A: pair loop (our tile<4>): B 16 B per k pair (8 cols x 2 k), A i16 pairs.
__attribute__((export_name("pairs"))) int32_t pairs(const int32_t* a, const int8_t* b, uint32_t kc2, uint32_t reps, int32_t* out) {
  v128_t acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (uint32_t t = 0; t < reps; ++t) {
    const int32_t* ap = a; const int8_t* bp = b;
    for (uint32_t p = 0; p < kc2; ++p, ap += 4, bp += 16) {
      v128_t b0 = wasm_i16x8_load8x8(bp), b1 = wasm_i16x8_load8x8(bp + 8);
      _Pragma("unroll") for (int r = 0; r < 4; ++r) {
        v128_t x = wasm_v128_load32_splat(ap + r);
        acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(b0, x));
        acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(b1, x));
      }
    }
  }
  for (int r = 0; r < 4; ++r) { wasm_v128_store(out + 8 * r, acc[r][0]); wasm_v128_store(out + 8 * r + 4, acc[r][1]); }
  return 0;
}
// B: quads: B 32 B per k quad (8 cols x 4 k: cols 0-3 then 4-7), A u8 quads; i16x8 relaxed dot + extadd + add.
__attribute__((export_name("quads16"))) int32_t quads16(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t reps, int32_t* out) {
  v128_t acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (uint32_t t = 0; t < reps; ++t) {
    const uint8_t* ap = a; const int8_t* bp = b;
    for (uint32_t q = 0; q < kq; ++q, ap += 16, bp += 32) {
      v128_t b0 = wasm_v128_load(bp), b1 = wasm_v128_load(bp + 16);
      _Pragma("unroll") for (int r = 0; r < 4; ++r) {
        v128_t x = wasm_v128_load32_splat(ap + 4 * r);
        acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(b0, x)));
        acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(b1, x)));
      }
    }
  }
  for (int r = 0; r < 4; ++r) { wasm_v128_store(out + 8 * r, acc[r][0]); wasm_v128_store(out + 8 * r + 4, acc[r][1]); }
  return 0;
}
// C: quads with the fused relaxed dot-add (what the module runs now)
__attribute__((export_name("quadsadd"))) int32_t quadsadd(const uint8_t* a, const int8_t* b, uint32_t kq, uint32_t reps, int32_t* out) {
  v128_t acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (uint32_t t = 0; t < reps; ++t) {
    const uint8_t* ap = a; const int8_t* bp = b;
    for (uint32_t q = 0; q < kq; ++q, ap += 16, bp += 32) {
      v128_t b0 = wasm_v128_load(bp), b1 = wasm_v128_load(bp + 16);
      _Pragma("unroll") for (int r = 0; r < 4; ++r) {
        v128_t x = wasm_v128_load32_splat(ap + 4 * r);
        acc[r][0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b0, x, acc[r][0]);
        acc[r][1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b1, x, acc[r][1]);
      }
    }
  }
  for (int r = 0; r < 4; ++r) { wasm_v128_store(out + 8 * r, acc[r][0]); wasm_v128_store(out + 8 * r + 4, acc[r][1]); }
  return 0;
}
