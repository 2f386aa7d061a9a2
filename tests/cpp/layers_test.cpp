// The standalone attention op and the positional table against naive double-precision code
// written from the textbook definitions (independent of the kernels).
#include <limits>

#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/reference.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kInfD = std::numeric_limits<double>::infinity();

struct Naive {
    std::vector<double> out, weights;
};

// The definitions, literally: scores, masks as -inf, softmax or relu/n_valid, weights · V.
Naive naive_attention(const AttentionRequest& r) {
    const size_t nq = r.n_seq_q, nk = r.n_seq_k;
    std::vector<double> s(nq * nk);
    for (size_t i = 0; i < nq; ++i)
        for (size_t j = 0; j < nk; ++j) {
            double v = 0;
            if (r.options.score == ScoreKind::kAdditive) {
                for (size_t a = 0; a < r.additive_dim; ++a) {
                    double wq = 0, wk = 0;
                    for (size_t c = 0; c < r.d_k; ++c) {
                        wq += double(r.w_q[a * r.d_k + c]) * r.q[i * r.d_k + c];
                        wk += double(r.w_k[a * r.d_k + c]) * r.k[j * r.d_k + c];
                    }
                    v += double(r.w_v[a]) * std::tanh(wq + wk);
                }
            } else {
                for (size_t c = 0; c < r.d_k; ++c) v += double(r.q[i * r.d_k + c]) * r.k[j * r.d_k + c];
                if (r.options.score == ScoreKind::kScaledDot) v /= std::sqrt(double(r.d_k));
            }
            if (r.attn_mask) v += r.attn_mask[i * nk + j];
            if ((r.key_padding && r.key_padding[j]) || (r.causal && j > i)) v = -kInfD;
            s[i * nk + j] = v;
        }
    Naive n{std::vector<double>(nq * r.d_v, 0.0), std::vector<double>(nq * nk, 0.0)};
    for (size_t i = 0; i < nq; ++i) {
        double* w = &n.weights[i * nk];
        const double* row = &s[i * nk];
        if (r.options.normalize == NormalizeKind::kSoftmax) {
            double mx = -kInfD, sum = 0;
            for (size_t j = 0; j < nk; ++j) mx = std::max(mx, row[j]);
            if (mx == -kInfD) continue;  // fully masked: zeros
            for (size_t j = 0; j < nk; ++j) sum += std::exp(row[j] - mx);
            for (size_t j = 0; j < nk; ++j) w[j] = std::exp(row[j] - mx) / sum;
        } else {
            size_t valid = 0;
            for (size_t j = 0; j < nk; ++j) valid += row[j] != -kInfD;
            for (size_t j = 0; j < nk; ++j) w[j] = valid && row[j] > 0 ? row[j] / double(valid) : 0.0;
        }
        for (size_t j = 0; j < nk; ++j)
            for (size_t c = 0; c < r.d_v; ++c) n.out[i * r.d_v + c] += w[j] * r.v[j * r.d_v + c];
    }
    return n;
}

double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
    return std::isnan(m) ? INFINITY : m;
}

struct Variant {
    ScoreKind score;
    NormalizeKind normalize;
    bool padding, causal, additive_mask, fully_masked_row;
};

class AttentionVariants : public ::testing::TestWithParam<Variant> {};

TEST_P(AttentionVariants, MatchesTheTextbookDefinition) {
    const Variant p = GetParam();
    const size_t nq = 6, nk = 9, dk = 10, dv = 7, da = 5;
    const auto q = random_vector(nq * dk, 1), k = random_vector(nk * dk, 2), v = random_vector(nk * dv, 3);
    const auto wq = random_vector(da * dk, 4), wk = random_vector(da * dk, 5), wv = random_vector(da, 6);
    auto mask = random_vector(nq * nk, 7);
    std::vector<uint8_t> pad(nk, 0);
    pad[2] = pad[7] = 1;
    if (p.fully_masked_row)
        for (size_t j = 0; j < nk; ++j) mask[3 * nk + j] = -std::numeric_limits<float>::infinity();
    AttentionRequest r;
    r.n_seq_q = nq;
    r.n_seq_k = nk;
    r.d_k = dk;
    r.d_v = dv;
    r.q = q.data();
    r.k = k.data();
    r.v = v.data();
    r.options = {p.score, p.normalize};
    r.additive_dim = da;
    r.w_q = wq.data();
    r.w_k = wk.data();
    r.w_v = wv.data();
    r.key_padding = p.padding ? pad.data() : nullptr;
    r.attn_mask = p.additive_mask || p.fully_masked_row ? mask.data() : nullptr;
    r.causal = p.causal;
    std::vector<float> out(nq * dv), weights(nq * nk);
    SF_ASSERT_OK(attention(r, out.data(), weights.data()));
    const Naive want = naive_attention(r);
    EXPECT_LT(max_diff(out, want.out), 1e-5);
    EXPECT_LT(max_diff(weights, want.weights), 1e-6);
    if (p.fully_masked_row)
        for (size_t j = 0; j < nk; ++j) EXPECT_EQ(weights[3 * nk + j], 0.0f);
    // Without weights requested the output is the same.
    std::vector<float> out2(nq * dv);
    SF_ASSERT_OK(attention(r, out2.data(), nullptr));
    EXPECT_EQ(out, out2);
}

std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (auto s : {ScoreKind::kScaledDot, ScoreKind::kDot, ScoreKind::kAdditive})
        for (auto n : {NormalizeKind::kSoftmax, NormalizeKind::kRelu})
            for (int masks = 0; masks < 5; ++masks)
                v.push_back({s, n, masks == 1 || masks == 3, masks == 2 || masks == 3, masks == 3, masks == 4});
    return v;
}

INSTANTIATE_TEST_SUITE_P(All, AttentionVariants, ::testing::ValuesIn(variants()), [](const auto& info) {
    const Variant& p = info.param;
    std::string name = p.score == ScoreKind::kScaledDot ? "scaled" : p.score == ScoreKind::kDot ? "dot" : "additive";
    name += p.normalize == NormalizeKind::kSoftmax ? "_softmax" : "_relu";
    if (p.padding) name += "_pad";
    if (p.causal) name += "_causal";
    if (p.additive_mask) name += "_mask";
    if (p.fully_masked_row) name += "_fullymasked";
    return name;
});

TEST(Attention, CausalFirstQuerySeesOnlyTheFirstKey) {
    const auto q = random_vector(4 * 3, 1), k = random_vector(4 * 3, 2), v = random_vector(4 * 2, 3);
    AttentionRequest r;
    r.n_seq_q = r.n_seq_k = 4;
    r.d_k = 3;
    r.d_v = 2;
    r.q = q.data();
    r.k = k.data();
    r.v = v.data();
    r.causal = true;
    std::vector<float> out(8), w(16);
    SF_ASSERT_OK(attention(r, out.data(), w.data()));
    EXPECT_FLOAT_EQ(w[0], 1.0f);
    EXPECT_EQ(w[1], 0.0f);
    EXPECT_FLOAT_EQ(out[0], v[0]);
    EXPECT_FLOAT_EQ(out[1], v[1]);
}

TEST(Attention, RejectsBadInputWithAClearMessage) {
    const auto q = random_vector(6, 1);
    AttentionRequest r;
    r.n_seq_q = r.n_seq_k = 2;
    r.d_k = 3;
    r.d_v = 3;
    r.q = r.k = r.v = q.data();
    std::vector<float> out(6);
    r.options.score = ScoreKind::kAdditive;
    Status st = attention(r, out.data(), nullptr);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("additive"), std::string::npos);
    r.options.score = ScoreKind::kScaledDot;
    auto bad = q;
    bad[4] = NAN;
    r.k = bad.data();
    st = attention(r, out.data(), nullptr);
    EXPECT_NE(st.message().find("K holds a non-finite value (nan) at element 4"), std::string::npos) << st.message();
    r.k = q.data();
    r.n_seq_k = 0;
    EXPECT_FALSE(attention(r, out.data(), nullptr).is_ok());
}

TEST(PositionalEncoding, MatchesGoldenAndFormulaWithOddWidth) {
    const Golden g = load_golden("positional.golden.safetensors");
    std::vector<float> pe(7 * 9);
    SF_ASSERT_OK(positional_encoding(7, 9, pe.data()));
    EXPECT_LT(max_abs_diff(pe, g.at("pe")), 1e-6);
    // p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(...)
    EXPECT_NEAR(pe[3 * 9 + 4], std::sin(3.0 / std::pow(10000.0, 4.0 / 9.0)), 1e-6);
    EXPECT_NEAR(pe[3 * 9 + 5], std::cos(3.0 / std::pow(10000.0, 4.0 / 9.0)), 1e-6);
    EXPECT_NEAR(pe[5 * 9 + 8], std::sin(5.0 / std::pow(10000.0, 8.0 / 9.0)), 1e-6);
    EXPECT_FALSE(positional_encoding(0, 4, pe.data()).is_ok());
}

}  // namespace
}  // namespace simdformer::test

namespace simdformer::test {
namespace {

TEST(Ops, LayerNormAndLinearValidateAndCompute) {
    const size_t rows = 3, d = 5;
    const auto x = random_vector(rows * d, 41), g = random_vector(d, 42), b = random_vector(d, 43);
    std::vector<float> y(rows * d), want(rows * d);
    SF_ASSERT_OK(layer_norm(rows, d, x.data(), g.data(), b.data(), 1e-5f, y.data()));
    kernels::ref::layernorm_rows_f32(rows, d, x.data(), d, g.data(), b.data(), 1e-5f, want.data(), d);
    EXPECT_LT(max_abs_diff(y, want), 1e-5);
    auto bad = x;
    bad[7] = INFINITY;
    EXPECT_NE(layer_norm(rows, d, bad.data(), g.data(), b.data(), 1e-5f, y.data()).message().find("element 7"), std::string::npos);
    EXPECT_FALSE(layer_norm(rows, d, x.data(), g.data(), b.data(), 0.0f, y.data()).is_ok());

    const auto w = random_vector(4 * d, 44), bias = random_vector(4, 45);
    auto op = LinearOp::create(w.data(), bias.data(), d, 4);
    SF_ASSERT_OK(op.status());
    std::vector<float> out(rows * 4), ref(rows * 4);
    SF_ASSERT_OK(op.value().forward(rows, x.data(), out.data()));
    kernels::Epilogue ep;
    ep.bias = bias.data();
    kernels::ref::gemm_f32(rows, 4, d, x.data(), d, w.data(), 1, d, ref.data(), 4, ep);
    EXPECT_LT(max_abs_diff(out, ref), 1e-5);
    EXPECT_FALSE(LinearOp::create(w.data(), nullptr, 0, 4).is_ok());
}

}  // namespace
}  // namespace simdformer::test
