// The only place that includes xsimd. Kernels are written once against `vf32`/`kLanes` and the
// helpers below; with SIMDFORMER_SIMD=0 the same kernels compile to plain scalar code (kLanes 1),
// which is the fallback build for engines without wasm SIMD128 and the baseline in benchmarks.
// Never include this from a header outside kernels/ (SIMD types stay out of the public API).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef SIMDFORMER_SIMD
#define SIMDFORMER_SIMD 1
#endif

#if SIMDFORMER_SIMD
#include <xsimd/xsimd.hpp>
#endif

namespace simdformer::simd {

#if SIMDFORMER_SIMD

using vf32 = xsimd::batch<float>;
constexpr size_t kLanes = vf32::size;
inline const char* arch_name() { return vf32::arch_type::name(); }

inline vf32 load(const float* p) { return vf32::load_unaligned(p); }
inline void store(float* p, vf32 v) { v.store_unaligned(p); }
inline vf32 splat(float x) { return vf32(x); }
// On wasm (no relaxed SIMD) and baseline x86-64 this is mul + add, not a fused operation.
inline vf32 fma(vf32 a, vf32 b, vf32 c) { return xsimd::fma(a, b, c); }
inline vf32 max(vf32 a, vf32 b) { return xsimd::max(a, b); }
inline vf32 min(vf32 a, vf32 b) { return xsimd::min(a, b); }
// xsimd's exp converts round(x * log2 e) to int32 in every lane and only then selects 0 or inf
// for lanes beyond +-88.38 (tanh calls it with 2|x|). For -inf -- every masked
// attention score -- a huge value or NaN that conversion is undefined behaviour (UBSan in the
// wasm-asan build: "-inf is outside the range of representable values of type 'int'"; wasm
// happens to give INT_MIN and discards the lane, but the compiler may assume it never happens).
// Clamping to where the result is already exactly 0 / inf / +-1 keeps every result bit for bit,
// and NaN lanes are passed through untouched.
namespace detail {
inline vf32 clamp_finite(vf32 x, float limit, xsimd::batch_bool<float> nan) {
    return xsimd::select(nan, vf32(0.0f), xsimd::min(xsimd::max(x, vf32(-limit)), vf32(limit)));
}
}  // namespace detail
inline vf32 exp(vf32 x) {
    const auto nan = x != x;
    return xsimd::select(nan, x, xsimd::exp(detail::clamp_finite(x, 100.0f, nan)));
}
inline vf32 tanh(vf32 x) {
    const auto nan = x != x;
    return xsimd::select(nan, x, xsimd::tanh(detail::clamp_finite(x, 16.0f, nan)));
}
// Building blocks of kernels/vector_math.h's erf (written there once for every build):
inline vf32 abs(vf32 x) { return xsimd::abs(x); }
// |mag| with the sign bit of `sign`.
inline vf32 copysign(vf32 mag, vf32 sign) { return xsimd::bitofsign(sign) | xsimd::abs(mag); }
// a > b ? x : y, lane by lane.
inline vf32 select_gt(vf32 a, vf32 b, vf32 x, vf32 y) { return xsimd::select(a > b, x, y); }
// 2^n for t = n + 0x1.8p23 + 127 with n an integer in [-126, 127] (n rounded into the low bits of
// t by that addition): t's low 9 mantissa bits hold n + 127, which shifted left by 23 become the
// exponent field of 2^n.
inline vf32 pow2_of_shifted(vf32 t) {
    return xsimd::bitwise_cast<float>(xsimd::bitwise_cast<uint32_t>(t) << 23);
}
inline float reduce_add(vf32 v) { return xsimd::reduce_add(v); }
inline float reduce_max(vf32 v) { return xsimd::reduce_max(v); }

#else  // scalar stand-in with the same interface

struct vf32 {
    static constexpr size_t size = 1;
    float x = 0.0f;  // zero like a value-initialised batch; keeps GCC's flow analysis quiet
    vf32() = default;
    vf32(float v) : x(v) {}  // NOLINT: mirrors xsimd's broadcasting constructor
};
constexpr size_t kLanes = 1;
inline const char* arch_name() { return "scalar"; }

inline vf32 operator+(vf32 a, vf32 b) { return a.x + b.x; }
inline vf32 operator-(vf32 a, vf32 b) { return a.x - b.x; }
inline vf32 operator*(vf32 a, vf32 b) { return a.x * b.x; }
inline vf32 operator/(vf32 a, vf32 b) { return a.x / b.x; }
inline vf32 operator-(vf32 a) { return -a.x; }
inline vf32& operator+=(vf32& a, vf32 b) { a.x += b.x; return a; }
inline vf32& operator*=(vf32& a, vf32 b) { a.x *= b.x; return a; }

inline vf32 load(const float* p) { return *p; }
inline void store(float* p, vf32 v) { *p = v.x; }
inline vf32 splat(float x) { return x; }
inline vf32 fma(vf32 a, vf32 b, vf32 c) { return a.x * b.x + c.x; }
inline vf32 max(vf32 a, vf32 b) { return a.x > b.x ? a.x : b.x; }
inline vf32 min(vf32 a, vf32 b) { return a.x < b.x ? a.x : b.x; }
inline vf32 exp(vf32 v) { return std::exp(v.x); }
inline vf32 tanh(vf32 v) { return std::tanh(v.x); }
inline vf32 abs(vf32 v) { return std::fabs(v.x); }
inline vf32 copysign(vf32 mag, vf32 sign) { return std::copysign(mag.x, sign.x); }
inline vf32 select_gt(vf32 a, vf32 b, vf32 x, vf32 y) { return a.x > b.x ? x : y; }
inline vf32 pow2_of_shifted(vf32 t) {
    uint32_t bits;
    std::memcpy(&bits, &t.x, sizeof bits);
    bits <<= 23;
    float r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
}
inline float reduce_add(vf32 v) { return v.x; }
inline float reduce_max(vf32 v) { return v.x; }

#endif

}  // namespace simdformer::simd
