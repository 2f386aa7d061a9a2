// 128-bit integer SIMD for the int8 GEMMs (kernels/gemm_i8_*.cpp, kernels/quantize.cpp only).
//
// xsimd has no 16-bit dot product, which is the instruction the int8 kernels are built on
// (WebAssembly `i32x4.dot_i16x8_s`, x86 `pmaddwd` = `_mm_madd_epi16`: the same semantics), so
// these kernels use intrinsics, all of them kept in this one header. Every operation works on one
// 128-bit register whatever the float width xsimd picked, so the int8 code is identical on wasm
// SIMD128 and on baseline x86-64 (SSE2; SSE4.1 forms when the compiler targets them).
// SIMDFORMER_I8_SIMD is 0 in the scalar build and on other targets: the kernels then use their
// scalar loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef SIMDFORMER_SIMD
#define SIMDFORMER_SIMD 1
#endif

#if SIMDFORMER_SIMD && defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SIMDFORMER_I8_SIMD 1
#define SIMDFORMER_I8_WASM 1
#elif SIMDFORMER_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#define SIMDFORMER_I8_SIMD 1
#define SIMDFORMER_I8_WASM 0
#else
#define SIMDFORMER_I8_SIMD 0
#define SIMDFORMER_I8_WASM 0
#endif

#if SIMDFORMER_I8_SIMD
namespace simdformer::simd::i8 {

#if SIMDFORMER_I8_WASM
using vi = v128_t;  // 4 x i32, 8 x i16 or 16 x i8, by operation
using vf = v128_t;  // 4 x f32

inline vi zero_i() { return wasm_i32x4_splat(0); }
inline vf zero_f() { return wasm_f32x4_splat(0.0f); }
inline vi load_i(const void* p) { return wasm_v128_load(p); }
inline void store_i(void* p, vi v) { wasm_v128_store(p, v); }
inline vf load_f(const float* p) { return wasm_v128_load(p); }
inline void store_f(float* p, vf v) { wasm_v128_store(p, v); }
inline vf splat_f(float x) { return wasm_f32x4_splat(x); }
inline vi splat_i32(int32_t x) { return wasm_i32x4_splat(x); }
inline vi splat_i16(int16_t x) { return wasm_i16x8_splat(x); }
// 8 bytes -> 8 sign-extended i16 (one `v128.load8x8_s`).
inline vi load_i8_as_i16(const int8_t* p) { return wasm_i16x8_load8x8(p); }
// 4 bytes broadcast to every 32-bit lane (one i16 pair or one f32 of A).
inline vi load32_splat(const void* p) { return wasm_v128_load32_splat(p); }
// Lane i of the i32 result = a[2i] * b[2i] + a[2i+1] * b[2i+1] (i16 inputs).
inline vi dot_i16(vi a, vi b) { return wasm_i32x4_dot_i16x8(a, b); }
inline vi add_i32(vi a, vi b) { return wasm_i32x4_add(a, b); }
// Lanes 0, 2, 4, 6 (even) or 1, 3, 5, 7 (odd) of an i16x8, sign-extended to i32x4. The even
// form is a dot product with (1, 0): clang 14 turns extend + convert_i32x4 into sixteen scalar
// extract/convert/replace instructions, and the opaque dot product keeps it from doing that.
inline vi i32_from_i16_even(vi v) { return wasm_i32x4_dot_i16x8(v, wasm_i16x8_const(1, 0, 1, 0, 1, 0, 1, 0)); }
inline vi i32_from_i16_odd(vi v) { return wasm_i32x4_shr(v, 16); }
inline vf f32_from_i32(vi v) { return wasm_f32x4_convert_i32x4(v); }
inline vf add_f(vf a, vf b) { return wasm_f32x4_add(a, b); }
inline vf mul_f(vf a, vf b) { return wasm_f32x4_mul(a, b); }
// Pseudo-min/max (b < a ? b : a): one minps/maxps on x64, where f32x4.min/max cost about eight
// instructions for their NaN and -0 rules, which do not matter here.
inline vf min_f(vf a, vf b) { return wasm_f32x4_pmin(a, b); }
inline vf max_f(vf a, vf b) { return wasm_f32x4_pmax(a, b); }
// Round to nearest, ties to even, for |v| < 2^22: adding 1.5 * 2^23 leaves the rounded integer
// in the low mantissa bits (the addition itself rounds half to even). Two instructions, where
// nearest + trunc_sat costs about ten on x64.
inline vi round_i32(vf v) {
    return wasm_i32x4_sub(wasm_f32x4_add(v, wasm_f32x4_splat(12582912.0f)), wasm_i32x4_splat(0x4B400000));
}
// Two i32x4 -> one i16x8 with signed saturation.
inline vi narrow_i16(vi a, vi b) { return wasm_i16x8_narrow_i32x4(a, b); }
inline vi min_i16(vi a, vi b) { return wasm_i16x8_min(a, b); }
inline vi max_i16(vi a, vi b) { return wasm_i16x8_max(a, b); }
inline vi sub_i16(vi a, vi b) { return wasm_i16x8_sub(a, b); }
inline vi add_sat_i16(vi a, vi b) { return wasm_i16x8_add_sat(a, b); }
inline vi splat_i8(int8_t x) { return wasm_i8x16_splat(x); }
// Two i16x8 -> one u8x16 with unsigned saturation (negative -> 0, above 255 -> 255).
inline vi narrow_u8(vi a, vi b) { return wasm_u8x16_narrow_i16x8(a, b); }
inline vi min_u8(vi a, vi b) { return wasm_u8x16_min(a, b); }
inline vi xor_i(vi a, vi b) { return wasm_v128_xor(a, b); }
inline float lane0_f(vf v) { return wasm_f32x4_extract_lane(v, 0); }
// Horizontal min/max of four lanes into every lane.
inline vf hmin_f(vf v) {
    v = min_f(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return min_f(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
}
inline vf hmax_f(vf v) {
    v = max_f(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return max_f(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
}

#else  // SSE2 (+ SSE4.1)
using vi = __m128i;
using vf = __m128;

inline vi zero_i() { return _mm_setzero_si128(); }
inline vf zero_f() { return _mm_setzero_ps(); }
inline vi load_i(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store_i(void* p, vi v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
inline vf load_f(const float* p) { return _mm_loadu_ps(p); }
inline void store_f(float* p, vf v) { _mm_storeu_ps(p, v); }
inline vf splat_f(float x) { return _mm_set1_ps(x); }
inline vi splat_i32(int32_t x) { return _mm_set1_epi32(x); }
inline vi splat_i16(int16_t x) { return _mm_set1_epi16(x); }
inline vi load_i8_as_i16(const int8_t* p) {
    const vi bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
#if defined(__SSE4_1__)
    return _mm_cvtepi8_epi16(bytes);
#else
    return _mm_srai_epi16(_mm_unpacklo_epi8(bytes, bytes), 8);  // byte into the high half, shift back
#endif
}
inline vi load32_splat(const void* p) {
    int32_t x;
    std::memcpy(&x, p, 4);
    return _mm_set1_epi32(x);
}
inline vi dot_i16(vi a, vi b) { return _mm_madd_epi16(a, b); }
inline vi add_i32(vi a, vi b) { return _mm_add_epi32(a, b); }
inline vi i32_from_i16_even(vi v) { return _mm_srai_epi32(_mm_slli_epi32(v, 16), 16); }
inline vi i32_from_i16_odd(vi v) { return _mm_srai_epi32(v, 16); }
inline vf f32_from_i32(vi v) { return _mm_cvtepi32_ps(v); }
inline vf add_f(vf a, vf b) { return _mm_add_ps(a, b); }
inline vf mul_f(vf a, vf b) { return _mm_mul_ps(a, b); }
inline vf min_f(vf a, vf b) { return _mm_min_ps(a, b); }
inline vf max_f(vf a, vf b) { return _mm_max_ps(a, b); }
// Round to nearest, ties to even, for |v| < 2^22, as on wasm (the same bits for every input).
inline vi round_i32(vf v) {
    return _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(v, _mm_set1_ps(12582912.0f))), _mm_set1_epi32(0x4B400000));
}
inline vi narrow_i16(vi a, vi b) { return _mm_packs_epi32(a, b); }
inline vi min_i16(vi a, vi b) { return _mm_min_epi16(a, b); }
inline vi max_i16(vi a, vi b) { return _mm_max_epi16(a, b); }
inline vi sub_i16(vi a, vi b) { return _mm_sub_epi16(a, b); }
inline vi add_sat_i16(vi a, vi b) { return _mm_adds_epi16(a, b); }
inline vi splat_i8(int8_t x) { return _mm_set1_epi8(x); }
inline vi narrow_u8(vi a, vi b) { return _mm_packus_epi16(a, b); }
inline vi min_u8(vi a, vi b) { return _mm_min_epu8(a, b); }
inline vi xor_i(vi a, vi b) { return _mm_xor_si128(a, b); }
inline float lane0_f(vf v) { return _mm_cvtss_f32(v); }
inline vf hmin_f(vf v) {
    v = min_f(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return min_f(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
}
inline vf hmax_f(vf v) {
    v = max_f(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return max_f(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
}
#endif

}  // namespace simdformer::simd::i8
#endif  // SIMDFORMER_I8_SIMD
