// GPT-2 (tests/data/hf/gpt2 and gpt2_legacy, written by scripts/fixtures/make_hf_fixtures.py) against the
// from-spec PyTorch reference in golden.safetensors: hidden states, attentions and LM logits
// <= 1e-4, a left-padded row, the greedy continuation token for token. Then the properties
// PyTorch cannot check for us: every KV-cached step equals a full recomputation of the sequence
// so far (logits <= 1e-5, the step's attention = the last row of the full causal attention), steps
// allocate nothing, and the adapter's config and name checks. (That a left-padded batch decodes
// each prompt as it decodes alone is llama_test's LeftPaddedBatch, over GPT-2 and rotary models.)
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <new>

#include "simdformer/model/sampler.h"
#include "allocation_count.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kTolerance = 1e-4;  // against PyTorch
constexpr double kCacheTolerance = 1e-5;  // KV-cached step against our own full recomputation

std::string hf_path(const std::string& rel) { return data_path("hf/" + rel); }

Result<Model> load_bytes(const std::string& config, const std::vector<uint8_t>& bytes) {
    MemorySource src(bytes.data(), bytes.size());
    return Model::load_checkpoint(config, {{"model.safetensors", &src}}, "");
}

Model load_fixture(const std::string& name) {
    auto m = load_bytes(read_text(hf_path(name + "/config.json")), read_file(hf_path(name + "/model.safetensors")));
    EXPECT_TRUE(m.is_ok()) << m.status().message();
    return std::move(m).value();
}

class Gpt2Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Gpt2Golden, HiddenStatesAttentionsAndLogitsMatchTheReference) {
    const Model m = load_fixture(GetParam());
    const std::string info = m.info_json();
    for (const char* part : {R"("architecture":"gpt2")", R"("causal":true)", R"("has_lm_head":true)", R"("unused_tensors":[])",
                             R"("d_ff":128)", R"("max_positions":40)", R"("eos_token_id":1056)", R"("hidden_act":"gelu_new")"})
        EXPECT_NE(info.find(part), std::string::npos) << part << " not in " << info;
    const Golden g = load_golden("hf/" + GetParam() + "/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1], d = 32, V = 1057;
    const std::vector<int32_t> ids = g.tokens("input_ids"), rows = all_rows(B * n);
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    Workspace ws = workspace(m, B, n, 0, rows.size());
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.need_weights = true;
    r.logits_rows = rows.data();
    r.n_logits_rows = rows.size();
    SF_ASSERT_OK(m.forward_text(r, ws));
    EXPECT_LT(max_abs_diff(ws.output(), g.at("last_hidden_state").data(), B * n * d), kTolerance);
    ASSERT_EQ(ws.encoder_attention().size(), 2u);
    for (size_t l = 0; l < 2; ++l) {
        const std::vector<float>& want = g.at("attentions." + std::to_string(l));
        EXPECT_LT(max_abs_diff(ws.encoder_attention()[l].data, want.data(), want.size()), kTolerance) << "layer " << l;
    }
    ASSERT_EQ(ws.logits_cols(), V);
    EXPECT_LT(max_abs_diff(ws.logits(), g.at("logits").data(), B * n * V), kTolerance);
}

// HF's forward keeps positions arange(n) for a left-padded row, and its padded queries see the
// causal mask's finfo.min plus the padding's (-inf where both apply): every row, pads included.
TEST_P(Gpt2Golden, LeftPaddedRowFollowsHuggingFacesForward) {
    const Model m = load_fixture(GetParam());
    const Golden g = load_golden("hf/" + GetParam() + "/golden.safetensors");
    const size_t n = g.shapes.at("left_padded.input_ids")[1], d = 32, V = 1057;
    const std::vector<int32_t> ids = g.tokens("left_padded.input_ids"), rows = all_rows(n);
    const std::vector<uint8_t> mask = g.mask("left_padded.attention_mask");
    ASSERT_EQ(mask[0], 0);  // it is padded on the left
    Workspace ws = workspace(m, 1, n, 0, n);
    TextRequest r;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.logits_rows = rows.data();
    r.n_logits_rows = n;
    SF_ASSERT_OK(m.forward_text(r, ws));
    EXPECT_LT(max_abs_diff(ws.output(), g.at("left_padded.last_hidden_state").data(), n * d), kTolerance);
    EXPECT_LT(max_abs_diff(ws.logits(), g.at("left_padded.logits").data(), n * V), kTolerance);
}

// Greedy decoding with the cache continues the prompt with the reference's tokens, and each
// step's logits are the reference's full recomputation at that step.
TEST_P(Gpt2Golden, GreedyContinuationEqualsTheReferenceTokenForToken) {
    const Model m = load_fixture(GetParam());
    const Golden g = load_golden("hf/" + GetParam() + "/golden.safetensors");
    const std::vector<int32_t> prompt = g.tokens("generate.prompt_ids"), want = g.tokens("generate.new_ids");
    const size_t V = 1057;
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + want.size());
    DecodeRequest r;
    r.n_seq = prompt.size();
    r.tokens = prompt.data();
    r.max_new_tokens = want.size();
    SF_ASSERT_OK(m.decode_begin(r, ws));
    std::vector<int32_t> got;
    while (!ws.decode_done()) {
        SF_ASSERT_OK(m.decode_step(ws));
        got.push_back(ws.step_tokens()[0]);
        const size_t s = got.size() - 1;
        EXPECT_LT(max_abs_diff(ws.logits(), g.at("generate.step_logits").data() + s * V, V), kTolerance) << "step " << s;
    }
    EXPECT_EQ(got, want);
    EXPECT_EQ(ws.decode_steps(), want.size());
    EXPECT_FALSE(m.decode_step(ws).is_ok());  // the budget is used
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Gpt2Golden, ::testing::Values("gpt2", "gpt2_legacy"));

// Logits of the last position and every layer's attention row of it, by a full forward pass.
struct Recomputed {
    std::vector<float> logits;                 // [V]
    std::vector<std::vector<float>> attention;  // [layer][h * n] last query row of every head
};

Recomputed recompute(const Model& m, const std::vector<int32_t>& ids) {
    const size_t n = ids.size(), V = 1057, h = 4;
    Workspace ws = workspace(m, 1, n, 0, 1);
    const std::vector<int32_t> last = {int32_t(n - 1)};
    TextRequest r;
    r.n_seq = n;
    r.tokens = ids.data();
    r.need_weights = true;
    r.logits_rows = last.data();
    r.n_logits_rows = 1;
    const Status st = m.forward_text(r, ws);
    EXPECT_TRUE(st.is_ok()) << st.message();
    Recomputed out;
    out.logits.assign(ws.logits(), ws.logits() + V);
    for (const AttentionMap& map : ws.encoder_attention()) {
        std::vector<float> rows;
        for (size_t head = 0; head < h; ++head) {
            const float* row = map.data + (head * n + n - 1) * n;
            rows.insert(rows.end(), row, row + n);
        }
        out.attention.push_back(rows);
    }
    return out;
}

TEST(Gpt2Decoding, EveryCachedStepEqualsAFullRecomputation) {
    const Model m = load_fixture("gpt2");
    const std::vector<int32_t> prompt = {51, 256, 851, 579, 402, 969, 454};
    const size_t steps = 12, V = 1057, h = 4;
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + steps);
    DecodeRequest r;
    r.n_seq = prompt.size();
    r.tokens = prompt.data();
    r.max_new_tokens = steps;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    std::vector<int32_t> ids = prompt;
    for (size_t s = 0; s < steps; ++s) {
        SF_ASSERT_OK(m.decode_step(ws));
        const Recomputed full = recompute(m, ids);  // the sequence the step consumed the last token of
        EXPECT_LT(max_abs_diff(ws.logits(), full.logits.data(), V), kCacheTolerance) << "step " << s;
        EXPECT_EQ(size_t(argmax(full.logits.data(), V)), size_t(ws.step_tokens()[0])) << "step " << s;
        ASSERT_EQ(ws.step_attention().size(), 2u);
        for (size_t l = 0; l < 2; ++l) {
            const AttentionMap& a = ws.step_attention()[l];
            ASSERT_EQ(a.n_seq_q, 1u);
            ASSERT_EQ(a.n_seq_k, ids.size());
            EXPECT_LT(max_abs_diff(a.data, full.attention[l].data(), h * ids.size()), kCacheTolerance) << "step " << s;
        }
        ids.push_back(ws.step_tokens()[0]);
    }
}

TEST(Gpt2Decoding, StopTokensEndItemsWhichThenProduceThePadToken) {
    const Model m = load_fixture("gpt2");
    const Golden g = load_golden("hf/gpt2/golden.safetensors");
    const std::vector<int32_t> prompt = g.tokens("generate.prompt_ids"), want = g.tokens("generate.new_ids");
    // Stop at the reference's third token: two items (the same prompt twice) end together.
    std::vector<int32_t> tokens = prompt;
    tokens.insert(tokens.end(), prompt.begin(), prompt.end());
    const int32_t stop[] = {want[2]};
    Workspace ws = workspace(m, 2, prompt.size(), prompt.size() + 8);
    DecodeRequest r;
    r.n_batch = 2;
    r.n_seq = prompt.size();
    r.tokens = tokens.data();
    r.max_new_tokens = 8;
    r.stop_tokens = stop;
    r.n_stop_tokens = 1;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    for (size_t s = 0; s < 3; ++s) {
        ASSERT_FALSE(ws.decode_done());
        SF_ASSERT_OK(m.decode_step(ws));
        EXPECT_EQ(ws.step_tokens()[0], want[s]);
        EXPECT_EQ(ws.step_tokens()[1], want[s]);
    }
    EXPECT_TRUE(ws.decode_done());
    EXPECT_EQ(ws.step_finished()[0], 1);
    EXPECT_EQ(ws.decode_steps(), 3u);

    // With a budget of 5 and a stop only item 1 can hit early, item 1 then produces the pad.
    std::vector<int32_t> two = prompt;
    two.insert(two.end(), prompt.begin(), prompt.end());
    std::vector<uint8_t> mask(2 * prompt.size(), 1);
    two[prompt.size()] = 1056;  // item 1: its first token is padding, the rest the same prompt
    mask[prompt.size()] = 0;
    r.tokens = two.data();
    r.attention_mask = mask.data();
    r.max_new_tokens = 5;
    r.pad_token = 7;
    const int32_t stop0[] = {want[0]};
    r.stop_tokens = stop0;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    SF_ASSERT_OK(m.decode_step(ws));
    EXPECT_EQ(ws.step_tokens()[0], want[0]);  // item 0 stops at once
    EXPECT_EQ(ws.step_finished()[0], 1);
    size_t steps = 1;
    while (!ws.decode_done()) {
        SF_ASSERT_OK(m.decode_step(ws));
        EXPECT_EQ(ws.step_tokens()[0], 7);  // the pad token from now on
        ++steps;
    }
    EXPECT_LE(steps, 5u);
}

// A model with many eos ids (generation_config.json lists them): 65 and up to kMaxStopTokens
// (1024) stop tokens are held, one more is refused by name.
TEST(Gpt2Decoding, ManyStopTokensAreHeld) {
    const Model m = load_fixture("gpt2");
    const Golden g = load_golden("hf/gpt2/golden.safetensors");
    const std::vector<int32_t> prompt = g.tokens("generate.prompt_ids"), want = g.tokens("generate.new_ids");
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + 8);
    auto run = [&](size_t n_stop) {
        // Ids the reference never produces, then its third token last: the run ends there.
        std::vector<int32_t> stop;
        for (int32_t id = 0; stop.size() + 1 < n_stop; ++id)
            if (std::find(want.begin(), want.end(), id) == want.end()) stop.push_back(id);
        stop.push_back(want[2]);
        DecodeRequest r;
        r.n_seq = prompt.size();
        r.tokens = prompt.data();
        r.max_new_tokens = 8;
        r.stop_tokens = stop.data();
        r.n_stop_tokens = stop.size();
        SF_RETURN_IF_ERROR(m.decode_begin(r, ws));
        size_t steps = 0;
        while (!ws.decode_done()) {
            SF_RETURN_IF_ERROR(m.decode_step(ws));
            ++steps;
        }
        EXPECT_EQ(steps, 3u) << n_stop << " stop tokens";
        return Status::ok();
    };
    SF_EXPECT_OK(run(65));
    SF_EXPECT_OK(run(1024));
    const Status st = run(1025);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("n_stop_tokens=1025 exceeds 1024"), std::string::npos) << st.message();
}

// Activations that overflow make NaN logits (the loader refuses NaN weights, not finite ones:
// ln_f's gains of 3e38 make its output +-inf, and the LM head's sums inf - inf): the step is an
// error saying so, not token 0 (the argmax of NaN) on every step; greedy and sampling alike.
TEST(Gpt2Decoding, NanLogitsEndTheStepWithAnError) {
    const Golden weights = load_golden("hf/gpt2/model.safetensors");
    std::vector<float> ln_f(weights.at("transformer.ln_f.weight").size(), 3e38f);
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> tensors;
    for (const auto& [name, data] : weights.values)
        tensors.push_back({name, {weights.shapes.at(name), name == "transformer.ln_f.weight" ? ln_f.data() : data.data()}});
    auto loaded = load_bytes(read_text(hf_path("gpt2/config.json")), write_safetensors(tensors));
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const std::vector<int32_t> prompt = {51, 256, 851};
    Workspace ws = workspace(m, 1, 3, 3 + 4);
    for (float temperature : {0.0f, 1.0f}) {
        DecodeRequest r;
        r.n_seq = 3;
        r.tokens = prompt.data();
        r.max_new_tokens = 4;
        r.sampler.temperature = temperature;
        SF_ASSERT_OK(m.decode_begin(r, ws));
        const Status st = m.decode_step(ws);
        EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << "temperature " << temperature;
        EXPECT_NE(st.message().find("NaN"), std::string::npos) << st.message();
        EXPECT_TRUE(ws.decode_done());  // no further step reads the same numbers
        EXPECT_FALSE(m.decode_step(ws).is_ok());
    }
}

TEST(Gpt2Decoding, SamplingRepeatsForASeedAndDiffersAcrossSeeds) {
    const Model m = load_fixture("gpt2");
    const std::vector<int32_t> prompt = {51, 256, 851};
    Workspace ws = workspace(m, 1, 3, 3 + 16);
    auto run = [&](SamplerOptions o) {
        DecodeRequest r;
        r.n_seq = 3;
        r.tokens = prompt.data();
        r.max_new_tokens = 16;
        r.sampler = o;
        std::vector<int32_t> out;
        EXPECT_TRUE(m.decode_begin(r, ws).is_ok());
        while (!ws.decode_done()) {
            EXPECT_TRUE(m.decode_step(ws).is_ok());
            out.push_back(ws.step_tokens()[0]);
        }
        return out;
    };
    SamplerOptions o;
    o.temperature = 1.5f;
    o.top_k = 50;
    o.top_p = 0.95f;
    o.seed = 1234;
    const std::vector<int32_t> a = run(o);
    EXPECT_EQ(run(o), a);
    o.seed = 1235;
    EXPECT_NE(run(o), a);
    o.temperature = 0.0f;  // greedy ignores the seed
    const std::vector<int32_t> greedy = run(o);
    o.seed = 99;
    EXPECT_EQ(run(o), greedy);
}

TEST(Gpt2Decoding, StepsAllocateNothing) {
    const Model m = load_fixture("gpt2");
    const std::vector<int32_t> prompt = {51, 256, 851, 579};
    Workspace ws = workspace(m, 1, 4, 4 + 8);
    DecodeRequest r;
    r.n_seq = 4;
    r.tokens = prompt.data();
    r.max_new_tokens = 8;
    r.sampler.temperature = 0.8f;
    r.sampler.top_p = 0.9f;
    const size_t live = Buffer::live_bytes();
    Status st;
    const size_t allocations = allocations_during([&] {
        st = m.decode_begin(r, ws);
        while (st.is_ok() && !ws.decode_done()) st = m.decode_step(ws);
    });
    SF_ASSERT_OK(st);
    EXPECT_EQ(allocations, 0u);
    EXPECT_EQ(Buffer::live_bytes(), live);
}

TEST(Gpt2Decoding, BadRequestsNameTheProblem) {
    const Model m = load_fixture("gpt2");
    const std::vector<int32_t> ids = {51, 256, 851, 2000};
    const std::vector<uint8_t> right_padded = {1, 1, 1, 0};
    Workspace ws = workspace(m, 1, 4, 10);
    auto begin = [&](auto change) {
        DecodeRequest r;
        r.n_seq = 3;
        r.tokens = ids.data();
        r.max_new_tokens = 4;
        change(r);
        return m.decode_begin(r, ws);
    };
    auto expect = [](const Status& st, const std::string& part) {
        EXPECT_FALSE(st.is_ok());
        EXPECT_NE(st.message().find(part), std::string::npos) << part << " not in: " << st.message();
    };
    expect(begin([](DecodeRequest& r) { r.n_seq = 4; }), "token id 2000 at index 3");
    const std::vector<int32_t> valid = {51, 256, 851, 1056};
    expect(begin([&](DecodeRequest& r) {
               r.n_seq = 4;
               r.tokens = valid.data();
               r.attention_mask = right_padded.data();
           }),
           "pad prompts on the left");
    expect(begin([](DecodeRequest& r) { r.max_new_tokens = 8; }), "max_context=10");
    expect(begin([](DecodeRequest& r) { r.max_new_tokens = 38; }), "40 positions");
    expect(begin([](DecodeRequest& r) { r.max_new_tokens = 0; }), "max_new_tokens");
    expect(begin([](DecodeRequest& r) { r.sampler.temperature = -1.0f; }), "temperature");
    expect(begin([](DecodeRequest& r) { r.sampler.top_p = -0.5f; }), "top_p");
    expect(begin([](DecodeRequest& r) { r.sampler.top_p = 1.5f; }), "top_p");
    expect(m.decode_step(ws), "no decode_begin");
    Workspace no_cache = workspace(m, 1, 4, 0);
    DecodeRequest r;
    r.n_seq = 3;
    r.tokens = ids.data();
    r.max_new_tokens = 2;
    expect(m.decode_begin(r, no_cache), "max_context=0");
    // HF's warpers: top_p 0 keeps the best token, a top_k above the vocabulary keeps them all.
    SF_EXPECT_OK(begin([](DecodeRequest& r) { r.sampler.temperature = 1.0f; r.sampler.top_p = 0.0f; }));
    SF_EXPECT_OK(begin([](DecodeRequest& r) { r.sampler.temperature = 1.0f; r.sampler.top_k = 5000; }));
}

// ---- the adapter: names, prefixes, buffers, configs ------------------------------------------

TEST(Gpt2Adapter, ConfigKeysAreCheckedAndLegacyOnesAccepted) {
    const std::string config = read_text(hf_path("gpt2/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("gpt2/model.safetensors"));
    auto with = [&](const std::string& from, const std::string& to) {
        std::string c = config;
        const size_t at = c.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        c.replace(at, from.size(), to);
        return load_bytes(c, bytes).status();
    };
    SF_ASSERT_OK(with("\"n_inner\": null", "\"n_inner\": 128"));
    EXPECT_EQ(with("\"n_inner\": null", "\"n_inner\": 64").code(), StatusCode::kShapeMismatch);
    SF_ASSERT_OK(with("\"n_inner\": null,", ""));
    SF_ASSERT_OK(with("\"use_cache\": true", "\"use_cache\": true, \"n_ctx\": 40, \"task_specific_params\": {}"));
    SF_ASSERT_OK(with("\"model_type\": \"gpt2\",", ""));  // architectures: GPT2LMHeadModel decides
    EXPECT_EQ(with("\"scale_attn_by_inverse_layer_idx\": false", "\"scale_attn_by_inverse_layer_idx\": true").code(),
              StatusCode::kUnsupported);
    // Every ACT2FN name without weights of its own loads; prelu (a trained slope) is refused.
    SF_ASSERT_OK(with("\"activation_function\": \"gelu_new\"", "\"activation_function\": \"quick_gelu\""));
    EXPECT_EQ(with("\"activation_function\": \"gelu_new\"", "\"activation_function\": \"prelu\"").code(),
              StatusCode::kUnsupported);
    EXPECT_EQ(with("\"n_head\": 4", "\"n_head\": 5").code(), StatusCode::kInvalidArgument);
    // Untied: lm_head.weight becomes required.
    // GPT-2's task heads are not run here: refused at load, never loaded as the LM (the
    // fixture's tensors would load, its head class unread).
    for (const char* head : {"GPT2ForSequenceClassification", "GPT2ForTokenClassification", "GPT2ForQuestionAnswering"}) {
        const Status st = with("\"GPT2LMHeadModel\"", std::string("\"") + head + "\"");
        EXPECT_EQ(st.code(), StatusCode::kUnsupported) << head << ": " << st.message();
        EXPECT_NE(st.message().find(head), std::string::npos) << st.message();
        EXPECT_NE(st.message().find("not supported"), std::string::npos) << st.message();
    }
    const Status untied = with("\"use_cache\": true", "\"use_cache\": true, \"tie_word_embeddings\": false");
    EXPECT_NE(untied.message().find("lm_head.weight"), std::string::npos) << untied.message();
    // null is None, which HF reads as false: tie_weights()'s getattr(config, "tie_word_embeddings",
    // True) gives the None, so nothing is tied; the two unsupported features are off.
    const Status untied_by_null = with("\"use_cache\": true", "\"use_cache\": true, \"tie_word_embeddings\": null");
    EXPECT_EQ(untied_by_null.code(), untied.code()) << untied_by_null.message();
    EXPECT_NE(untied_by_null.message().find("lm_head.weight"), std::string::npos) << untied_by_null.message();
    SF_ASSERT_OK(with("\"scale_attn_by_inverse_layer_idx\": false", "\"scale_attn_by_inverse_layer_idx\": null"));
    SF_ASSERT_OK(with("\"use_cache\": true", "\"use_cache\": true, \"add_cross_attention\": null"));
}

// Without scaling (scale_attn_weights: false) scores are plain q·k: the same model gives the
// same outputs as one whose q projection is scaled by sqrt(d_head) instead. null is unscaled too
// (GPT2Attention's `if self.scale_attn_weights` reads None as false).
TEST(Gpt2Adapter, UnscaledAttentionIsPlainDotProducts) {
    std::string config = read_text(hf_path("gpt2/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("gpt2/model.safetensors"));
    auto file = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(file.status());
    std::vector<std::pair<std::string, std::pair<Shape, std::vector<float>>>> tensors;
    for (const TensorInfo& t : file.value().tensors()) {
        auto b = file.value().read(t);
        std::vector<float> v(b.value().data(), b.value().data() + b.value().size());
        if (t.name.find("attn.c_attn.") != std::string::npos) {
            // Scale the q part (the first 32 outputs) by 1/sqrt(8) in the weight [32, 96] and bias [96].
            const size_t cols = t.shape.back();
            for (size_t i = 0; i < v.size(); ++i)
                if (i % cols < 32) v[i] /= std::sqrt(8.0f);
        }
        tensors.push_back({t.name, {t.shape, v}});
    }
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> list;
    for (auto& [name, t] : tensors) list.push_back({name, {t.first, t.second.data()}});
    const std::vector<uint8_t> scaled_q = write_safetensors(list);
    const size_t at = config.find("\"scale_attn_weights\": true");
    ASSERT_NE(at, std::string::npos);
    auto a = load_bytes(config, bytes);
    SF_ASSERT_OK(a.status());
    const std::vector<int32_t> ids = {51, 256, 851, 579, 402};
    auto run = [&](const Model& m) {
        Workspace ws = workspace(m, 1, 5);
        TextRequest r;
        r.n_seq = 5;
        r.tokens = ids.data();
        EXPECT_TRUE(m.forward_text(r, ws).is_ok());
        return std::vector<float>(ws.output(), ws.output() + 5 * 32);
    };
    for (const char* off : {"false", "null"}) {
        std::string unscaled = config;
        unscaled.replace(at, 26, std::string("\"scale_attn_weights\": ") + off);
        auto b = load_bytes(unscaled, scaled_q);
        SF_ASSERT_OK(b.status());
        EXPECT_LT(max_abs_diff(run(a.value()), run(b.value())), 1e-5) << off;
    }
}

// ---- the sampler: top-k and top-p keep what Hugging Face's warpers keep ----------------------

// The tokens HF's TemperatureLogitsWarper, TopKLogitsWarper and TopPLogitsWarper leave, by
// their definitions: sort, threshold, cumulative sums (double precision).
std::vector<int32_t> kept_by_definition(const std::vector<float>& logits, float temperature, size_t top_k, float top_p) {
    const size_t V = logits.size();
    std::vector<double> s(V);
    for (size_t i = 0; i < V; ++i) s[i] = double(logits[i] / temperature);
    std::vector<bool> keep(V, true);
    if (top_k > 0 && top_k < V) {
        std::vector<double> sorted = s;
        std::sort(sorted.begin(), sorted.end(), std::greater<double>());
        for (size_t i = 0; i < V; ++i) keep[i] = s[i] >= sorted[top_k - 1];
    }
    if (top_p < 1.0f) {
        std::vector<size_t> asc;
        for (size_t i = 0; i < V; ++i)
            if (keep[i]) asc.push_back(i);
        // Ascending; equal scores in reverse id order (the sampler ranks ties by id, best first).
        std::sort(asc.begin(), asc.end(), [&](size_t a, size_t b) { return s[a] < s[b] || (s[a] == s[b] && a > b); });
        double max = s[asc.back()], total = 0;
        for (size_t i : asc) total += std::exp(s[i] - max);
        double cumulative = 0;
        for (size_t k = 0; k + 1 < asc.size(); ++k) {  // the best is always kept
            cumulative += std::exp(s[asc[k]] - max) / total;
            if (cumulative <= 1.0 - double(top_p)) keep[asc[k]] = false;
        }
    }
    std::vector<int32_t> out;
    for (size_t i = 0; i < V; ++i)
        if (keep[i]) out.push_back(int32_t(i));
    return out;
}

TEST(Sampler, TopKAndTopPKeepWhatTheirDefinitionsKeep) {
    for (size_t V : {size_t(1), size_t(7), size_t(100), size_t(3000)})
        for (uint32_t seed : {1u, 2u, 3u}) {
            std::vector<float> logits = random_vector(V, seed, -4.0f, 4.0f);
            if (V > 10) logits[3] = logits[5] = logits[7];  // ties
            for (float temperature : {0.5f, 1.0f, 2.0f})
                for (size_t top_k : {size_t(0), size_t(1), size_t(5), V})
                    for (float top_p : {1.0f, 0.9f, 0.5f, 0.05f}) {
                        SamplerOptions o;
                        o.temperature = temperature;
                        o.top_k = top_k;
                        o.top_p = top_p;
                        Sampler sampler(o);
                        std::vector<float> probs(V);
                        std::vector<int32_t> order(V);
                        const size_t m = sampler.candidates(logits.data(), V, probs.data(), order.data());
                        std::vector<int32_t> got(order.begin(), order.begin() + m);
                        for (size_t i = 1; i < m; ++i) EXPECT_GE(probs[got[i - 1]], probs[got[i]]);  // best first
                        std::sort(got.begin(), got.end());
                        EXPECT_EQ(got, kept_by_definition(logits, temperature, top_k, top_p))
                            << "V=" << V << " T=" << temperature << " k=" << top_k << " p=" << top_p;
                    }
        }
}

TEST(Sampler, DrawsFollowTheKeptProbabilities) {
    // Three tokens with probabilities 0.5, 0.3, 0.2 (and one that top-p removes): counts of
    // 20,000 draws within 2 % of them, and the same seed gives the same draws.
    const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.2f), std::log(1e-4f)};
    SamplerOptions o;
    o.temperature = 1.0f;
    o.top_p = 0.999f;
    o.seed = 7;
    Sampler a(o), b(o);
    std::vector<float> probs(4);
    std::vector<int32_t> order(4);
    size_t counts[4] = {};
    for (int i = 0; i < 20000; ++i) {
        const int32_t t = a.sample(logits.data(), 4, probs.data(), order.data());
        ASSERT_EQ(t, b.sample(logits.data(), 4, probs.data(), order.data()));
        ++counts[t];
    }
    EXPECT_NEAR(counts[0] / 20000.0, 0.5 / 0.9999, 0.02);
    EXPECT_NEAR(counts[1] / 20000.0, 0.3 / 0.9999, 0.02);
    EXPECT_NEAR(counts[2] / 20000.0, 0.2 / 0.9999, 0.02);
    EXPECT_EQ(counts[3], 0u);
}

// logits / temperature overflowing (a tiny temperature, or +inf logits) is the limit of
// temperature -> 0 over the best logits: draws among the tokens tied at the best, never another
// (before, inf - inf made every probability NaN and the draw took the worst token).
TEST(Sampler, OverflowingScoresDrawAmongTheBestLogits) {
    struct Case {
        std::vector<float> logits;
        float temperature;
        std::vector<int32_t> best;
    };
    const Case cases[] = {
        {{1.0f, 5.0f, 5.0f, -3.0f}, 1e-38f, {1, 2}},           // 5 / 1e-38 > FLT_MAX
        {{-10.0f, -20.0f, -10.0f, -90.0f}, 1e-38f, {0, 2}},    // every score -inf
        {{0.0f, INFINITY, 2.0f, INFINITY}, 1.0f, {1, 3}},      // +inf logits
        {{40.0f, 39.999996f, -INFINITY, 1.0f}, 1e-37f, {0}},   // 4e38 overflows; 1 ulp below the best is out
    };
    for (const Case& c : cases) {
        const size_t V = c.logits.size();
        SamplerOptions o;
        o.temperature = c.temperature;
        o.seed = 11;
        Sampler sampler(o);
        std::vector<float> probs(V);
        std::vector<int32_t> order(V);
        std::vector<size_t> counts(V);
        for (int i = 0; i < 2000; ++i) ++counts[size_t(sampler.sample(c.logits.data(), V, probs.data(), order.data()))];
        for (size_t t = 0; t < V; ++t) {
            const bool best = std::find(c.best.begin(), c.best.end(), int32_t(t)) != c.best.end();
            if (best) EXPECT_NEAR(counts[t] / 2000.0, 1.0 / c.best.size(), 0.05) << "token " << t << " T=" << c.temperature;
            else EXPECT_EQ(counts[t], 0u) << "token " << t << " T=" << c.temperature;
        }
    }
}

// HF's TopPLogitsWarper with top_p 0 removes every token but min_tokens_to_keep = 1: the best.
TEST(Sampler, TopPZeroKeepsTheBestToken) {
    const std::vector<float> logits = {0.5f, 2.0f, 1.9f, -1.0f};
    SamplerOptions o;
    o.temperature = 1.0f;
    o.top_p = 0.0f;
    Sampler sampler(o);
    std::vector<float> probs(4);
    std::vector<int32_t> order(4);
    ASSERT_EQ(sampler.candidates(logits.data(), 4, probs.data(), order.data()), 1u);
    EXPECT_EQ(order[0], 1);
    SF_EXPECT_OK(check_sampler(o, 4));
    o.top_k = 10;  // more than the vocabulary: every token (HF takes min(top_k, vocab))
    o.top_p = 1.0f;
    SF_EXPECT_OK(check_sampler(o, 4));
    EXPECT_EQ(Sampler(o).candidates(logits.data(), 4, probs.data(), order.data()), 4u);
}

TEST(Sampler, SplitMix64MatchesItsPublishedOutput) {
    // The first outputs for seed 0 (Vigna's splitmix64.c reference implementation).
    SplitMix64 r(0);
    EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
    EXPECT_EQ(r.next(), 0x06C45D188009454Full);
}

}  // namespace
}  // namespace simdformer::test
