// Issue 29, session 22: tile plans for a GEMM of 5 rows whose weights come from memory, every
// k-loop on relaxed_madd (small_m.mjs times them in Chromium). Strategies 6-9 compute only part of
// C (memory speed alone); 11 and 12 time 22 main rows (a 23-row text) without writing a whole C.
#include <stdint.h>
#include <wasm_simd128.h>
#define TILE(R, G)                                                                                        \
  static void __attribute__((noinline)) t##R##x##G(const float* a, const float* b, uint32_t ps, uint32_t kc, float* c, uint32_t ldc, uint32_t cs) { \
    v128_t x[R][G][2];                                                                                    \
    _Pragma("unroll") for (int r = 0; r < R; ++r) _Pragma("unroll") for (int g = 0; g < G; ++g) { x[r][g][0] = wasm_f32x4_splat(0); x[r][g][1] = x[r][g][0]; } \
    const float* const end = b + kc * 8;                                                                  \
    _Pragma("nounroll") for (; b != end; a += R, b += 8) {                                                \
      v128_t av[R];                                                                                       \
      _Pragma("unroll") for (int r = 0; r < R; ++r) av[r] = wasm_v128_load32_splat(a + r);                \
      _Pragma("unroll") for (int g = 0; g < G; ++g) _Pragma("unroll") for (int v = 0; v < 2; ++v) {       \
        const v128_t bv = wasm_v128_load(b + g * ps + v * 4);                                             \
        _Pragma("unroll") for (int r = 0; r < R; ++r) x[r][g][v] = wasm_f32x4_relaxed_madd(av[r], bv, x[r][g][v]); \
      }                                                                                                   \
    }                                                                                                     \
    _Pragma("unroll") for (int r = 0; r < R; ++r) _Pragma("unroll") for (int g = 0; g < G; ++g)           \
      _Pragma("unroll") for (int v = 0; v < 2; ++v) wasm_v128_store(c + r * ldc + g * cs + v * 4, x[r][g][v]); \
  }
static uint32_t __attribute__((noinline)) t2x3pf(const float* a, const float* b, uint32_t ps, uint32_t kc, float* c, uint32_t ldc, uint32_t cs, const uint8_t* pf0, const uint8_t* pf1) {
    v128_t x[2][3][2];
    uint32_t sink = 0;
    _Pragma("unroll") for (int r = 0; r < 2; ++r) _Pragma("unroll") for (int g = 0; g < 3; ++g) { x[r][g][0] = wasm_f32x4_splat(0); x[r][g][1] = x[r][g][0]; }
    const float* const end = b + kc * 8;
    _Pragma("nounroll") for (; b != end; a += 2, b += 8, pf0 += 64) {
      sink += *(const uint32_t*)pf0;
      v128_t av[2];
      _Pragma("unroll") for (int r = 0; r < 2; ++r) av[r] = wasm_v128_load32_splat(a + r);
      _Pragma("unroll") for (int g = 0; g < 3; ++g) _Pragma("unroll") for (int v = 0; v < 2; ++v) {
        const v128_t bv = wasm_v128_load(b + g * ps + v * 4);
        _Pragma("unroll") for (int r = 0; r < 2; ++r) x[r][g][v] = wasm_f32x4_relaxed_madd(av[r], bv, x[r][g][v]);
      }
    }
    _Pragma("unroll") for (int r = 0; r < 2; ++r) _Pragma("unroll") for (int g = 0; g < 3; ++g)
      _Pragma("unroll") for (int v = 0; v < 2; ++v) wasm_v128_store(c + r * ldc + g * cs + v * 4, x[r][g][v]);
    return sink;
}
// 2 rows x G panels from cache, plus 1 row x S panels of the next group (streamed from memory).
#define FUSED(G, S) \
static void __attribute__((noinline)) f2x##G##s##S(const float* a, const float* b, uint32_t ps, uint32_t kc, float* c, uint32_t ldc, uint32_t cs, \
                                                  const float* a1, const float* bn, float* cn) { \
    v128_t x[2][G][2], y[S][2]; \
    _Pragma("unroll") for (int r = 0; r < 2; ++r) _Pragma("unroll") for (int g = 0; g < G; ++g) { x[r][g][0] = wasm_f32x4_splat(0); x[r][g][1] = x[r][g][0]; } \
    _Pragma("unroll") for (int g = 0; g < S; ++g) { y[g][0] = wasm_f32x4_splat(0); y[g][1] = y[g][0]; } \
    const float* const end = b + kc * 8; \
    _Pragma("nounroll") for (; b != end; a += 2, a1 += 1, b += 8, bn += 8) { \
      v128_t av[2]; \
      _Pragma("unroll") for (int r = 0; r < 2; ++r) av[r] = wasm_v128_load32_splat(a + r); \
      _Pragma("unroll") for (int g = 0; g < G; ++g) _Pragma("unroll") for (int v = 0; v < 2; ++v) { \
        const v128_t bv = wasm_v128_load(b + g * ps + v * 4); \
        _Pragma("unroll") for (int r = 0; r < 2; ++r) x[r][g][v] = wasm_f32x4_relaxed_madd(av[r], bv, x[r][g][v]); \
      } \
      const v128_t a1v = wasm_v128_load32_splat(a1); \
      _Pragma("unroll") for (int g = 0; g < S; ++g) _Pragma("unroll") for (int v = 0; v < 2; ++v) \
        y[g][v] = wasm_f32x4_relaxed_madd(a1v, wasm_v128_load(bn + g * ps + v * 4), y[g][v]); \
    } \
    _Pragma("unroll") for (int r = 0; r < 2; ++r) _Pragma("unroll") for (int g = 0; g < G; ++g) \
      _Pragma("unroll") for (int v = 0; v < 2; ++v) wasm_v128_store(c + r * ldc + g * cs + v * 4, x[r][g][v]); \
    _Pragma("unroll") for (int g = 0; g < S; ++g) _Pragma("unroll") for (int v = 0; v < 2; ++v) wasm_v128_store(cn + g * cs + v * 4, y[g][v]); \
}
FUSED(2, 1) FUSED(2, 2)
TILE(1, 4) TILE(1, 2) TILE(2, 3) TILE(2, 2) TILE(3, 2) TILE(5, 1) TILE(4, 1) TILE(6, 1) TILE(3, 1) TILE(2,1) TILE(1,1)
// a1..a5: A packed for tiles of 1, 2, 3, 5 rows: apack[R] -> R floats per k, rows starting at 0.
// C is M x N, ldc = N. B: panels of K x 8, panel j at b + j * K * 8.
__attribute__((export_name("run"))) uint32_t run(int strategy, const float* a1, const float* a2, const float* a3, const float* a5,
    const float* a2b, const float* b, uint32_t K, uint32_t panels, float* c) {
  const uint32_t N = panels * 8, P = K * 8;
  if (strategy == 0) {  // today: groups of 6 far apart; row 4 as 1x4 + 1x2, rows 0-3 as 2x3
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      t1x4(a1, g, st * P, K, cg + 4 * N, N, st * 8);
      t1x2(a1, g + 4 * st * P, st * P, K, cg + 4 * N + 4 * st * 8, N, st * 8);
      for (int idx = 0; idx < 6; idx += 3)
        for (int i = 0; i < 4; i += 2) t2x3(i == 0 ? a2 : a2b, g + idx * st * P, st * P, K, cg + i * N + idx * st * 8, N, st * 8);
    }
  } else if (strategy == 1) {  // 5 x 1 per panel, in order
    for (uint32_t j = 0; j < panels; ++j) t5x1(a5, b + j * P, P, K, c + j * 8, N, 8);
  } else if (strategy == 2) {  // groups of 2 far apart: rows 0-2 as 3x2, rows 3-4 as 2x2
    const uint32_t st = panels / 2;
    for (uint32_t j = 0; j < st; ++j) {
      t3x2(a3, b + j * P, st * P, K, c + j * 8, N, st * 8);
      t2x2(a2b, b + j * P, st * P, K, c + 3 * N + j * 8, N, st * 8);  // a2b: rows 3-4 packed
    }
  } else if (strategy == 3) {  // groups of 6 far apart: rows 0-2 as 3x2 x3, rows 3-4 as 2x3 x2
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      for (int idx = 0; idx < 6; idx += 2) t3x2(a3, g + idx * st * P, st * P, K, cg + idx * st * 8, N, st * 8);
      for (int idx = 0; idx < 6; idx += 3) t2x3(a2b, g + idx * st * P, st * P, K, cg + 3 * N + idx * st * 8, N, st * 8);
    }
  } else if (strategy == 4) {  // 5 x 1, two panels far apart alternately
    const uint32_t st = panels / 2;
    for (uint32_t j = 0; j < st; ++j) { t5x1(a5, b + j * P, P, K, c + j * 8, N, 8); t5x1(a5, b + (j + st) * P, P, K, c + (j + st) * 8, N, 8); }
  } else if (strategy == 6) {  // only the 1-row pass of S0
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      t1x4(a1, g, st * P, K, cg + 4 * N, N, st * 8);
      t1x2(a1, g + 4 * st * P, st * P, K, cg + 4 * N + 4 * st * 8, N, st * 8);
    }
  } else if (strategy == 7) {  // only 3x2, groups of 2 far apart
    const uint32_t st = panels / 2;
    for (uint32_t j = 0; j < st; ++j) t3x2(a3, b + j * P, st * P, K, c + j * 8, N, st * 8);
  } else if (strategy == 8) {  // only 1x4 over groups of 4 far apart
    const uint32_t st = panels / 4;
    for (uint32_t j = 0; j < st; ++j) t1x4(a1, b + j * P, st * P, K, c + 4 * N + j * 8, N, st * 8);
  } else if (strategy == 9) {  // only 1x1 in order
    for (uint32_t j = 0; j < panels; ++j) t1x1(a1, b + j * P, P, K, c + 4 * N + j * 8, N, 8);
  } else if (strategy == 10 || strategy == 11) {  // S0 with the main tiles touching the next group (11: M = 23: 11 row pairs, a2 reused)
    const uint32_t st = panels / 6, pairs = strategy == 10 ? 2 : 11;
    uint32_t sink = 0;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      const float* ng = j + 1 < st ? g + P : g;  // next group (wraps onto itself at the end)
      t1x4(a1, g, st * P, K, cg + 4 * N, N, st * 8);
      t1x2(a1, g + 4 * st * P, st * P, K, cg + 4 * N + 4 * st * 8, N, st * 8);
      uint32_t run_no = 0;
      for (int idx = 0; idx < 6; idx += 3)
        for (uint32_t i = 0; i < pairs; ++i, ++run_no) {
          const uint32_t p0 = run_no < 3 ? 2 * run_no : 0;
          const uint8_t* pf0 = (const uint8_t*)(ng + p0 * st * P);
          const uint8_t* pf1 = (const uint8_t*)(ng + (p0 + 1) * st * P);
          sink += t2x3pf(i == 0 ? a2 : a2b, g + idx * st * P, st * P, K, cg + (i < 2 ? i * 2 : 0) * N + idx * st * 8, N, st * 8, pf0, pf1);
        }
    }
    return sink;
  } else if (strategy == 12) {  // S0 at M = 23: 11 row pairs, without touching
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      t1x4(a1, g, st * P, K, cg + 4 * N, N, st * 8);
      t1x2(a1, g + 4 * st * P, st * P, K, cg + 4 * N + 4 * st * 8, N, st * 8);
      for (int idx = 0; idx < 6; idx += 3)
        for (uint32_t i = 0; i < 11; ++i) t2x3(i == 0 ? a2 : a2b, g + idx * st * P, st * P, K, cg + (i < 2 ? i * 2 : 0) * N + idx * st * 8, N, st * 8);
    }
  } else if (strategy == 13 || strategy == 14) {  // groups of 2 far apart; row 4 of the next group streamed inside the main tiles
    const uint32_t st = panels / 2;
    t1x2(a1, b, st * P, K, c + 4 * N, N, st * 8);  // group 0's row 4
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      const int more = j + 1 < st;
      const float* ng = g + P; float* cng = cg + 8 + 4 * N;
      if (strategy == 13) {
        if (more) {
          f2x2s1(a2, g, st * P, K, cg, N, st * 8, a1, ng, cng);
          f2x2s1(a2b, g, st * P, K, cg + 2 * N, N, st * 8, a1, ng + st * P, cng + st * 8);
        } else {
          t2x2(a2, g, st * P, K, cg, N, st * 8);
          t2x2(a2b, g, st * P, K, cg + 2 * N, N, st * 8);
        }
      } else {
        if (more) f2x2s2(a2, g, st * P, K, cg, N, st * 8, a1, ng, cng);
        else t2x2(a2, g, st * P, K, cg, N, st * 8);
        t2x2(a2b, g, st * P, K, cg + 2 * N, N, st * 8);
      }
    }
  } else if (strategy == 15) {  // S0 in another order: the first 2 x 3 tiles stream the group (rows 0-1), then row 4 and rows 2-3 from cache
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      for (int idx = 0; idx < 6; idx += 3) t2x3(a2, g + idx * st * P, st * P, K, cg + idx * st * 8, N, st * 8);
      t1x4(a1, g, st * P, K, cg + 4 * N, N, st * 8);
      t1x2(a1, g + 4 * st * P, st * P, K, cg + 4 * N + 4 * st * 8, N, st * 8);
      for (int idx = 0; idx < 6; idx += 3) t2x3(a2b, g + idx * st * P, st * P, K, cg + 2 * N + idx * st * 8, N, st * 8);
    }
  } else if (strategy == 16) {  // only the first pass of S15 (2 x 3 tiles streaming for rows 0-1)
    const uint32_t st = panels / 6;
    for (uint32_t j = 0; j < st; ++j) {
      const float* g = b + j * P; float* cg = c + j * 8;
      for (int idx = 0; idx < 6; idx += 3) t2x3(a2, g + idx * st * P, st * P, K, cg + idx * st * 8, N, st * 8);
    }
  } else if (strategy == 5) {  // groups of 2 far apart: rows 0-2 as 3x2, rows 3-4 as 2x2 -- but 2x2 first (stream with 2 rows)
    const uint32_t st = panels / 2;
    for (uint32_t j = 0; j < st; ++j) {
      t2x2(a2b, b + j * P, st * P, K, c + 3 * N + j * 8, N, st * 8);
      t3x2(a3, b + j * P, st * P, K, c + j * 8, N, st * 8);
    }
  }
  return 0;
}
