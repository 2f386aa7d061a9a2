// Vector helpers shared by the kernel .cpp files: partial loads/stores for row tails and the
// activation functions. Internal to kernels/ (it exposes SIMD types).
#pragma once

#include <cstring>

#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd.h"

namespace simdformer::kernels::detail {

using simd::kLanes;
using simd::vf32;

// Vectors per panel of a packed B (gemm.cpp's pack_b): 2 (8 columns in SIMD128 and SSE2, 16 in
// AVX2, 32 in AVX-512), 4 scalars in the scalar build (its 4 x 4 tiles). The GEMM and the GEMV
// both read that layout, so it is one constant.
constexpr size_t kPanelVecs = kLanes == 1 ? 4 : 2;

// Loads n < kLanes floats, filling the remaining lanes with `fill`. Tails go through the same
// vector code as full vectors, so every element sees identical arithmetic.
inline vf32 load_partial(const float* p, size_t n, float fill) {
    float tmp[kLanes];
    for (size_t i = 0; i < kLanes; ++i) tmp[i] = i < n ? p[i] : fill;
    return simd::load(tmp);
}

inline void store_partial(float* p, size_t n, vf32 v) {
    float tmp[kLanes];
    simd::store(tmp, v);
    std::memcpy(p, tmp, n * sizeof(float));
}

// ---- erf -------------------------------------------------------------------------------------
// erf(x) within 1e-7 of the exact value for every float x (kernels_test's sweep; float rounding
// alone is up to 3e-8 below 1), the same formula in every build (SIMD128, SSE2 ... AVX-512, the
// scalar one), about half the work of xsimd's erf. Two ranges of a = |x|, both evaluated in every
// lane and the one that applies selected:
//  - a <= kErfSplit: erf(a) = a + a Q(a^2), Q a minimax fit of erf(a)/a - 1 (written a + a Q so
//    that the polynomial's rounding errors are scaled by |Q| <= 0.13, not by erf(a)/a ~ 1.13);
//  - a > kErfSplit: erf(a) = 1 - erfc(a), erfc(a) = 2^M(v), M a minimax fit of log2 erfc(a) in
//    v = min(a, 4) - kErfSplit (erfc(4) = 1.5e-8: beyond 4, 1 - erfc rounds to 1); v starts at 0
//    where erfc is largest, so M's rounding stays near an ulp of M(0) there (a variable centred
//    in the range made terms of 10 to 15 cancel and cost 2e-7), and
//    2^M = 2^n 2^r with n = round(M) built from the float's bits and r = M - n in [-1/2, 1/2]
//    (exact), 2^r a minimax polynomial. No division, no float-to-int conversion.
// The sign is copied back (erf is odd, exactly), NaN stays NaN, +-inf gives +-1.
// Coefficients: scripts/fit_erf.py (Remez exchange; each polynomial refitted as its coefficients
// are rounded to float one by one, lowest degree first).
constexpr float kErfSplit = 0x1.9bf2acp-1f;  // 0.8046: log2 erfc is 2e-5 ulp from a float there (kErfM[0])
constexpr float kErfQ[] = {0x1.06eba8p-3f, -0x1.812732p-2f, 0x1.ce2882p-4f, -0x1.b773e4p-6f, 0x1.4d5806p-8f,
                           -0x1.56d256p-11f};
constexpr float kErfM[] = {-0x1.f86cc6p+0f, -0x1.ab69bcp+1f, -0x1.2d7bf4p+0f, -0x1.284f3ep-4f, 0x1.1b735ap-6f,
                           -0x1.97e2fap-9f, 0x1.3b80c0p-12f};
constexpr float kExp2P[] = {0x1p+0f, 0x1.62e430p-1f, 0x1.ebfbe0p-3f, 0x1.c6b3f6p-5f, 0x1.3b36a8p-7f,
                            0x1.5c78acp-10f, 0x1.35eaaep-13f};

// The constant c (a float with an address: an element of the tables above, or a named
// constant) in every lane. In wasm it is loaded from memory where it lives: a vector constant
// becomes v128.const, which V8 builds inside the loop that uses it, every iteration, with three
// instructions (a 64-bit immediate into a general register, a move to a vector register, a
// shuffle: two of them on x86's one shuffle port). erf's ~28 constants made the exact GELU cost
// ~48 cycles per vector in Chromium, most of them those moves; a broadcast load (v128.load32_splat,
// vbroadcastss) is one load instead. The empty asm hides the address's contents from the
// compiler, which would otherwise fold the load back into a v128.const. Natively the compiler
// already keeps its vector constants in memory (or registers): the plain splat.
inline vf32 constant(const float& c) {
#if defined(__wasm__)
    const float* p = &c;
    __asm__("" : "+r"(p));
    return vf32(*p);
#else
    return vf32(c);
#endif
}

// c[0] + c[1] x + ... + c[N-1] x^(N-1) by Horner's rule.
template <size_t N>
inline vf32 horner(vf32 x, const float (&c)[N]) {
    vf32 p = constant(c[N - 1]);
    for (size_t i = N - 1; i-- > 0;) p = simd::fma(p, x, constant(c[i]));
    return p;
}

// erf's and the GELU's other constants, as objects with addresses (constant() above).
constexpr float kErfClamp = 4.0f;
constexpr float kPow2Shifter = 0x1.8p23f + 127.0f;  // 1.5 * 2^23, whose ulp is 1; + 127: 2^n's exponent bias
constexpr float kOne = 1.0f, kHalf = 0.5f;

inline vf32 erf(vf32 x) {
    const vf32 a = simd::abs(x);
    const vf32 small = simd::fma(a, horner(a * a, kErfQ), a);
    const vf32 split = constant(kErfSplit);
    const vf32 v = simd::min(a, constant(kErfClamp)) - split;  // exact where erfc matters (a < 2 kErfSplit)
    const vf32 m = horner(v, kErfM);  // log2 erfc(a), in [-25, -1.97] for a in [kErfSplit, 4]
    const vf32 shifter = constant(kPow2Shifter);
    const vf32 t = m + shifter;       // round(m) + 127 in the low mantissa bits
    const vf32 r = m - (t - shifter);  // m - round(m), exact
    const vf32 erfc = horner(r, kExp2P) * simd::pow2_of_shifted(t);
    const vf32 large = constant(kOne) - erfc;
    return simd::copysign(simd::select_gt(a, split, large, small), x);
}

// ---- the exact GELU ----------------------------------------------------------------------------
// 0.5 x (1 + erf(x / sqrt 2)), PyTorch's exact GELU, with erf(x / sqrt 2) as one rational function
// of x instead of erf() above: a P(a^2) / Q(a^2), a = min(|x|, kGeluClamp), P and Q of degree 5,
// one division (XNNPACK's f32-vgelu rational kernels take this form; the coefficients are our own
// fit: scripts/fit_erf.py --gelu, Remez exchange for a rational function, minimax in relative
// error over [0, kGeluClamp], 4.9e-8 with the float coefficients). About 33 vector
// operations against erf()'s ~57 with its two ranges: MiniLM-L6's forward pass x0.97 (f32) and
// x0.95 (int8) in Chromium. Within 2.9e-7 max(|x|, 1) of the exact GELU for every float x, in
// float with or without FMA (kernels_test's sweep), against 1.6e-7 for PyTorch's own vectorised
// GELU on the CPU and 1.0e-7 for 0.5 x (1 + erf()) with erf() above.
// From kGeluClamp = 5.55 on, erf(x / sqrt 2) rounds to 1 in float (1 - erf < 2^-25): there
// the fit evaluates to >= 1 in both roundings, and the min() makes it exactly 1, so GELU(x) is x
// for large x and -0 for large -x; the min() also keeps 1 + erf >= 0 where the fit overshoots 1
// by a few ulps below the clamp. The sign is copied back (erf is odd), so GELU(-0) = -0,
// GELU(-inf) = -inf * 0 = NaN as in PyTorch, NaN stays NaN.
constexpr float kGeluClamp = 0x1.633336p+2f;
constexpr float kGeluP[] = {0x1.988452p-1f, 0x1.262746p-4f, 0x1.3a4d9ap-7f, 0x1.8aa97ep-12f, 0x1.a98696p-17f,
                            0x1.5d0a86p-25f};
constexpr float kGeluQ[] = {0x1p+0f, 0x1.06d524p-2f, 0x1.e846f0p-6f, 0x1.05a946p-9f, 0x1.4b8810p-14f, 0x1.2dfd66p-20f};

inline vf32 gelu_erf(vf32 x) {
    const vf32 a = simd::min(simd::abs(x), constant(kGeluClamp));
    const vf32 s = a * a;
    const vf32 erf_abs = simd::min(a * (horner(s, kGeluP) / horner(s, kGeluQ)), constant(kOne));
    return constant(kHalf) * x * (constant(kOne) + simd::copysign(erf_abs, x));
}

// ---- exp for softmax ----------------------------------------------------------------------------
// exp(x) for a score minus its row's max (x <= 0, -inf for a masked key), within 1.2 ulps, the same
// formula in every build. xsimd's exp rounds with f32x4.nearest and builds 2^n with a float-to-int
// conversion, which V8 lowers on x86 to ~7 instructions (NaN and overflow fix-ups), and selects
// twice for its overflow and underflow. Here: n = round(x log2 e) as the low bits of
// t = x log2 e + 1.5 * 2^23 + 127 (the erf's trick), r = x - n ln 2 in two parts (Cody and Waite:
// n kLn2Hi is exact, kLn2Hi's 15 bits times |n| <= 126), e^r a minimax polynomial of degree 6 on
// |r| <= ln 2 / 2 (relative error 3.3e-9 with float coefficients; scripts/fit_erf.py --exp), times
// 2^n from t's bits. Below kExpMin (e^-87 = 1.6e-38, where 2^n would leave the normal floats:
// what the lanes computed there is replaced) the result is 0, so masked keys (-inf) add exact
// zeros. NaN stays NaN (NaN < kExpMin is false). No clamp: a max() would drop a NaN in wasm
// (xsimd's max is f32x4.pmax, whose NaN operand order is the opposite of x86's maxps).
constexpr float kExpMin = -87.0f;
constexpr float kLog2e = 0x1.715476p+0f;
constexpr float kLn2Hi = 0x1.62e4p-1f, kLn2Lo = 0x1.7f7d1cp-20f;
constexpr float kExpP[] = {0x1p+0f, 0x1p+0f, 0x1.fffffcp-2f, 0x1.55548ap-3f, 0x1.55584ep-5f, 0x1.123f30p-7f,
                           0x1.6ad158p-10f};
constexpr float kZero = 0.0f;

// Out of line in the scalar build, where each inlined copy is code size that buys no speed.
#if !SIMDFORMER_SIMD
[[gnu::noinline]]
#endif
inline vf32 exp_of_shifted_score(vf32 x) {
    const vf32 shifter = constant(kPow2Shifter);
    const vf32 t = simd::fma(x, constant(kLog2e), shifter);  // round(x log2 e) + 127 in the low bits
    const vf32 n = t - shifter;
    const vf32 r = (x - n * constant(kLn2Hi)) - n * constant(kLn2Lo);
    const vf32 e = horner(r, kExpP) * simd::pow2_of_shifted(t);
    return simd::select_gt(constant(kExpMin), x, constant(kZero), e);
}

// GELU(approximate='tanh') = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in two halves
// around the tanh so that activate() can share one tanh with Activation::kTanh.
inline vf32 gelu_tanh_arg(vf32 x) {
    const vf32 c(0.79788456080286536f), k(0.044715f);
    return c * simd::fma(k * x, x * x, x);
}
inline vf32 gelu_from_tanh(vf32 x, vf32 tanh_of_arg) {
    const vf32 half(0.5f), one(1.0f);
    return half * x * (one + tanh_of_arg);
}

inline vf32 silu(vf32 x) {
    // x * sigmoid(x) = x / (1 + exp(-x)); exp overflows to +inf for x < -88, giving -0 as
    // torch.nn.functional.silu does.
    const vf32 one(1.0f);
    return x / (one + simd::exp(-x));
}

// The rarer Hugging Face activations (quick_gelu, gelu_10, sigmoid, relu6, relu2, leaky_relu,
// mish, laplace): one out-of-line copy (elementwise.cpp) called from every epilogue, so each
// GEMM / GEMV instantiation grows by a call, not by eight inlined formulas.
vf32 activate_rare(Activation act, vf32 x);

// Out of line in wasm: one copy serves every epilogue (GEMM tiles, GEMV, the elementwise map)
// instead of one per instantiation; where it is inlined the threads build grows by ~4.6 KB gzip.
#if defined(__EMSCRIPTEN__)
[[gnu::noinline]]
#endif
inline vf32 activate(Activation act, vf32 x) {
    switch (act) {
        case Activation::kNone: return x;
        case Activation::kRelu: return simd::max(x, vf32(0.0f));
        case Activation::kGeluErf: return gelu_erf(x);
        case Activation::kGeluTanh:
        case Activation::kTanh: {
            // One inlined tanh for both (xsimd's is long: two ranges, an exp and a division), so
            // the out-of-line activate every epilogue calls carries it once.
            const bool gelu = act == Activation::kGeluTanh;
            const vf32 t = simd::tanh(gelu ? gelu_tanh_arg(x) : x);
            return gelu ? gelu_from_tanh(x, t) : t;
        }
        case Activation::kSilu: return silu(x);
        default: return activate_rare(act, x);
    }
}

// act applied in place to n floats at p, n a multiple of kLanes: the epilogue of a finished GEMM
// tile (its row pieces, kNr floats each, in one call) or of a GEMV panel, where
// SIMDFORMER_ACTIVATE_ROWS is on (wasm; see below). Each element sees exactly the arithmetic of
// activate(act, x). The exact GELU, the activation of the encoders' FFNs, is a loop with its
// constants loaded once instead of one out-of-line activate() per vector that rebuilt its ~20
// constants and dispatched each time: 128 x 384 x 1536 GEMM + bias + GELU x0.925, 5 x 384 x 1536
// x0.915 (bench/experiments/gemm-ab.mjs --gelu, Node, same process). Two or four vectors per
// step, interleaved, measured the same as one (x0.925-0.932): the CPU overlaps the erf chains.
void activate_rows(Activation act, float* p, size_t n);

}  // namespace simdformer::kernels::detail

// The GEMM and GEMV epilogues call activate_rows() once per tile in wasm (both builds, SIMD128 and
// scalar), where activate() is out of line; natively activate() is inlined into each tile, whose
// compiler already keeps the constants in registers and schedules across vectors.
#ifndef SIMDFORMER_ACTIVATE_ROWS
#if defined(__EMSCRIPTEN__)
#define SIMDFORMER_ACTIVATE_ROWS 1
#else
#define SIMDFORMER_ACTIVATE_ROWS 0
#endif
#endif
