// The int8 kernels against their scalar references (tests/cpp/int8_reference.*): the packed
// weight layout byte by byte, streamed packing in every chunking, the activation quantizer
// exactly, both GEMMs over odd sizes with every epilogue, batch-position independence, and the
// accuracy of each design against the f32 GEMM.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "int8_reference.h"
#include "int8/gemm_f32_qc8w.h"
#include "simdformer/build_info.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/reference.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

namespace k = kernels;
using int8ref::QuantizedWeight;

// The documented layout, written out independently of the kernels' helpers.
size_t packed_byte(size_t kk, size_t p, size_t j) {
    const size_t k2 = (kk + 1) / 2;
    return ((j / 8) * k2 + p / 2) * 16 + (j % 8) * 2 + p % 2;
}

std::vector<uint8_t> pack_whole(size_t kk, size_t n, const std::vector<float>& b, size_t row_stride,
                                size_t col_stride) {
    std::vector<uint8_t> packed(k::packed_i8_size(kk, n), 0xAB);  // garbage: init must clear padding
    k::pack_i8(kk, n, b.data(), row_stride, col_stride, packed.data());
    return packed;
}

// Weights shaped like trained ones: mostly small, a few large per column.
std::vector<float> weight_like(size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 0.05f);
    std::vector<float> w(count);
    for (float& x : w) x = d(rng);
    for (size_t i = 0; i < count; i += 97) w[i] *= 6.0f;  // outliers
    return w;
}

// ---- packed weights ------------------------------------------------------------------------

struct Shape {
    size_t m, n, k;
};

class PackI8Test : public ::testing::TestWithParam<Shape> {};

TEST_P(PackI8Test, EveryByteAndScaleMatchesTheReference) {
    const auto [m, n, kk] = GetParam();
    (void)m;
    const auto b = random_vector(kk * n, 31);
    const std::vector<uint8_t> packed = pack_whole(kk, n, b, n, 1);
    const QuantizedWeight want = int8ref::quantize_weight(kk, n, b.data(), n, 1);
    const size_t k2 = (kk + 1) / 2, n8 = (n + 7) / 8;
    ASSERT_EQ(packed.size(), n8 * k2 * 16 + n8 * 8 * (sizeof(float) + sizeof(int32_t)));
    for (size_t p = 0; p < 2 * k2; ++p)
        for (size_t j = 0; j < n8 * 8; ++j) {
            const int8_t got = int8_t(packed[packed_byte(kk, p, j)]);
            const int8_t expect = (p < kk && j < n) ? want.q[p * n + j] : int8_t(0);
            ASSERT_EQ(got, expect) << "p " << p << " j " << j;
        }
    const float* scales = k::packed_i8_scales(kk, n, packed.data());
    for (size_t j = 0; j < n8 * 8; ++j) ASSERT_EQ(scales[j], j < n ? want.scale[j] : 0.0f) << j;
    // The column sums (the relaxed GEMM's zero-point term); the streamed and pre-quantized
    // packings below compare whole buffers, sums included.
    const int32_t* sums = k::packed_i8_colsums(kk, n, packed.data());
    for (size_t j = 0; j < n8 * 8; ++j) {
        int32_t expect = 0;
        for (size_t p = 0; p < kk && j < n; ++p) expect += want.q[p * n + j];
        ASSERT_EQ(sums[j], expect) << j;
    }
}

TEST_P(PackI8Test, StreamedChunksGiveTheSameBytesForBothLayouts) {
    const auto [m, n, kk] = GetParam();
    (void)m;
    const auto w = weight_like(kk * n, 32);  // B [k, n] row-major = GPT-2 Conv1D [in, out]
    const std::vector<uint8_t> whole = pack_whole(kk, n, w, n, 1);
    // nn.Linear [out, in] = Bᵀ, streamed by chunks of output rows: one pass.
    std::vector<float> wt(n * kk);
    for (size_t p = 0; p < kk; ++p)
        for (size_t j = 0; j < n; ++j) wt[j * kk + p] = w[p * n + j];
    for (size_t chunk : {size_t(1), size_t(3), size_t(8), n}) {
        std::vector<uint8_t> packed(whole.size(), 0xCD);
        k::packed_i8_init(kk, n, packed.data());
        float* scales = k::packed_i8_scales(kk, n, packed.data());
        for (size_t j0 = 0; j0 < n; j0 += chunk) {
            const size_t cols = std::min(chunk, n - j0);
            const float* rows = wt.data() + j0 * kk;  // [cols, in]
            k::absmax_cols_update(kk, cols, rows, 1, kk, scales + j0);
            k::scales_from_absmax(cols, scales + j0);
            k::pack_i8_quantize(kk, n, 0, kk, j0, cols, rows, 1, kk, packed.data());
        }
        ASSERT_EQ(packed, whole) << "nn.Linear chunks of " << chunk;
    }
    // GPT-2 Conv1D [in, out] streamed by chunks of input rows: absmax pass, then quantize pass.
    for (size_t chunk : {size_t(1), size_t(2), size_t(5), kk}) {
        std::vector<uint8_t> packed(whole.size(), 0xCD);
        k::packed_i8_init(kk, n, packed.data());
        float* scales = k::packed_i8_scales(kk, n, packed.data());
        for (size_t p0 = 0; p0 < kk; p0 += chunk)
            k::absmax_cols_update(std::min(chunk, kk - p0), n, w.data() + p0 * n, n, 1, scales);
        k::scales_from_absmax(n, scales);
        for (size_t p0 = 0; p0 < kk; p0 += chunk)
            k::pack_i8_quantize(kk, n, p0, std::min(chunk, kk - p0), 0, n, w.data() + p0 * n, n, 1, packed.data());
        ASSERT_EQ(packed, whole) << "Conv1D chunks of " << chunk;
    }
}

TEST_P(PackI8Test, PreQuantizedCopyMatchesQuantizeAtLoad) {
    const auto [m, n, kk] = GetParam();
    (void)m;
    const auto w = weight_like(kk * n, 33);
    const std::vector<uint8_t> whole = pack_whole(kk, n, w, n, 1);
    const QuantizedWeight q = int8ref::quantize_weight(kk, n, w.data(), n, 1);
    std::vector<uint8_t> packed(whole.size(), 0xEF);
    k::packed_i8_init(kk, n, packed.data());
    std::copy(q.scale.begin(), q.scale.end(), k::packed_i8_scales(kk, n, packed.data()));
    for (size_t p0 = 0; p0 < kk; p0 += 2)  // chunks of two input rows
        k::pack_i8_copy(kk, n, p0, std::min<size_t>(2, kk - p0), 0, n, q.q.data() + p0 * n, n, 1, packed.data());
    EXPECT_EQ(packed, whole);
}

TEST(PackI8, RoundsHalfToEvenAndMapsTheMaximumTo127) {
    // One column with max 127 (scale exactly 1): w / scale is w itself.
    const std::vector<float> w = {127.0f, 2.5f, 3.5f, -2.5f, -0.5f, 0.5f, 1.5f, -127.0f, 126.4999f};
    const size_t kk = w.size();
    const std::vector<uint8_t> packed = pack_whole(kk, 1, w, 1, 1);
    const int8_t want[] = {127, 2, 4, -2, 0, 0, 2, -127, 126};
    for (size_t p = 0; p < kk; ++p) EXPECT_EQ(int8_t(packed[packed_byte(kk, p, 0)]), want[p]) << p;
    EXPECT_EQ(k::packed_i8_scales(kk, 1, packed.data())[0], 1.0f);
}

TEST(PackI8, ZeroColumnGetsScaleZeroAndZeros) {
    const size_t kk = 5, n = 3;
    std::vector<float> b = random_vector(kk * n, 34);
    for (size_t p = 0; p < kk; ++p) b[p * n + 1] = 0.0f;
    const std::vector<uint8_t> packed = pack_whole(kk, n, b, n, 1);
    EXPECT_EQ(k::packed_i8_scales(kk, n, packed.data())[1], 0.0f);
    for (size_t p = 0; p < kk; ++p) EXPECT_EQ(packed[packed_byte(kk, p, 1)], 0);
    // And the GEMMs give exactly bias there.
    const std::vector<float> a = random_vector(2 * kk, 35), bias = {0.5f, -0.25f, 2.0f};
    k::Epilogue ep;
    ep.bias = bias.data();
    std::vector<float> c(2 * n);
    for (auto gemm : {k::gemm_f32_qc8w, k::gemm_qd8_qc8w}) {
        gemm(2, n, kk, a.data(), kk, packed.data(), c.data(), n, ep);
        EXPECT_EQ(c[1], -0.25f);
        EXPECT_EQ(c[n + 1], -0.25f);
    }
}

TEST(PackI8, PackedSizeIsAQuarterOfF32) {
    for (auto [kk, n] : {std::pair<size_t, size_t>{768, 768}, {768, 3072}, {3072, 768}, {768, 50257}}) {
        const double ratio = double(k::packed_i8_size(kk, n)) / double(kk * n * sizeof(float));
        EXPECT_LE(ratio, 0.2527) << kk << "x" << n;  // 1/4 + 8 bytes (scale, column sum) per k column
        EXPECT_GE(ratio, 0.25);
    }
}

// ---- activation quantization ----------------------------------------------------------------

TEST(QuantizeRow, MatchesTheReferenceExactly) {
    std::vector<std::vector<float>> rows;
    for (size_t kk : {1, 2, 3, 7, 8, 9, 16, 17, 100, 768}) {
        rows.push_back(random_vector(kk, uint32_t(40 + kk), -3.0f, 5.0f));
        rows.push_back(random_vector(kk, uint32_t(41 + kk), 0.0f, 2.0f));      // one-sided (after ReLU)
        rows.push_back(random_vector(kk, uint32_t(42 + kk), -1.0f, -0.25f));   // all negative
        rows.push_back(std::vector<float>(kk, 0.0f));                          // zeros
        auto spiky = random_vector(kk, uint32_t(43 + kk), -0.1f, 0.1f);
        spiky[kk / 2] = 40.0f;                                                 // one outlier
        rows.push_back(spiky);
    }
    // Exact ties of x * inv_scale: with range 255 (inv_scale 1) x = 2.5 rounds to 2, 3.5 to 4.
    rows.push_back({-127.0f, 128.0f, 2.5f, 3.5f, -2.5f, 0.5f, -0.5f, 1.5f});
    for (const auto& x : rows) {
        const size_t kk = x.size();
        const int8ref::QuantizedRow want = int8ref::quantize_row(kk, x.data());
        const k::Qd8Row got = k::qd8_row_params(kk, x.data());
        ASSERT_EQ(got.scale, want.scale) << kk;
        ASSERT_EQ(got.zero, want.zero) << kk;
        for (size_t stride : {size_t(1), size_t(3)}) {
            const size_t k2 = (kk + 1) / 2;
            std::vector<int16_t> q(2 * k2 * stride, 77);
            k::quantize_row_qd8(kk, x.data(), got, q.data(), stride);
            for (size_t i = 0; i < 2 * k2; ++i) {
                const int16_t expect = i < kk ? want.centered[i] : int16_t(0);
                ASSERT_EQ(q[(i / 2) * 2 * stride + i % 2], expect) << "k " << kk << " i " << i << " stride " << stride;
            }
        }
        // Dequantized values are within half a step (the range holds every x).
        for (size_t i = 0; i < kk; ++i)
            ASSERT_LE(std::fabs(double(want.scale) * want.centered[i] - x[i]), 0.5001 * want.scale + 1e-30);
    }
    const int8ref::QuantizedRow ties = int8ref::quantize_row(8, rows.back().data());
    EXPECT_EQ(ties.scale, 1.0f);
    EXPECT_EQ(ties.zero, 127);
    EXPECT_EQ(ties.centered[2], 2);
    EXPECT_EQ(ties.centered[3], 4);
    EXPECT_EQ(ties.centered[4], -2);
}

TEST(QuantizeRow, QuadsMatchTheReferenceExactlyInEveryByteForm) {
    // The quad GEMMs' rows: 127 or 255 levels, q (not q - zero) as bytes in k quads, zero-padded;
    // or q - 128 as int8 (signed bytes), padded with q = 0.
    for (const auto& [levels, signed_bytes] : {std::pair{127, false}, std::pair{255, false}, std::pair{255, true}}) {
        for (size_t kk : {1, 2, 3, 4, 5, 15, 16, 17, 31, 33, 100, 768}) {
            std::vector<std::vector<float>> rows = {random_vector(kk, uint32_t(60 + kk), -3.0f, 5.0f),
                                                    random_vector(kk, uint32_t(61 + kk), 0.0f, 2.0f),
                                                    random_vector(kk, uint32_t(62 + kk), -1.0f, -0.25f),
                                                    std::vector<float>(kk, 0.0f)};
            rows[0][kk / 2] = 40.0f;  // an outlier
            for (const auto& x : rows) {
                const int8ref::QuantizedRow want = int8ref::quantize_row(kk, x.data(), levels);
                const k::Qd8Row got = k::qd8_row_params(kk, x.data(), levels);
                ASSERT_EQ(got.scale, want.scale) << kk;
                ASSERT_EQ(got.zero, want.zero) << kk;
                ASSERT_LE(want.zero, levels);
                for (size_t stride : {size_t(1), size_t(3)}) {
                    const size_t quads = (kk + 3) / 4;
                    std::vector<uint8_t> q(4 * quads * stride, 200);
                    k::quantize_row_quads(kk, x.data(), got, levels, signed_bytes, q.data(), stride);
                    for (size_t i = 0; i < 4 * quads; ++i) {
                        const int value = i < kk ? want.centered[i] + want.zero : 0;
                        const uint8_t byte = q[(i / 4) * 4 * stride + i % 4];
                        ASSERT_EQ(signed_bytes ? int(int8_t(byte)) + 128 : int(byte), value)
                            << "levels " << levels << " signed " << signed_bytes << " k " << kk << " i " << i
                            << " stride " << stride;
                        ASSERT_LE(value, levels);
                    }
                }
            }
        }
    }
}

TEST(QuantizeRow, AsymmetricHalvesTheErrorOfSymmetricOnOneSidedRows) {
    // Why design (b) quantizes rows asymmetrically: the input of the second feed-forward GEMM is a
    // GELU output, in [-0.17, max], where a symmetric grid wastes half of its 255 steps.
    auto gelu = [](float v) { return float(k::ref::activation(k::Activation::kGeluErf, v)); };
    auto x = random_vector(3072, 44, -3.0f, 3.0f);
    for (float& v : x) v = gelu(v);
    auto rms = [&](const int8ref::QuantizedRow& r) {
        double s = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double d = double(r.scale) * r.centered[i] - x[i];
            s += d * d;
        }
        return std::sqrt(s / double(x.size()));
    };
    const double asym = rms(int8ref::quantize_row(x.size(), x.data()));
    const double sym = rms(int8ref::quantize_row_symmetric(x.size(), x.data()));
    EXPECT_LT(asym, 0.6 * sym) << "asymmetric " << asym << " symmetric " << sym;
}

// ---- GEMMs ---------------------------------------------------------------------------------

using GemmFn = void (*)(size_t, size_t, size_t, const float*, size_t, const void*, float*, size_t, const k::Epilogue&);
using RefFn = void (*)(size_t, size_t, size_t, const float*, size_t, const QuantizedWeight&, float*, size_t,
                       const k::Epilogue&);

struct Design {
    const char* name;
    GemmFn gemm;
    RefFn ref;
};
// The quad k-loops (kernels::I8Kernel) in their portable twin: what the relaxed-SIMD module computes
// bit for bit (init checks the module against it on every tile shape; tests/js/relaxed-simd.test.mjs
// whole models in Chromium), with 7-bit and with 8-bit activations.
struct I8KernelScope {
    explicit I8KernelScope(k::I8Kernel kernel) { EXPECT_TRUE(k::set_i8_kernel(kernel)); }
    ~I8KernelScope() { k::set_i8_kernel(k::I8Kernel::kPairs16); }
};
void gemm_q7_portable(size_t m, size_t n, size_t kk, const float* a, size_t lda, const void* packed, float* c,
                      size_t ldc, const k::Epilogue& ep) {
    I8KernelScope scope(k::I8Kernel::kQuads7Portable);
    k::gemm_qd8_qc8w(m, n, kk, a, lda, packed, c, ldc, ep);
}
void gemm_u8_quads_portable(size_t m, size_t n, size_t kk, const float* a, size_t lda, const void* packed, float* c,
                            size_t ldc, const k::Epilogue& ep) {
    I8KernelScope scope(k::I8Kernel::kQuadsU8Portable);
    k::gemm_qd8_qc8w(m, n, kk, a, lda, packed, c, ldc, ep);
}
void gemm_s8_quads_portable(size_t m, size_t n, size_t kk, const float* a, size_t lda, const void* packed, float* c,
                            size_t ldc, const k::Epilogue& ep) {
    I8KernelScope scope(k::I8Kernel::kQuadsS8Portable);
    k::gemm_qd8_qc8w(m, n, kk, a, lda, packed, c, ldc, ep);
}

const Design kDesigns[] = {{"f32_qc8w", k::gemm_f32_qc8w, int8ref::gemm_f32_qc8w},
                           {"qd8_qc8w", k::gemm_qd8_qc8w, int8ref::gemm_qd8_qc8w},
#if SIMDFORMER_SIMD  // the scalar build has only the 8-bit k-loop
                           {"q7_qc8w", gemm_q7_portable, int8ref::gemm_q7_qc8w},
                           {"u8_quads_qc8w", gemm_u8_quads_portable, int8ref::gemm_qd8_qc8w},
                           {"s8_quads_qc8w", gemm_s8_quads_portable, int8ref::gemm_qd8_qc8w}
#endif
};

class GemmI8Test : public ::testing::TestWithParam<Shape> {};

TEST_P(GemmI8Test, BothDesignsMatchTheirReferenceWithEveryEpilogue) {
    const auto [m, n, kk] = GetParam();
    const size_t lda = kk + 3, ldc = n + 5, ldr = n + 1;  // padded rows: strides are honoured
    const auto a = random_vector(m * lda, 1, -2.0f, 3.0f);
    const auto b = random_vector(kk * n, 2);
    const auto bias = random_vector(n, 3);
    const auto residual = random_vector(m * ldr, 4);
    const std::vector<uint8_t> packed = pack_whole(kk, n, b, n, 1);
    const QuantizedWeight w = int8ref::quantize_weight(kk, n, b.data(), n, 1);
    for (const Design& d : kDesigns) {
        for (auto act : {k::Activation::kNone, k::Activation::kRelu, k::Activation::kGeluErf, k::Activation::kGeluTanh}) {
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
                d.gemm(m, n, kk, a.data(), lda, packed.data(), c.data(), ldc, ep);
                d.ref(m, n, kk, a.data(), lda, w, want.data(), ldc, ep);
                // Design (b) sums exactly; both see f32 rounding that grows with the depth.
                EXPECT_LT(max_abs_diff(c, want), 4e-6 * double(kk + 1))
                    << d.name << " act " << int(act) << " extras " << with_extras;
                for (size_t i = 0; i < m; ++i)  // padding columns of C untouched
                    for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 42.0f) << d.name;
            }
        }
    }
}

TEST_P(GemmI8Test, RowsGiveIdenticalResultsAtEveryBatchPosition) {
    const auto [m, n, kk] = GetParam();
    const auto a = random_vector(m * kk, 5, -2.0f, 2.0f);
    const std::vector<uint8_t> packed = pack_whole(kk, n, weight_like(kk * n, 6), n, 1);
    const auto bias = random_vector(n, 7);
    k::Epilogue ep;
    ep.bias = bias.data();
    ep.activation = k::Activation::kGeluErf;
    for (const Design& d : kDesigns) {
        std::vector<float> all(m * n), one(n);
        d.gemm(m, n, kk, a.data(), kk, packed.data(), all.data(), n, ep);
        for (size_t i = 0; i < m; ++i) {
            d.gemm(1, n, kk, a.data() + i * kk, kk, packed.data(), one.data(), n, ep);
            for (size_t j = 0; j < n; ++j) ASSERT_EQ(one[j], all[i * n + j]) << d.name << " row " << i << " col " << j;
        }
    }
}

std::vector<Shape> shapes() {
    std::vector<Shape> s;
    for (size_t m : {1, 3, 4, 5, 17})
        for (size_t n : {1, 3, 8, 9, 17, 33})
            for (size_t kk : {1, 2, 3, 17, 64, 129}) s.push_back({m, n, kk});
    s.push_back({70, 21, 300});   // more than one row block (qd8: 64) and k block (f32_qc8w: 256)
    s.push_back({9, 19, 2100});   // three k blocks of qd8 (1024): partial i32 sums in C
    s.push_back({130, 12, 515});  // more than one row block of f32_qc8w (128), odd k across blocks
    return s;
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
    return "m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n) + "_k" + std::to_string(info.param.k);
}

TEST_P(GemmI8Test, SevenBitSumsAreExactAndColumnSplitsChangeNothing) {
    // alpha 1 and no bias: each element is float(sum of w * (q - z)) * (row scale * column scale),
    // so the 7-bit path must equal the exact integer reference bit for bit, whole or computed as
    // a thread's share of the columns (splits at every panel boundary, ragged panels included).
    if (!SIMDFORMER_SIMD) GTEST_SKIP() << "the scalar build has only the 8-bit k-loop";
    const auto [m, n, kk] = GetParam();
    const size_t lda = kk + 1, ldc = n + 2;
    const auto a = random_vector(m * lda, 11, -2.0f, 3.0f);
    const auto b = weight_like(kk * n, 12);
    const std::vector<uint8_t> packed = pack_whole(kk, n, b, n, 1);
    const QuantizedWeight w = int8ref::quantize_weight(kk, n, b.data(), n, 1);
    std::vector<float> want(m * ldc, 42.0f);
    for (size_t i = 0; i < m; ++i) {
        const int8ref::QuantizedRow r = int8ref::quantize_row(kk, a.data() + i * lda, 127);
        for (size_t j = 0; j < n; ++j) {
            int64_t sum = 0;
            for (size_t p = 0; p < kk; ++p) sum += int64_t(r.centered[p]) * w.q[p * n + j];
            want[i * ldc + j] = float(sum) * (r.scale * w.scale[j]);
        }
    }
    I8KernelScope scope(k::I8Kernel::kQuads7Portable);
    std::vector<float> c(m * ldc, 42.0f);
    k::gemm_qd8_qc8w(m, n, kk, a.data(), lda, packed.data(), c.data(), ldc, {});
    ASSERT_EQ(c, want);
    for (size_t split = 8; split < n; split += 8) {
        std::vector<float> parts(m * ldc, 42.0f);
        k::gemm_qd8_qc8w_cols(m, n, kk, a.data(), lda, packed.data(), 0, split, parts.data(), ldc, {});
        k::gemm_qd8_qc8w_cols(m, n, kk, a.data(), lda, packed.data(), split, n, parts.data(), ldc, {});
        ASSERT_EQ(parts, want) << "split at " << split;
    }
}

TEST_P(GemmI8Test, EightBitQuadsGiveThePairLoopsBitsWithEveryEpilogue) {
    // The quad k-loops on 255 levels (what the relaxed module runs where the engine's dot product is
    // exact on unsigned bytes q, or on signed bytes q - 128) quantize each row as design (b) does
    // and sum the same products exactly, so init's 'auto' may switch to them without changing a bit
    // of any result.
    if (!SIMDFORMER_SIMD) GTEST_SKIP() << "the scalar build has only the 8-bit k-loop";
    const auto [m, n, kk] = GetParam();
    const size_t lda = kk + 2, ldc = n + 1;
    const auto a = random_vector(m * lda, 21, -3.0f, 2.0f);
    const std::vector<uint8_t> packed = pack_whole(kk, n, weight_like(kk * n, 22), n, 1);
    const auto bias = random_vector(n, 23), residual = random_vector(m * n, 24);
    for (auto act : {k::Activation::kNone, k::Activation::kGeluErf}) {
        k::Epilogue ep;
        ep.activation = act;
        ep.alpha = 0.81f;
        ep.bias = bias.data();
        ep.residual = residual.data();
        ep.ld_residual = n;
        std::vector<float> pairs(m * ldc, 7.0f), u8(m * ldc, 7.0f), s8(m * ldc, 7.0f);
        k::gemm_qd8_qc8w(m, n, kk, a.data(), lda, packed.data(), pairs.data(), ldc, ep);
        gemm_u8_quads_portable(m, n, kk, a.data(), lda, packed.data(), u8.data(), ldc, ep);
        gemm_s8_quads_portable(m, n, kk, a.data(), lda, packed.data(), s8.data(), ldc, ep);
        ASSERT_EQ(u8, pairs) << "act " << int(act);
        ASSERT_EQ(s8, pairs) << "act " << int(act);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmI8Test, ::testing::ValuesIn(shapes()), shape_name);
INSTANTIATE_TEST_SUITE_P(Shapes, PackI8Test, ::testing::Values(Shape{0, 1, 1}, Shape{0, 7, 3}, Shape{0, 8, 16},
                                                              Shape{0, 17, 9}, Shape{0, 33, 40}),
                         shape_name);

TEST(GemmI8, EmptySumGivesTheEpilogueOfZero) {
    const size_t m = 2, n = 5;
    std::vector<uint8_t> packed(k::packed_i8_size(0, n));
    k::pack_i8(0, n, nullptr, n, 1, packed.data());
    const auto bias = random_vector(n, 8), residual = random_vector(m * n, 9);
    k::Epilogue ep;
    ep.bias = bias.data();
    ep.residual = residual.data();
    ep.ld_residual = n;
    const float a = 0.0f;
    for (const Design& d : kDesigns) {
        std::vector<float> c(m * n, 42.0f);
        d.gemm(m, n, 0, &a, 0, packed.data(), c.data(), n, ep);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) EXPECT_FLOAT_EQ(c[i * n + j], bias[j] + residual[i * n + j]) << d.name;
    }
}

TEST(GemmI8, LargestSumsAtTheMaximumDepthDoNotOverflow) {
    // k = kQd8MaxK with centered activations at -255 and +255 and weights at -128 (accepted from
    // pre-quantized files) and 127: the largest i32 sums the qd8 kernel can meet.
    const size_t m = 2, n = 9, kk = k::kQd8MaxK;
    std::vector<float> a(m * kk);
    for (size_t p = 0; p < kk; ++p) {
        a[p] = -1.0f;        // row 0: zero point 255, every value -255 after centering
        a[kk + p] = 1.0f;    // row 1: zero point 0, every value 255
    }
    QuantizedWeight w;
    w.k = kk;
    w.n = n;
    w.q.resize(kk * n);
    for (size_t p = 0; p < kk; ++p)
        for (size_t j = 0; j < n; ++j) w.q[p * n + j] = j % 2 ? int8_t(127) : int8_t(-128);
    w.scale.assign(n, 1.0f);
    std::vector<uint8_t> packed(k::packed_i8_size(kk, n));
    k::packed_i8_init(kk, n, packed.data());
    std::copy(w.scale.begin(), w.scale.end(), k::packed_i8_scales(kk, n, packed.data()));
    k::pack_i8_copy(kk, n, 0, kk, 0, n, w.q.data(), n, 1, packed.data());
    for (const Design& d : kDesigns) {
        std::vector<float> c(m * n), want(m * n);
        d.gemm(m, n, kk, a.data(), kk, packed.data(), c.data(), n, {});
        d.ref(m, n, kk, a.data(), kk, w, want.data(), n, {});
        EXPECT_LT(max_rel_diff(c.data(), want.data(), c.size()), 1e-6) << d.name;
        EXPECT_NEAR(c[0], 128.0 * double(kk), 1e-6 * 128.0 * double(kk)) << d.name;      // (-1) x (-128)
        EXPECT_NEAR(c[n + 1], 127.0 * double(kk), 1e-6 * 127.0 * double(kk)) << d.name;  // 1 x 127
    }
}

// ---- accuracy against the f32 GEMM -----------------------------------------------------------

TEST(GemmI8Accuracy, BothDesignsStayCloseToF32OnTransformerLikeData) {
    // LayerNorm-like activations (unit variance, a few outlier features as in BERT) times
    // trained-like weights; and GELU outputs into a d_ff x d weight.
    const size_t m = 16;
    for (auto [kk, n, gelu_input] : {std::tuple<size_t, size_t, bool>{768, 256, false}, {1024, 128, true}}) {
        std::mt19937 rng(50);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float> a(m * kk);
        for (float& v : a) v = nd(rng);
        for (size_t i = 0; i < m; ++i) a[i * kk + 7] *= 12.0f;  // an outlier feature
        if (gelu_input)
            for (float& v : a) v = float(k::ref::activation(k::Activation::kGeluErf, v));
        const auto b = weight_like(kk * n, 51);
        std::vector<float> scratch(k::packed_b_size(kk, n)), f32(m * n);
        k::gemm_f32(m, n, kk, a.data(), kk, b.data(), n, f32.data(), n, scratch.data());
        const std::vector<uint8_t> packed = pack_whole(kk, n, b, n, 1);
        std::vector<float> fa(m * n), fb(m * n), f7(m * n);
        k::gemm_f32_qc8w(m, n, kk, a.data(), kk, packed.data(), fa.data(), n, {});
        k::gemm_qd8_qc8w(m, n, kk, a.data(), kk, packed.data(), fb.data(), n, {});
        const double cos_a = cosine_similarity(fa, f32), cos_b = cosine_similarity(fb, f32);
        if (SIMDFORMER_SIMD) {
            gemm_q7_portable(m, n, kk, a.data(), kk, packed.data(), f7.data(), n, {});
            const double cos_7 = cosine_similarity(f7, f32);
            RecordProperty("cos_q7_qc8w_k" + std::to_string(kk), std::to_string(cos_7));
            std::printf("k %zu: cosine to f32: f32_qc8w %.6f, qd8_qc8w %.6f, q7_qc8w %.6f\n", kk, cos_a, cos_b, cos_7);
            EXPECT_GT(cos_7, 0.999) << "k " << kk << " (qd8_qc8w " << cos_b << ")";
            EXPECT_GT(cos_b, cos_7) << "8-bit activations are the more accurate ones";
        }
        EXPECT_GT(cos_a, 0.9995) << "k " << kk;
        EXPECT_GT(cos_b, 0.9994) << "k " << kk << " (f32_qc8w " << cos_a << ")";
        EXPECT_GT(cos_a, cos_b) << "weights-only quantization is the more accurate one";
        RecordProperty("cos_f32_qc8w_k" + std::to_string(kk), std::to_string(cos_a));
        RecordProperty("cos_qd8_qc8w_k" + std::to_string(kk), std::to_string(cos_b));
    }
}

TEST(I8Kernel, RelaxedRunsOnlyWhereTheEngineRunsTheModule) {
    // Natively (and in wasm under an engine without relaxed SIMD, as Node 20 is without its flag)
    // the relaxed k-loops are refused and "auto" keeps the 8-bit one; "portable" always runs.
    const k::RelaxedI8Support support = k::relaxed_i8_support();
    if (support.exact7) GTEST_SKIP() << "this engine runs the relaxed-SIMD module";
    EXPECT_FALSE(support.exact_u8 || support.exact_s8) << "found only where the module runs";
    EXPECT_EQ(k::auto_i8_kernel(), k::I8Kernel::kPairs16);
    EXPECT_FALSE(k::set_i8_kernel(k::I8Kernel::kQuads7Relaxed));
    EXPECT_FALSE(k::set_i8_kernel(k::I8Kernel::kQuadsU8Relaxed));
    EXPECT_FALSE(k::set_i8_kernel(k::I8Kernel::kQuadsS8Relaxed));
    EXPECT_EQ(k::i8_kernel(), k::I8Kernel::kPairs16);
    EXPECT_EQ(use_int8_kernel("relaxed"), nullptr);
    EXPECT_STREQ(use_int8_kernel("auto"), "off");
    if (!SIMDFORMER_SIMD) {  // the scalar build has only the 8-bit k-loop
        EXPECT_EQ(use_int8_kernel("portable"), nullptr);
        EXPECT_FALSE(k::set_i8_kernel(k::I8Kernel::kQuadsU8Portable));
        EXPECT_FALSE(k::set_i8_kernel(k::I8Kernel::kQuadsS8Portable));
        EXPECT_EQ(k::i8_kernel(), k::I8Kernel::kPairs16);
        return;
    }
    EXPECT_STREQ(use_int8_kernel("portable"), "portable");
    EXPECT_EQ(k::i8_kernel(), k::I8Kernel::kQuads7Portable);
    EXPECT_EQ(use_int8_kernel("fast"), nullptr);
    for (const char* name : {"relaxed-u8", "relaxed-s8", "portable-u8", "portable-s8"})
        EXPECT_EQ(use_int8_kernel(name), nullptr) << name << ": a name init() reports, not a mode it asks for";
    EXPECT_EQ(use_int8_kernel(nullptr), nullptr);
    EXPECT_EQ(k::i8_kernel(), k::I8Kernel::kQuads7Portable) << "a refused mode changes nothing";
    EXPECT_STREQ(use_int8_kernel("off"), "off");
}

TEST(I8Kernel, QuadBytes) {
    EXPECT_EQ(k::quad_bytes(k::I8Kernel::kPairs16).levels, 0);
    const struct {
        k::I8Kernel kernel;
        int levels;
        bool signed_bytes, relaxed;
    } kWant[] = {{k::I8Kernel::kQuads7Relaxed, 127, false, true},   {k::I8Kernel::kQuads7Portable, 127, false, false},
                 {k::I8Kernel::kQuadsU8Relaxed, 255, false, true},  {k::I8Kernel::kQuadsU8Portable, 255, false, false},
                 {k::I8Kernel::kQuadsS8Relaxed, 255, true, true},   {k::I8Kernel::kQuadsS8Portable, 255, true, false}};
    for (const auto& w : kWant) {
        const k::QuadBytes got = k::quad_bytes(w.kernel);
        EXPECT_EQ(got.levels, w.levels) << int(w.kernel);
        EXPECT_EQ(got.signed_bytes, w.signed_bytes) << int(w.kernel);
        EXPECT_EQ(got.relaxed, w.relaxed) << int(w.kernel);
    }
}

TEST(TestUtil, CosineSimilarityAndMaxAbsDiff) {
    const std::vector<float> a = {1, 2, 3}, b = {2, 4, 6}, c = {-1, -2, -3}, z = {0, 0, 0}, o = {3, 0, -1};
    EXPECT_NEAR(cosine_similarity(a, b), 1.0, 1e-15);
    EXPECT_NEAR(cosine_similarity(a, c), -1.0, 1e-15);
    EXPECT_NEAR(cosine_similarity(a, o), 0.0, 1e-15);
    EXPECT_EQ(cosine_similarity(z, z), 1.0);
    EXPECT_EQ(cosine_similarity(a, z), 0.0);
    const std::vector<float> nan = {1, std::numeric_limits<float>::quiet_NaN(), 3};
    EXPECT_TRUE(std::isnan(cosine_similarity(a, nan)));
    EXPECT_EQ(max_abs_diff(a, b), 3.0);
    EXPECT_EQ(max_abs_diff(a, nan), INFINITY);
}

}  // namespace
}  // namespace simdformer::test
