// Models against PyTorch: every module kind on vectors written by scripts/fixtures/make_goldens.py, plus
// the properties PyTorch cannot check for us (batch = one by one, KV cache = recomputation,
// allocation-free forward, weights on/off).
#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>
#include <optional>

#include "allocation_count.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kTolerance = 1e-4;  // max abs error against PyTorch

Workspace make_ws(const Model& m, size_t batch, size_t src, size_t tgt, bool record = true) {
    auto ws = m.make_workspace({batch, src, tgt, record});
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    return std::move(ws).value();
}

std::vector<float> output(const Workspace& ws, size_t d) {
    return std::vector<float>(ws.output(), ws.output() + ws.output_rows() * d);
}

std::vector<float> map_values(const AttentionMap& m) {
    return std::vector<float>(m.data, m.data + m.n_batch * m.nhead * m.n_seq_q * m.n_seq_k);
}

TEST(Golden, MultiheadSelfAttentionWithPadding) {
    const Model m = load_case("mha_self");
    const Golden g = load_golden("mha_self.golden.safetensors");
    Workspace ws = make_ws(m, 2, 5, 5);
    const auto pad = g.mask("key_padding");
    ForwardRequest r;
    r.n_batch = 2;
    r.src.n_seq = 5;
    r.src.embeddings = g.at("x").data();
    r.src.key_padding = pad.data();
    r.need_weights = true;
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_LT(max_abs_diff(output(ws, 16), g.at("out")), kTolerance);
    ASSERT_EQ(ws.encoder_attention().size(), 1u);
    EXPECT_LT(max_abs_diff(map_values(ws.encoder_attention()[0]), g.at("weights")), kTolerance);
}

TEST(Golden, MultiheadCrossAttentionF16WithMaskAndPadding) {
    const Model m = load_case("mha_cross_f16");
    const Golden g = load_golden("mha_cross_f16.golden.safetensors");
    Workspace ws = make_ws(m, 2, 3, 6);
    const auto pad = g.mask("key_padding");
    ForwardRequest r;
    r.n_batch = 2;
    r.src.n_seq = 3;
    r.src.embeddings = g.at("query").data();
    r.src.attn_mask = g.at("attn_mask").data();
    r.key = g.at("key").data();
    r.value = g.at("value").data();
    r.n_seq_k = 6;
    r.key_padding_k = pad.data();
    r.need_weights = true;
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_LT(max_abs_diff(output(ws, 16), g.at("out")), kTolerance);
    EXPECT_LT(max_abs_diff(map_values(ws.encoder_attention()[0]), g.at("weights")), kTolerance);
}

void expect_encoder_golden(const std::string& name, size_t batch, size_t n, size_t d, bool causal) {
    const Model m = load_case(name);
    const Golden g = load_golden(name + ".golden.safetensors");
    Workspace ws = make_ws(m, batch, n, 0);
    std::vector<uint8_t> pad;
    if (g.values.count("key_padding")) pad = g.mask("key_padding");
    ForwardRequest r;
    r.n_batch = batch;
    r.src.n_seq = n;
    r.src.embeddings = g.at("x").data();
    r.src.key_padding = pad.empty() ? nullptr : pad.data();
    r.src.causal = causal;
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_LT(max_abs_diff(output(ws, d), g.at("out")), kTolerance) << name;
}

TEST(Golden, EncoderLayerPostNormWithPadding) { expect_encoder_golden("encoder_layer_post", 2, 6, 16, false); }
TEST(Golden, EncoderLayerPreNormGeluCausalBF16) { expect_encoder_golden("encoder_layer_pre_gelu_bf16", 2, 5, 16, true); }
TEST(Golden, EncoderStackWithFinalNormAndPadding) { expect_encoder_golden("encoder", 3, 7, 12, false); }

TEST(Golden, DecoderLayerCausalWithMemoryPadding) {
    const Model m = load_case("decoder_layer");
    const Golden g = load_golden("decoder_layer.golden.safetensors");
    Workspace ws = make_ws(m, 2, 6, 5);
    const auto mpad = g.mask("memory_key_padding");
    ForwardRequest r;
    r.n_batch = 2;
    r.tgt.n_seq = 5;
    r.tgt.embeddings = g.at("tgt").data();
    r.tgt.causal = true;
    r.memory = g.at("memory").data();
    r.n_seq_memory = 6;
    r.memory_key_padding = mpad.data();
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_LT(max_abs_diff(output(ws, 16), g.at("out")), kTolerance);
}

TEST(Golden, TransformerPreNorm) {
    const Model m = load_case("transformer_prenorm");
    const Golden g = load_golden("transformer_prenorm.golden.safetensors");
    Workspace ws = make_ws(m, 2, 6, 4);
    const auto pad = g.mask("src_key_padding");
    ForwardRequest r;
    r.n_batch = 2;
    r.src.n_seq = 6;
    r.src.embeddings = g.at("src").data();
    r.src.key_padding = pad.data();
    r.tgt.n_seq = 4;
    r.tgt.embeddings = g.at("tgt").data();
    r.tgt.causal = true;
    r.need_weights = true;
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_LT(max_abs_diff(output(ws, 12), g.at("out")), kTolerance);
    EXPECT_EQ(ws.encoder_attention().size(), 2u);
    EXPECT_EQ(ws.decoder_cross_attention().size(), 2u);
    const AttentionMap& cross = ws.decoder_cross_attention()[1];
    EXPECT_EQ(cross.n_seq_q, 4u);
    EXPECT_EQ(cross.n_seq_k, 6u);
    // Batch item 1 has 4 source tokens: its padded keys get no cross-attention.
    for (size_t h = 0; h < 2; ++h)
        for (size_t q = 0; q < 4; ++q) EXPECT_EQ(cross.data[((1 * 2 + h) * 4 + q) * 6 + 5], 0.0f);
}

class Seq2Seq : public ::testing::Test {
protected:
    void SetUp() override {
        model = load_case("seq2seq");
        golden = load_golden("seq2seq.golden.safetensors");
        src = golden.tokens("src");
        pad = golden.mask("src_key_padding");
        generated = golden.tokens("generated");
    }
    Model model;
    Golden golden;
    std::vector<int32_t> src, generated;
    std::vector<uint8_t> pad;
};

TEST_F(Seq2Seq, TeacherForcedLogitsMatchPyTorch) {
    const size_t len = generated.size() / 2, steps = len - 1;
    std::vector<int32_t> tgt;
    for (size_t b = 0; b < 2; ++b) tgt.insert(tgt.end(), generated.begin() + b * len, generated.begin() + b * len + steps);
    Workspace ws = make_ws(model, 2, 6, 16);
    ForwardRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.tgt = {steps, nullptr, tgt.data(), nullptr, nullptr, true};
    SF_ASSERT_OK(model.forward(r, ws));
    ASSERT_NE(ws.logits(), nullptr);
    EXPECT_LT(max_abs_diff(ws.logits(), golden.at("logits").data(), 2 * steps * 11), kTolerance);
}

TEST_F(Seq2Seq, GreedyCachedDecodingEqualsFullRecomputation) {
    Workspace ws = make_ws(model, 2, 6, 16);
    GenerateRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.max_length = 8;
    r.need_weights = true;
    SF_ASSERT_OK(model.generate(r, ws));
    const size_t len = ws.generated_length();
    ASSERT_EQ(len * 2, generated.size());
    EXPECT_EQ(std::vector<int32_t>(ws.generated(), ws.generated() + 2 * len), generated);  // PyTorch's tokens
    // Each step's logits equal PyTorch's full recomputation at that position.
    EXPECT_LT(max_abs_diff(ws.logits(), golden.at("logits").data(), 2 * (len - 1) * 11), kTolerance);
    const AttentionMap& self = ws.decoder_self_attention()[0];
    EXPECT_EQ(self.n_seq_q, len - 1);
    EXPECT_EQ(self.n_seq_k, len - 1);
    EXPECT_EQ(self.data[1], 0.0f);  // causal: step 0 cannot see step 1
    EXPECT_FLOAT_EQ(self.data[0], 1.0f);
    const AttentionMap& cross = ws.decoder_cross_attention()[1];
    for (size_t row = 0; row < 2 * 2 * (len - 1); ++row) {
        double s = 0;
        for (size_t j = 0; j < 6; ++j) s += cross.data[row * 6 + j];
        EXPECT_NEAR(s, 1.0, 1e-5);
    }
}

// Every cached step (one query against the cache and the cross keys/values, read in place)
// equals our own teacher-forced recomputation of the whole target so far, <= 1e-5.
TEST_F(Seq2Seq, CachedStepsEqualOurFullRecomputation) {
    Workspace ws = make_ws(model, 2, 6, 16);
    GenerateRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.max_length = 8;
    SF_ASSERT_OK(model.generate(r, ws));
    const size_t len = ws.generated_length(), steps = len - 1, V = 11;
    const std::vector<int32_t> tokens(ws.generated(), ws.generated() + 2 * len);
    const std::vector<float> cached(ws.logits(), ws.logits() + 2 * steps * V);
    std::vector<int32_t> tgt;  // each item's tokens but the last: what the steps consumed
    for (size_t b = 0; b < 2; ++b) tgt.insert(tgt.end(), tokens.begin() + b * len, tokens.begin() + b * len + steps);
    ForwardRequest f;
    f.n_batch = 2;
    f.src = r.src;
    f.tgt = {steps, nullptr, tgt.data(), nullptr, nullptr, true};
    SF_ASSERT_OK(model.forward(f, ws));
    EXPECT_LT(max_abs_diff(cached.data(), ws.logits(), 2 * steps * V), 1e-5);
}

// Steps driven one at a time give generate()'s tokens; a run abandoned after any step leaves the
// next begin unaffected.
TEST_F(Seq2Seq, SteppingEqualsGenerateAndAbandonedRunsLeaveNoTrace) {
    Workspace ws = make_ws(model, 2, 6, 16);
    GenerateRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.max_length = 8;
    SF_ASSERT_OK(model.generate(r, ws));
    const std::vector<int32_t> want(ws.generated(), ws.generated() + 2 * ws.generated_length());
    for (size_t abandon = 1; abandon < 4; ++abandon) {
        SF_ASSERT_OK(model.generate_begin(r, ws));
        for (size_t s = 0; s < abandon; ++s) SF_ASSERT_OK(model.decode_step(ws));
        ws.end_decoding();
        EXPECT_FALSE(model.decode_step(ws).is_ok());
        std::vector<uint8_t> other(pad.size(), 0);  // a different run in between
        GenerateRequest o = r;
        o.src.key_padding = other.data();
        SF_ASSERT_OK(model.generate_begin(o, ws));
        SF_ASSERT_OK(model.decode_step(ws));
        SF_ASSERT_OK(model.generate_begin(r, ws));
        while (!ws.decode_done()) SF_ASSERT_OK(model.decode_step(ws));
        SF_ASSERT_OK(model.generate_finish(ws));
        EXPECT_EQ(std::vector<int32_t>(ws.generated(), ws.generated() + 2 * ws.generated_length()), want);
    }
}

TEST(Properties, BatchOutputEqualsOneByOneBitForBit) {
    const Model m = load_case("encoder");
    const Golden g = load_golden("encoder.golden.safetensors");
    const auto pad = g.mask("key_padding");
    Workspace ws = make_ws(m, 3, 7, 0);
    ForwardRequest r;
    r.n_batch = 3;
    r.src.n_seq = 7;
    r.src.embeddings = g.at("x").data();
    r.src.key_padding = pad.data();
    SF_ASSERT_OK(m.forward(r, ws));
    const std::vector<float> batch = output(ws, 12);
    for (size_t b = 0; b < 3; ++b) {
        ForwardRequest one = r;
        one.n_batch = 1;
        one.src.embeddings = g.at("x").data() + b * 7 * 12;
        one.src.key_padding = pad.data() + b * 7;
        SF_ASSERT_OK(m.forward(one, ws));
        for (size_t i = 0; i < 7 * 12; ++i) ASSERT_EQ(ws.output()[i], batch[b * 7 * 12 + i]) << "item " << b;
    }
}

// The bindings' sizing policy: a workspace kept across calls is sized by the call at hand. It is
// kept while it fits and is at most 4x what the call needs; it grows to the union of the old and
// the new limits only when that costs at most 2x the new call alone.
TEST(Properties, EnsureWorkspaceIsSizedPerCallNotByPastMaxima) {
    const Model m = load_case("encoder");
    const auto bytes_for = [&](WorkspaceLimits l) { return m.make_workspace(l).value().bytes(); };
    std::optional<Workspace> ws;
    SF_ASSERT_OK(m.ensure_workspace(&ws, {2, 4, 0, false}));
    ASSERT_TRUE(ws.has_value());
    EXPECT_EQ(ws->limits().max_batch, 2u);
    SF_ASSERT_OK(m.ensure_workspace(&ws, {1, 7, 0, true}));
    EXPECT_GE(ws->limits().max_src_len, 7u);
    EXPECT_TRUE(ws->limits().record_attention);
    EXPECT_LE(ws->bytes(), 2 * bytes_for({1, 7, 0, true}));
    // A much smaller call gets a workspace of its own size, not the last one's.
    SF_ASSERT_OK(m.ensure_workspace(&ws, {1, 1, 0, false}));
    EXPECT_LE(ws->bytes(), 4 * bytes_for({1, 1, 0, false}));
    // The same call again keeps the same buffers.
    const WorkspaceLimits kept = ws->limits();
    const size_t bytes = ws->bytes();
    SF_ASSERT_OK(m.ensure_workspace(&ws, {1, 1, 0, false}));
    EXPECT_EQ(ws->bytes(), bytes);
    EXPECT_EQ(ws->limits().max_src_len, kept.max_src_len);
    // A request that cannot be met leaves no workspace (the next call makes one).
    EXPECT_EQ(m.ensure_workspace(&ws, {size_t{1} << 30, 7, 0, true}).code(), StatusCode::kOutOfMemory);
    EXPECT_FALSE(ws.has_value());
    SF_ASSERT_OK(m.ensure_workspace(&ws, {1, 3, 0, false}));
    EXPECT_EQ(ws->limits().max_src_len, 3u);
}

// A workspace's buffers are sized by its model's shapes (d_ff, vocabulary, layers): another
// model, even one of the same d_model and heads, must not run on it.
TEST(Properties, AWorkspaceServesOnlyTheModelThatMadeIt) {
    const Model a = load_case("encoder");
    const Model b = load_case("encoder");
    Workspace ws = make_ws(a, 1, 7, 0);
    const Golden g = load_golden("encoder.golden.safetensors");
    ForwardRequest r;
    r.src.n_seq = 7;
    r.src.embeddings = g.at("x").data();
    SF_ASSERT_OK(a.forward(r, ws));
    const Status st = b.forward(r, ws);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("another model"), std::string::npos) << st.message();
}

TEST(Properties, DecodeLimitsRefuseAContextPast32Bits) {
    DecodeRequest r;
    r.n_batch = 1;
    r.n_seq = 5;
    r.max_new_tokens = 7;
    auto ok = workspace_limits(r);
    SF_ASSERT_OK(ok.status());
    EXPECT_EQ(ok.value().max_context, 12u);
    EXPECT_EQ(ok.value().max_src_len, 5u);
    r.max_new_tokens = size_t(std::numeric_limits<uint32_t>::max());
    const auto too_long = workspace_limits(r);
    ASSERT_FALSE(too_long.is_ok());
    EXPECT_NE(too_long.status().message().find("nSeq + maxNewTokens"), std::string::npos);
}

TEST(Properties, RecordingWeightsDoesNotChangeTheOutput) {
    const Model m = load_case("encoder");
    const Golden g = load_golden("encoder.golden.safetensors");
    Workspace ws = make_ws(m, 3, 7, 0);
    ForwardRequest r;
    r.n_batch = 3;
    r.src.n_seq = 7;
    r.src.embeddings = g.at("x").data();
    SF_ASSERT_OK(m.forward(r, ws));
    const auto plain = output(ws, 12);
    EXPECT_EQ(ws.encoder_attention()[0].data, nullptr);
    r.need_weights = true;
    SF_ASSERT_OK(m.forward(r, ws));
    EXPECT_EQ(output(ws, 12), plain);
    EXPECT_NE(ws.encoder_attention()[1].data, nullptr);
}

TEST(Properties, ForwardAndGenerateAllocateNothing) {
    const Model m = load_case("seq2seq");
    const Golden g = load_golden("seq2seq.golden.safetensors");
    const auto src = g.tokens("src");
    const auto pad = g.mask("src_key_padding");
    Workspace ws = make_ws(m, 2, 6, 16);
    GenerateRequest gr;
    gr.n_batch = 2;
    gr.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    gr.max_length = 8;
    gr.need_weights = true;
    ForwardRequest fr;
    fr.n_batch = 2;
    fr.src = gr.src;
    fr.tgt = {3, nullptr, src.data(), nullptr, nullptr, true};
    fr.need_weights = true;
    SF_ASSERT_OK(m.forward(fr, ws));  // warm-up
    const size_t live = Buffer::live_bytes();
    Status a, b;
    const size_t allocations = allocations_during([&] {
        a = m.forward(fr, ws);
        b = m.generate(gr, ws);
    });
    SF_ASSERT_OK(a);
    SF_ASSERT_OK(b);
    EXPECT_EQ(allocations, 0u);
    EXPECT_EQ(Buffer::live_bytes(), live);
}

// MultiHeadAttention wiring for every score/normaliser, against per-head calls of the
// standalone attention op on projections computed here in double precision.
TEST(Properties, MultiheadOptionsMatchPerHeadReference) {
    const size_t d = 12, h = 3, dh = 4, da = 6, n = 5;
    MapWeightReader w;
    const auto in_w = random_vector(3 * d * d, 1), in_b = random_vector(3 * d, 2);
    const auto out_w = random_vector(d * d, 3), out_b = random_vector(d, 4);
    const auto aq = random_vector(h * da * dh, 5), ak = random_vector(h * da * dh, 6), av = random_vector(h * da, 7);
    w.put("in_proj_weight", {3 * d, d}, in_w);
    w.put("in_proj_bias", {3 * d}, in_b);
    w.put("out_proj.weight", {d, d}, out_w);
    w.put("out_proj.bias", {d}, out_b);
    w.put("additive.q_weight", {h, da, dh}, aq);
    w.put("additive.k_weight", {h, da, dh}, ak);
    w.put("additive.v_weight", {h, da}, av);
    ModelConfig c;
    c.kind = TorchModule::kMultiheadAttention;
    c.d_model = d;
    c.nhead = h;
    c.additive_dim = da;
    auto loaded = Model::load(w, c);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    Workspace ws = make_ws(m, 1, n, n);
    const auto x = random_vector(n * d, 8);
    std::vector<uint8_t> pad = {0, 0, 0, 1, 0};
    // Projections: row r of Q/K/V = x_r W_iᵀ + b_i.
    std::vector<float> proj(3 * n * d);
    for (size_t p = 0; p < 3; ++p)
        for (size_t r = 0; r < n; ++r)
            for (size_t o = 0; o < d; ++o) {
                double s = in_b[p * d + o];
                for (size_t i = 0; i < d; ++i) s += double(x[r * d + i]) * in_w[(p * d + o) * d + i];
                proj[(p * n + r) * d + o] = float(s);
            }
    for (auto score : {ScoreKind::kScaledDot, ScoreKind::kDot, ScoreKind::kAdditive}) {
        for (auto norm : {NormalizeKind::kSoftmax, NormalizeKind::kRelu}) {
            std::vector<float> ctx(n * d);
            for (size_t hh = 0; hh < h; ++hh) {
                std::vector<float> qh(n * dh), kh(n * dh), vh(n * dh), oh(n * dh);
                for (size_t r = 0; r < n; ++r)
                    for (size_t c2 = 0; c2 < dh; ++c2) {
                        qh[r * dh + c2] = proj[(0 * n + r) * d + hh * dh + c2];
                        kh[r * dh + c2] = proj[(1 * n + r) * d + hh * dh + c2];
                        vh[r * dh + c2] = proj[(2 * n + r) * d + hh * dh + c2];
                    }
                AttentionRequest ar;
                ar.n_seq_q = ar.n_seq_k = n;
                ar.d_k = ar.d_v = dh;
                ar.q = qh.data();
                ar.k = kh.data();
                ar.v = vh.data();
                ar.options = {score, norm};
                ar.additive_dim = da;
                ar.w_q = aq.data() + hh * da * dh;
                ar.w_k = ak.data() + hh * da * dh;
                ar.w_v = av.data() + hh * da;
                ar.key_padding = pad.data();
                ar.causal = true;
                SF_ASSERT_OK(attention(ar, oh.data(), nullptr));
                for (size_t r = 0; r < n; ++r)
                    for (size_t c2 = 0; c2 < dh; ++c2) ctx[r * d + hh * dh + c2] = oh[r * dh + c2];
            }
            std::vector<float> want(n * d);
            for (size_t r = 0; r < n; ++r)
                for (size_t o = 0; o < d; ++o) {
                    double s = out_b[o];
                    for (size_t i = 0; i < d; ++i) s += double(ctx[r * d + i]) * out_w[o * d + i];
                    want[r * d + o] = float(s);
                }
            ForwardRequest r;
            r.src.n_seq = n;
            r.src.embeddings = x.data();
            r.src.key_padding = pad.data();
            r.src.causal = true;
            r.options = {score, norm};
            SF_ASSERT_OK(m.forward(r, ws));
            EXPECT_LT(max_abs_diff(output(ws, d), want), 1e-4) << int(score) << "/" << int(norm);
        }
    }
}

TEST(Properties, BadRequestsFailCleanlyAndTheModelStaysUsable) {
    const Model m = load_case("encoder");
    const Golden g = load_golden("encoder.golden.safetensors");
    Workspace ws = make_ws(m, 3, 7, 0, /*record=*/false);
    auto x = g.at("x");
    ForwardRequest r;
    r.n_batch = 3;
    r.src.n_seq = 7;
    r.src.embeddings = x.data();
    SF_ASSERT_OK(m.forward(r, ws));
    const auto good = output(ws, 12);

    ForwardRequest bad = r;
    bad.n_batch = 4;
    EXPECT_NE(m.forward(bad, ws).message().find("max_batch"), std::string::npos);
    bad = r;
    bad.src.n_seq = 8;
    EXPECT_NE(m.forward(bad, ws).message().find("exceeds"), std::string::npos);
    bad = r;
    bad.need_weights = true;
    EXPECT_NE(m.forward(bad, ws).message().find("record_attention"), std::string::npos);
    bad = r;
    bad.options.score = ScoreKind::kAdditive;
    EXPECT_NE(m.forward(bad, ws).message().find("additive"), std::string::npos);
    auto nan_x = x;
    nan_x[17] = NAN;
    bad = r;
    bad.src.embeddings = nan_x.data();
    EXPECT_NE(m.forward(bad, ws).message().find("non-finite value (nan) at element 17"), std::string::npos)
        << m.forward(bad, ws).message();
    std::vector<float> mask(49, 0.0f);
    mask[3] = INFINITY;
    bad = r;
    bad.src.attn_mask = mask.data();
    EXPECT_NE(m.forward(bad, ws).message().find("+Infinity"), std::string::npos);
    bad = r;
    bad.src.embeddings = nullptr;
    EXPECT_FALSE(m.forward(bad, ws).is_ok());

    SF_ASSERT_OK(m.forward(r, ws));  // still works, same result
    EXPECT_EQ(output(ws, 12), good);
}

TEST(Properties, TokenModelsRejectOutOfVocabularyIds) {
    const Model m = load_case("seq2seq");
    Workspace ws = make_ws(m, 1, 6, 16);
    std::vector<int32_t> src = {3, 4, 11, 5};
    GenerateRequest r;
    r.src = {4, nullptr, src.data(), nullptr, nullptr, false};
    r.max_length = 4;
    const Status st = m.generate(r, ws);
    EXPECT_NE(st.message().find("token 11 at index 2 is outside the vocabulary [0, 11)"), std::string::npos) << st.message();
    src[2] = -1;
    EXPECT_FALSE(m.generate(r, ws).is_ok());
    src[2] = 6;
    SF_ASSERT_OK(m.generate(r, ws));
    r.max_length = 17;
    EXPECT_FALSE(m.generate(r, ws).is_ok());
}

}  // namespace
}  // namespace simdformer::test

namespace simdformer::test {
namespace {

TEST(Properties, HeadMeanMatchesAveragingPyTorchsPerHeadWeights) {
    const Model m = load_case("mha_self");
    const Golden g = load_golden("mha_self.golden.safetensors");
    Workspace ws = make_ws(m, 2, 5, 5);
    ForwardRequest r;
    r.n_batch = 2;
    r.src.n_seq = 5;
    r.src.embeddings = g.at("x").data();
    r.need_weights = true;
    const auto pad = g.mask("key_padding");
    r.src.key_padding = pad.data();
    SF_ASSERT_OK(m.forward(r, ws));
    std::vector<float> mean(2 * 25), want(2 * 25, 0.0f);
    average_heads(ws.encoder_attention()[0], mean.data());
    const auto& w = g.at("weights");  // [2, 4, 5, 5]
    for (size_t b = 0; b < 2; ++b)
        for (size_t h = 0; h < 4; ++h)
            for (size_t i = 0; i < 25; ++i) want[b * 25 + i] += w[(b * 4 + h) * 25 + i] / 4.0f;
    EXPECT_LT(max_abs_diff(mean, want), kTolerance);
}

// Token encoder with learned positions = the same encoder fed E[token] * sqrt(d) + P[position].
TEST(Properties, LearnedPositionsAddTheTableRowOfEachPosition) {
    const std::vector<uint8_t> bytes = read_file(data_path("encoder_layer_post.safetensors"));
    auto file = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(file.status());
    const size_t d = 16, vocab = 7, max_len = 9, n = 5;
    const auto table = random_vector(vocab * d, 31), positions = random_vector(max_len * d, 32);
    auto reader_with = [&](bool tokens) {
        MapWeightReader w;
        for (const TensorInfo& t : file.value().tensors()) {
            auto b = file.value().read(t);
            w.put(t.name, t.shape, std::vector<float>(b.value().data(), b.value().data() + b.value().size()));
        }
        if (tokens) {
            w.put("embedding.weight", {vocab, d}, table);
            w.put("pos_embedding.weight", {max_len, d}, positions);
        }
        return w;
    };
    auto config = parse_model_config(read_text(data_path("encoder_layer_post.json")));
    ModelConfig vectors = config.value(), tokens = config.value();
    tokens.src_vocab_size = vocab;
    tokens.max_len = vectors.max_len = max_len;
    tokens.positional = PositionalKind::kLearned;
    tokens.scale_embedding = true;
    MapWeightReader rv = reader_with(false), rt = reader_with(true);
    auto mv = Model::load(rv, vectors), mt = Model::load(rt, tokens);
    SF_ASSERT_OK(mv.status());
    SF_ASSERT_OK(mt.status());
    const std::vector<int32_t> ids = {3, 0, 6, 6, 2};
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i)
        for (size_t c = 0; c < d; ++c) x[i * d + c] = table[ids[i] * d + c] * std::sqrt(float(d)) + positions[i * d + c];
    Workspace wv = make_ws(mv.value(), 1, n, 1), wt = make_ws(mt.value(), 1, n, 1);
    ForwardRequest r;
    r.src.n_seq = n;
    r.src.embeddings = x.data();
    SF_ASSERT_OK(mv.value().forward(r, wv));
    r.src.embeddings = nullptr;
    r.src.tokens = ids.data();
    SF_ASSERT_OK(mt.value().forward(r, wt));
    EXPECT_LT(max_abs_diff(output(wt, d), output(wv, d)), 1e-5);
}

}  // namespace
}  // namespace simdformer::test
