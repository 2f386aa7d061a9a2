// Every kernel against its scalar double-precision reference, over sizes around the SIMD width
// and the GEMM tile sizes (1, 3, 17, 129, ...), with strides and all epilogues.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/reference.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

namespace k = kernels;
constexpr float kInf = std::numeric_limits<float>::infinity();

const size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 129};

struct GemmCase {
    size_t m, n, k;
};

class GemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmTest, PackedMatchesReferenceWithEveryEpilogue) {
    const auto [m, n, kk] = GetParam();
    const size_t lda = kk + 3, ldc = n + 5, ldr = n + 1;  // padded rows: strides are honoured
    const auto a = random_vector(m * lda, 1);
    const auto b = random_vector(kk * n, 2);
    const auto bias = random_vector(n, 3);
    const auto residual = random_vector(m * ldr, 4);
    std::vector<float> packed(k::packed_b_size(kk, n));
    k::pack_b(kk, n, b.data(), n, 1, packed.data());
    for (auto act : {k::Activation::kNone, k::Activation::kRelu, k::Activation::kGeluErf, k::Activation::kGeluTanh, k::Activation::kTanh, k::Activation::kSilu,
                     k::Activation::kQuickGelu, k::Activation::kGeluClip10, k::Activation::kSigmoid, k::Activation::kRelu6,
                     k::Activation::kRelu2, k::Activation::kLeakyRelu, k::Activation::kMish, k::Activation::kLaplace}) {
        for (bool with_extras : {false, true}) {
            k::Epilogue ep;
            ep.activation = act;
            if (with_extras) {
                ep.alpha = 0.37f;
                ep.bias = bias.data();
                ep.residual = residual.data();
                ep.ld_residual = ldr;
            }
            std::vector<float> c(m * ldc, 42.0f), want(m * ldc, 42.0f);
            k::gemm_f32_packed(m, n, kk, a.data(), lda, packed.data(), c.data(), ldc, ep);
            k::ref::gemm_f32(m, n, kk, a.data(), lda, b.data(), n, 1, want.data(), ldc, ep);
            // Tolerance grows with the depth of the sum; relu2 multiplies the sum's error by its
            // slope 2 relu(x) = 2 sqrt(output).
            double slope = 1;
            if (act == k::Activation::kRelu2)
                for (float w : want) slope = std::max(slope, 2.0 * std::sqrt(std::abs(double(w))));
            EXPECT_LT(max_abs_diff(c, want), 2e-6 * double(kk + 1) * slope) << "act " << int(act) << " extras " << with_extras;
            for (size_t i = 0; i < m; ++i)  // padding columns of C untouched
                for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 42.0f);
        }
    }
}

TEST_P(GemmTest, TransposedOperandMatchesReference) {
    const auto [m, n, kk] = GetParam();
    const auto a = random_vector(m * kk, 5);
    const auto bt = random_vector(n * kk, 6);  // B stored as [n, k]
    std::vector<float> scratch(k::packed_b_size(kk, n)), c(m * n), want(m * n);
    k::gemm_f32_nt(m, n, kk, a.data(), kk, bt.data(), kk, c.data(), n, scratch.data());
    k::ref::gemm_f32(m, n, kk, a.data(), kk, bt.data(), 1, kk, want.data(), n);
    EXPECT_LT(max_abs_diff(c, want), 2e-6 * double(kk + 1));
    std::vector<float> c2(m * n);
    const auto b = random_vector(kk * n, 7);
    k::gemm_f32(m, n, kk, a.data(), kk, b.data(), n, c2.data(), n, scratch.data());
    k::ref::gemm_f32(m, n, kk, a.data(), kk, b.data(), n, 1, want.data(), n);
    EXPECT_LT(max_abs_diff(c2, want), 2e-6 * double(kk + 1));
}

std::vector<GemmCase> gemm_cases() {
    std::vector<GemmCase> cases;
    for (size_t m : {1, 3, 4, 5, 17}) for (size_t n : {1, 3, 8, 17, 129}) for (size_t kk : {1, 3, 17, 129}) cases.push_back({m, n, kk});
    // Few rows (the small-M tiles: 2 x 2 and 1 x 4 panels, main tiles of 4 to 14 rows cut to
    // equal heights, and their right-edge variants): every M from 1 to 30 (two main tiles of the
    // tallest build, 14 rows, and a tail) against widths that end a panel group after 1, 2 or 3 of its 4 panels or
    // inside a panel (a panel is 2 vectors: 8 columns in wasm and SSE2, 16 in AVX2, 32 in AVX-512;
    // 4 in the scalar build).
    for (size_t m = 1; m <= 30; ++m) for (size_t n : {7, 21, 33, 75}) for (size_t kk : {5, 131}) cases.push_back({m, n, kk});
    cases.push_back({64, 96, 300});
    cases.push_back({33, 65, 513});
    cases.push_back({5, 17, 1030});    // more than one k-block (the kernel blocks k by 1024)
    cases.push_back({133, 9, 2050});   // several k-blocks and more than one 128-row block of A
    cases.push_back({2, 5, 0});      // empty sum: C = epilogue(0)
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTest, ::testing::ValuesIn(gemm_cases()), [](const auto& info) {
    return "m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n) + "_k" + std::to_string(info.param.k);
});

TEST(Gemm, RowResultDoesNotDependOnTheOtherRows) {
    // The same row computed inside a main tile (4, 6, 12 or 14 rows by build) and alone (or in a
    // tall or short tail tile, another row block or after several k-blocks) must be bit-identical:
    // batching must not change results.
    std::vector<GemmCase> shapes = {{133, 19, 1100}};
    for (size_t m = 2; m <= 30; ++m) shapes.push_back({m, 9 * k::gemm_panel_width() + 5, 37});
    // Small blocks run in k-chunks of 128 steps, larger ones (more than 32 rows) do not: a row of
    // either must match itself computed alone (chunked), across chunk and k-block boundaries.
    shapes.push_back({5, 4 * k::gemm_panel_width() + 3, 260});
    shapes.push_back({23, 9 * k::gemm_panel_width() + 5, 1100});
    shapes.push_back({40, 2 * k::gemm_panel_width() + 3, 300});
    for (const auto [m, n, kk] : shapes) {
        const auto a = random_vector(m * kk, 8);
        const auto b = random_vector(kk * n, 9);
        const auto bias = random_vector(n, 10);
        std::vector<float> packed(k::packed_b_size(kk, n)), all(m * n), one(n);
        k::pack_b(kk, n, b.data(), n, 1, packed.data());
        k::Epilogue ep;
        ep.bias = bias.data();
        ep.activation = k::Activation::kGeluErf;
        k::gemm_f32_packed(m, n, kk, a.data(), kk, packed.data(), all.data(), n, ep);
        for (size_t i = 0; i < m; ++i) {
            k::gemm_f32_packed(1, n, kk, a.data() + i * kk, kk, packed.data(), one.data(), n, ep);
            for (size_t j = 0; j < n; ++j) ASSERT_EQ(one[j], all[i * n + j]) << "row " << i << " of " << m;
        }
    }
}

TEST(Softmax, MatchesReferenceAndSumsToOne) {
    for (size_t cols : kSizes) {
        const size_t rows = 3, ld = cols + 2;
        auto x = random_vector(rows * ld, uint32_t(cols), -20.0f, 20.0f);
        auto want = x;
        k::softmax_rows_f32(rows, cols, x.data(), ld);
        k::ref::softmax_rows_f32(rows, cols, want.data(), ld);
        EXPECT_LT(max_abs_diff(x, want), 1e-6) << cols;
        for (size_t i = 0; i < rows; ++i) {
            double s = 0;
            for (size_t j = 0; j < cols; ++j) s += x[i * ld + j];
            EXPECT_NEAR(s, 1.0, 1e-5);
        }
    }
}

TEST(Softmax, IsStableForHugeScores) {
    std::vector<float> x = {1e30f, 1e30f, -1e30f, 3e38f, 0.0f};
    k::softmax_rows_f32(1, 5, x.data(), 5);
    for (float v : x) EXPECT_TRUE(std::isfinite(v));
    EXPECT_FLOAT_EQ(x[3], 1.0f);
}

TEST(Softmax, MaskedKeysGetZeroAndFullyMaskedRowsAreZeroNotNaN) {
    for (size_t cols : kSizes) {
        auto x = random_vector(2 * cols, 11);
        for (size_t j = 0; j < cols; ++j) x[j] = -kInf;           // row 0: every key masked
        x[cols + cols - 1] = -kInf;                                // row 1: last key masked
        k::softmax_rows_f32(2, cols, x.data(), cols);
        for (size_t j = 0; j < cols; ++j) EXPECT_EQ(x[j], 0.0f);
        EXPECT_EQ(x[2 * cols - 1], 0.0f);
        for (float v : x) EXPECT_FALSE(std::isnan(v));
    }
}

// A padded batch masks its padding keys at the end of each row: the real keys' weights must be the
// bits they are in the row alone (the JS API runs batches in groups of similar lengths).
TEST(Softmax, KeysMaskedAtTheEndLeaveTheOthersBitForBit) {
    for (size_t n = 1; n <= 40; ++n) {
        const auto alone = [&] { auto x = random_vector(n, uint32_t(n), -8.0f, 8.0f); k::softmax_rows_f32(1, n, x.data(), n); return x; }();
        for (size_t padded = n + 1; padded <= n + 2 * k::simd_lanes() + 3; ++padded) {
            auto x = random_vector(n, uint32_t(n), -8.0f, 8.0f);
            x.resize(padded, -kInf);
            k::softmax_rows_f32(1, padded, x.data(), padded);
            for (size_t j = 0; j < n; ++j) ASSERT_EQ(x[j], alone[j]) << "n " << n << ", padded to " << padded << ", key " << j;
            for (size_t j = n; j < padded; ++j) ASSERT_EQ(x[j], 0.0f);
        }
    }
}

TEST(ReluNormalize, DividesByValidKeysAndIgnoresMasked) {
    for (size_t cols : kSizes) {
        auto x = random_vector(3 * cols, 12, -2.0f, 2.0f);
        for (size_t j = 0; j < cols; j += 2) x[cols + j] = -kInf;  // row 1: every other key masked
        for (size_t j = 0; j < cols; ++j) x[2 * cols + j] = -kInf;  // row 2: all masked
        const auto original = x;
        auto want = x;
        k::relu_normalize_rows_f32(3, cols, x.data(), cols);
        k::ref::relu_normalize_rows_f32(3, cols, want.data(), cols);
        EXPECT_LT(max_abs_diff(x, want), 1e-6);
        for (size_t j = 0; j < cols; ++j) EXPECT_EQ(x[2 * cols + j], 0.0f);
        // Hand check of one entry from the input, not from the reference: row 1 keeps its odd
        // keys, so entry 1 is relu(x) / (cols / 2).
        const size_t valid = cols / 2;
        if (cols > 1) EXPECT_NEAR(x[cols + 1], std::max(0.0f, original[cols + 1]) / float(valid), 1e-7);
        if (cols > 1 && valid) EXPECT_LE(x[cols + 1] * float(valid), 2.0f + 1e-5f);
    }
}

TEST(MaskScores, PaddingCausalAndAdditiveCombine) {
    const size_t rows = 5, cols = 7;
    auto s = random_vector(rows * cols, 13);
    auto add = random_vector(rows * cols, 14);
    add[3] = -kInf;
    const std::vector<uint8_t> pad = {0, 0, 1, 0, 0, 0, 1};
    for (bool causal : {false, true}) {
        for (size_t offset : {size_t(0), size_t(2)}) {
            auto got = s, want = s;
            k::mask_scores_f32(rows, cols, got.data(), cols, pad.data(), add.data(), cols, causal, offset);
            k::ref::mask_scores_f32(rows, cols, want.data(), cols, pad.data(), add.data(), cols, causal, offset);
            for (size_t i = 0; i < rows * cols; ++i) {
                if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]);
                else EXPECT_NEAR(got[i], want[i], 1e-6);
            }
            if (causal) EXPECT_EQ(got[0 * cols + offset + 1], -kInf);
            EXPECT_EQ(got[1 * cols + 2], -kInf);
        }
    }
}

TEST(AdditiveScores, MatchesReference) {
    for (size_t da : {1, 3, 4, 9, 32}) {
        const size_t n = 3, m = 5;
        const auto pq = random_vector(n * da, 15), pk = random_vector(m * da, 16), w = random_vector(da, 17);
        std::vector<float> got(n * m), want(n * m);
        k::additive_scores_f32(n, m, da, pq.data(), da, pk.data(), da, w.data(), got.data(), m);
        k::ref::additive_scores_f32(n, m, da, pq.data(), da, pk.data(), da, w.data(), want.data(), m);
        EXPECT_LT(max_abs_diff(got, want), 1e-5) << da;
    }
}

TEST(LayerNorm, MatchesReferenceInAndOutOfPlace) {
    for (size_t d : kSizes) {
        const size_t rows = 4, ld = d + 3;
        auto x = random_vector(rows * ld, uint32_t(d), -3.0f, 5.0f);
        const auto g = random_vector(d, 18), b = random_vector(d, 19);
        std::vector<float> y(rows * ld), want(rows * ld);
        k::layernorm_rows_f32(rows, d, x.data(), ld, g.data(), b.data(), 1e-5f, y.data(), ld);
        k::ref::layernorm_rows_f32(rows, d, x.data(), ld, g.data(), b.data(), 1e-5f, want.data(), ld);
        EXPECT_LT(max_abs_diff(y, want), 2e-5) << d;
        k::layernorm_rows_f32(rows, d, x.data(), ld, g.data(), b.data(), 1e-5f, x.data(), ld);
        for (size_t i = 0; i < rows; ++i) EXPECT_LT(max_abs_diff(x.data() + i * ld, y.data() + i * ld, d), 1e-7);
    }
}

TEST(Activations, MatchReference) {
    for (size_t n : kSizes) {
        const auto x = random_vector(n, 20, -6.0f, 6.0f);
        for (auto act : {k::Activation::kNone, k::Activation::kRelu, k::Activation::kGeluErf, k::Activation::kGeluTanh, k::Activation::kTanh, k::Activation::kSilu,
                     k::Activation::kQuickGelu, k::Activation::kGeluClip10, k::Activation::kSigmoid, k::Activation::kRelu6,
                     k::Activation::kRelu2, k::Activation::kLeakyRelu, k::Activation::kMish, k::Activation::kLaplace}) {
            std::vector<float> y(n), want(n);
            k::activation_f32(act, n, x.data(), y.data());
            k::ref::activation_f32(act, n, x.data(), want.data());
            EXPECT_LT(max_rel_diff(y.data(), want.data(), n), 2e-6) << int(act) << " n=" << n;
            auto inplace = x;
            k::activation_f32(act, n, inplace.data(), inplace.data());
            EXPECT_EQ(inplace, y);
        }
    }
}

// The float sweeps below: float bit patterns from `begin` at a stride of 61 (619 under the
// sanitizers; primes, so every low bit pattern comes up) below `end_dense`, every float there with
// SIMDFORMER_ERF_EXHAUSTIVE=1, then every 4099th up to `end_sparse`, then `extra`; each pattern
// also with its sign flipped where `both_signs`. check(x, n) gets them in chunks. Returns the stride.
template <class Check>
uint32_t sweep_floats(uint64_t begin, uint64_t end_dense, uint64_t end_sparse, std::initializer_list<uint32_t> extra,
                      bool both_signs, Check check) {
    const char* env = std::getenv("SIMDFORMER_ERF_EXHAUSTIVE");
    const uint32_t stride = env && std::string(env) == "1" ? 1 : (kSanitizerSampleDivisor == 1 ? 61 : 619);
    constexpr size_t kChunk = 4096;
    std::vector<float> x(kChunk);
    size_t n = 0;
    auto add = [&](uint32_t bits) {
        for (uint32_t sign : {0u, 0x80000000u}) {
            if (sign && !both_signs) break;
            const uint32_t b = bits ^ sign;
            std::memcpy(&x[n++], &b, sizeof(float));
            if (n == kChunk) check(x.data(), n), n = 0;
        }
    };
    for (uint64_t b = begin; b < end_dense; b += stride) add(uint32_t(b));
    for (uint64_t b = end_dense; b < end_sparse; b += 4099) add(uint32_t(b));
    for (uint32_t b : extra) add(b);
    check(x.data(), n);
    return stride;
}

// The vectorised erf of the exact GELU against erf in double, over the float line: float bit
// patterns of [0, 4.5] at a stride of 61 (every exponent, mantissa residues mod 61; 1.8e7
// values), every 4099th float beyond (to +inf: erf rounds to 1 there), the negatives of all of
// them (erf(-x) = -erf(x) bit for bit), NaN. SIMDFORMER_ERF_EXHAUSTIVE=1 takes stride 1: every
// one of the 1.08e9 floats of [0, 4.5] (about 30 s natively, minutes in wasm).
TEST(Erf, WithinATenthOfAMillionthOfTheExactValueForEveryFloat) {
    std::vector<float> y(4096), xn(4096), yn(4096);
    double worst = 0;
    float worst_x = 0;
    uint64_t checked = 0;
    const uint32_t stride = sweep_floats(0, 0x40900000u /* 4.5f */, 0x7f800000u,
                                         {0x7f7fffffu /* the largest float */, 0x7f800000u /* +inf */}, false,
                                         [&](const float* x, size_t n) {
        k::erf_f32(n, x, y.data());
        for (size_t i = 0; i < n; ++i) xn[i] = -x[i];
        k::erf_f32(n, xn.data(), yn.data());
        for (size_t i = 0; i < n; ++i) {
            const double e = std::fabs(double(y[i]) - std::erf(double(x[i])));
            if (!(e <= worst)) worst = e, worst_x = x[i];
            ASSERT_EQ(yn[i], -y[i]) << "x = " << x[i];
        }
        checked += n;
    });
    EXPECT_LE(worst, 1e-7) << "at x = " << std::hexfloat << worst_x;
    std::printf("# erf: %llu floats, max |error| %.3g at x = %a (stride %u)\n", (unsigned long long)checked, worst,
                double(worst_x), stride);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> special = {nan, -nan, 0.0f, -0.0f}, out(special.size());
    k::erf_f32(special.size(), special.data(), out.data());
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
    EXPECT_EQ(out[2], 0.0f);
    EXPECT_TRUE(out[3] == 0.0f && std::signbit(out[3]));
}

// The exact GELU's rational erf (kernels/vector_math.h) against 0.5 x erfc(-x / sqrt 2) in double,
// over the float line (a float bit pattern in every `stride`, both signs, every float at stride 1
// with SIMDFORMER_ERF_EXHAUSTIVE=1: 2.9e-7 natively); from its clamp on, x and -0 exactly; the
// special values.
TEST(GeluErf, WithinAThirdOfAMillionthOfTheExactValueTimesMaxOfOneAndXForEveryFloat) {
    std::vector<float> y(4096);
    double worst = 0;
    float worst_x = 0;
    // Dense to 6.5, beyond the clamp (5.55).
    const uint32_t stride = sweep_floats(0, 0x40d00000u, 0x7f800000u, {0x7f7fffffu}, true, [&](const float* x, size_t n) {
        k::activation_f32(k::Activation::kGeluErf, n, x, y.data());
        for (size_t i = 0; i < n; ++i) {
            const double xd = x[i], exact = 0.5 * xd * std::erfc(-xd / std::sqrt(2.0));
            if (std::fabs(xd) >= 5.55) {  // the clamp: erf(x / sqrt 2) is 1 in float
                if (xd > 0) ASSERT_EQ(y[i], x[i]) << "x = " << x[i];
                else ASSERT_TRUE(y[i] == 0.0f && std::signbit(y[i])) << "x = " << x[i] << " y = " << y[i];
                continue;
            }
            const double e = std::fabs(double(y[i]) - exact) / std::max(1.0, std::fabs(xd));
            if (!(e <= worst)) worst = e, worst_x = x[i];
        }
    });
    EXPECT_LE(worst, 3.5e-7) << "at x = " << std::hexfloat << worst_x;
    std::printf("# gelu: max |error| / max(1, |x|) %.3g at x = %a (stride %u)\n", worst, double(worst_x), stride);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> special = {nan, -nan, 0.0f, -0.0f, inf, -inf}, out(special.size());
    k::activation_f32(k::Activation::kGeluErf, special.size(), special.data(), out.data());
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
    EXPECT_TRUE(out[2] == 0.0f && !std::signbit(out[2]));
    EXPECT_TRUE(out[3] == 0.0f && std::signbit(out[3]));
    EXPECT_EQ(out[4], inf);
    EXPECT_TRUE(std::isnan(out[5]));  // -inf * (1 + erf(-inf)) = -inf * 0, as PyTorch's 0.5 x (1 + erf)
}

// softmax's exp (kernels/vector_math.h) against exp in double over every float of [-87, 0] (every
// `stride`-th with SIMDFORMER_ERF_EXHAUSTIVE unset), in ulps of the result; 0 below -87 and for
// -inf, NaN stays NaN.
TEST(SoftmaxExp, WithinTwoUlpsOfTheExactValueForEveryNonPositiveFloat) {
    std::vector<float> y(4096);
    double worst = 0;
    float worst_x = 0;
    // -0 to -88 (past the flush to 0 at -87), then to -inf; -87 exactly: 2^-126 times e^r, still normal.
    const uint32_t stride = sweep_floats(0x80000000u, 0xc2b00000u, 0xff800000u, {0xc2ae0000u}, false,
                                         [&](const float* x, size_t n) {
        k::softmax_exp_f32(n, x, y.data());
        for (size_t i = 0; i < n; ++i) {
            if (x[i] < -87.0f) {
                ASSERT_EQ(y[i], 0.0f) << "x = " << x[i];
                continue;
            }
            const double exact = std::exp(double(x[i]));
            const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
            const double e = std::fabs(double(y[i]) - exact) / ulp;
            if (!(e <= worst)) worst = e, worst_x = x[i];
        }
    });
    EXPECT_LE(worst, 2.0) << "at x = " << std::hexfloat << worst_x;
    std::printf("# softmax exp: max error %.3g ulps at x = %a (stride %u)\n", worst, double(worst_x), stride);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> special = {nan, -inf, 0.0f, -0.0f}, out(special.size());
    k::softmax_exp_f32(special.size(), special.data(), out.data());
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_EQ(out[2], 1.0f);
    EXPECT_EQ(out[3], 1.0f);
}

TEST(Elementwise, AddAndScaleMatchReference) {
    for (size_t n : kSizes) {
        const auto a = random_vector(n, 21), b = random_vector(n, 22);
        std::vector<float> y(n), want(n);
        k::add_f32(n, a.data(), b.data(), y.data());
        k::ref::add_f32(n, a.data(), b.data(), want.data());
        EXPECT_EQ(y, want);
        k::scale_f32(n, 1.5f, a.data(), y.data());
        k::ref::scale_f32(n, 1.5f, a.data(), want.data());
        EXPECT_EQ(y, want);
    }
}

// Packing in pieces (weights streaming in) gives exactly the panels of one pack_b, and a packed
// operand's columns read back exactly.
TEST(PackB, RowAndColumnPiecesEqualOneWholePack) {
    const size_t w = k::gemm_panel_width();
    for (size_t kk : {size_t(1), size_t(5), size_t(33)})
        for (size_t n : {size_t(1), w - 1, w, w + 1, 3 * w + 2}) {
            const auto b = random_vector(kk * n, 7);  // row-major [kk, n]
            std::vector<float> whole(k::packed_b_size(kk, n)), rows(whole.size(), -1.0f), cols(whole.size(), -1.0f);
            k::pack_b(kk, n, b.data(), n, 1, whole.data());
            for (size_t p = 0; p < kk; p += 2)  // two rows at a time
                k::pack_b_rows(kk, n, p, std::min<size_t>(2, kk - p), b.data() + p * n, n, 1, rows.data());
            EXPECT_EQ(rows, whole) << kk << "x" << n;
            for (size_t j = 0; j < n; j += w)  // one panel at a time
                k::pack_b_columns(kk, j, std::min(w, n - j), b.data() + j, n, 1, cols.data());
            EXPECT_EQ(cols, whole) << kk << "x" << n;
            std::vector<float> column(kk);
            for (size_t j = 0; j < n; ++j) {
                k::packed_b_column(kk, whole.data(), j, column.data());
                for (size_t p = 0; p < kk; ++p) ASSERT_EQ(column[p], b[p * n + j]);
            }
        }
}

// The one-row kernel of decoding steps gives exactly what a one-row GEMM gives, for every
// epilogue, panel edge and depth (more than one of gemm.cpp's k-blocks included). The widths
// cover the GEMV's far-apart groups of 4 panels: none (3 panels), one group and the partial last
// panel inside it (8 * w - 3), groups plus leftover panels (9 * w + 5: 10 panels).
TEST(Gemv, EqualsAOneRowGemmBitForBit) {
    const size_t w = k::gemm_panel_width();
    for (size_t n : {size_t(1), size_t(3), w, w + 1, 3 * w, 4 * w, 4 * w + 3, 8 * w - 3, 9 * w + 5})
        for (size_t kk : {size_t(0), size_t(1), size_t(7), size_t(64), size_t(300), size_t(513)}) {
            const auto x = random_vector(kk, 31), b = random_vector(kk * n, 32);
            const auto bias = random_vector(n, 33), residual = random_vector(n, 34);
            std::vector<float> packed(k::packed_b_size(kk, n));
            k::pack_b(kk, n, b.data(), n, 1, packed.data());
            for (auto act : {k::Activation::kNone, k::Activation::kGeluTanh, k::Activation::kRelu, k::Activation::kMish})
                for (bool extras : {false, true}) {
                    k::Epilogue ep;
                    ep.activation = act;
                    if (extras) {
                        ep.alpha = 0.37f;
                        ep.bias = bias.data();
                        ep.residual = residual.data();
                        ep.ld_residual = n;
                    }
                    std::vector<float> got(n + 1, 42.0f), want(n + 1, 42.0f), ref(n);
                    k::gemv_f32_packed(n, kk, x.data(), packed.data(), got.data(), ep);
                    k::gemm_f32_packed(1, n, kk, x.data(), kk, packed.data(), want.data(), n, ep);
                    ASSERT_EQ(got, want) << n << "x" << kk << " act " << int(act) << " extras " << extras;
                    EXPECT_EQ(got[n], 42.0f);  // nothing written past the row
                    k::ref::gemm_f32(1, n, kk, x.data(), kk, b.data(), n, 1, ref.data(), n, ep);
                    EXPECT_LT(max_abs_diff(got.data(), ref.data(), n), 2e-6 * double(kk + 1));
                }
        }
}

// One query's heads against rows read in place: rows of several key/value heads side by side
// with a padded stride (a cache's rows), grouped-query spans that start inside a group, and one
// masked key. Each head matches the reference, and a span's heads equal the same heads computed
// one at a time bit for bit (the span only reorders which row is read when).
struct SpanCase {
    size_t first, heads, group;
};
constexpr SpanCase kSpanCases[] = {{0, 1, 1}, {0, 3, 1}, {2, 5, 1}, {1, 5, 2}, {3, 4, 4}};

TEST(AttentionQuery, HeadSpansMatchReferenceAndSingleHeads) {
    for (size_t n : kSizes)
        for (size_t d : {size_t(1), size_t(3), size_t(4), size_t(8), size_t(31), size_t(64), size_t(67)})
            for (const SpanCase& c : kSpanCases) {
                const size_t first = c.first, heads = c.heads, group = c.group;
                const size_t kv_first = first / group, kv_heads = (first + heads - 1) / group - kv_first + 1;
                const size_t ld = kv_heads * d + 5;
                const auto q = random_vector(heads * d, 41), rows = random_vector(n * ld, 42);
                k::HeadSpan span;
                span.heads = heads;
                span.d = d;
                span.first = first;
                span.group = group;
                const std::string what = std::to_string(n) + "x" + std::to_string(d) + " heads " +
                                         std::to_string(first) + "+" + std::to_string(heads) + "/" + std::to_string(group);
                std::vector<float> scores(heads * n), one(n), want(n);
                k::dot_rows_heads_f32(n, span, q.data(), rows.data(), ld, 0.125f, scores.data(), n);
                auto weights = random_vector(heads * n, 43, 0.0f, 1.0f);
                weights[n / 2] = 0.0f;  // a masked key is skipped and changes nothing
                weights[(heads - 1) * n + n - 1] = 0.0f;
                std::vector<float> ctx(heads * d + 1, 42.0f), ctx_one(d), ctx_want(d);
                k::weighted_sum_rows_heads_f32(n, span, weights.data(), n, rows.data(), ld, ctx.data());
                EXPECT_EQ(ctx[heads * d], 42.0f) << what;
                for (size_t i = 0; i < heads; ++i) {
                    const float* r = rows.data() + span.column(i);
                    k::ref::dot_rows_f32(n, d, q.data() + i * d, r, ld, 0.125f, want.data());
                    EXPECT_LT(max_abs_diff(scores.data() + i * n, want.data(), n), 1e-6 * double(d + 1)) << what;
                    k::ref::weighted_sum_rows_f32(n, d, weights.data() + i * n, r, ld, ctx_want.data());
                    EXPECT_LT(max_abs_diff(ctx.data() + i * d, ctx_want.data(), d), 1e-6 * double(n + 1)) << what;
                    k::HeadSpan single = span;
                    single.heads = 1;
                    single.first = first + i;
                    const float* r_single = rows.data() + ((first + i) / group - kv_first) * d;
                    ASSERT_EQ(r_single, r) << what;
                    k::dot_rows_heads_f32(n, single, q.data() + i * d, r_single, ld, 0.125f, one.data(), n);
                    EXPECT_TRUE(std::equal(one.begin(), one.end(), scores.begin() + i * n)) << what << " head " << i;
                    k::weighted_sum_rows_heads_f32(n, single, weights.data() + i * n, n, r_single, ld, ctx_one.data());
                    EXPECT_TRUE(std::equal(ctx_one.begin(), ctx_one.end(), ctx.begin() + i * d)) << what << " head " << i;
                }
            }
}

TEST(Simd, ReportsTheArchitectureItWasBuiltFor) {
#if SIMDFORMER_SIMD
    EXPECT_GE(k::simd_lanes(), 4u);
    EXPECT_STRNE(k::simd_arch(), "scalar");
#else
    EXPECT_EQ(k::simd_lanes(), 1u);
    EXPECT_STREQ(k::simd_arch(), "scalar");
#endif
#ifdef __EMSCRIPTEN__
#if SIMDFORMER_SIMD
    EXPECT_STREQ(k::simd_arch(), "wasm");
#endif
#endif
#ifdef SIMDFORMER_EXPECT_ARCH
    // The level this configuration is built for (native-release, native-addon: sse2; native-addon-avx2:
    // fma3+avx2; native-addon-avx512: avx512bw; native-arm64: arm64+neon) is really the one the
    // kernels run, with its register width.
    EXPECT_STREQ(k::simd_arch(), SIMDFORMER_EXPECT_ARCH);
    const std::string expected = SIMDFORMER_EXPECT_ARCH;
    const bool is_128_bit = expected == "sse2" || expected == "arm64+neon";  // 4 lanes; AVX2 8, AVX-512 16
    EXPECT_EQ(k::simd_lanes(), is_128_bit ? 4u : expected.rfind("avx512", 0) == 0 ? 16u : 8u);
#endif
}

}  // namespace
}  // namespace simdformer::test
