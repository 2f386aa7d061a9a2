// Llama, Qwen2 and Mistral (tests/data/hf/{llama_*,qwen2,mistral_window}, written by
// scripts/fixtures/make_llama_fixtures.py) against the from-spec PyTorch reference
// (scripts/reference/hf_llama.py): hidden states, attentions and LM logits <= 1e-4 for grouped-query
// and multi-query attention, an explicit head_dim wider than hidden_size, tied and untied heads,
// linear / dynamic / llama3 rope scaling, Qwen2's biases, Mistral's sliding window, BF16 / F16 on
// disk and shards; greedy continuations token for token (the dynamic case past
// max_position_embeddings, as HF's cached generate computes it). Then the properties PyTorch
// cannot check for us: every cached step equals a full recomputation, a left-padded batch decodes
// each prompt as alone (GPT-2's fixture too), the cache holds only the key/value heads, int8
// weights, and the config errors.
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "allocation_count.h"
#include "test_util.h"
#include "simdformer/io/json_text.h"

namespace simdformer::test {
namespace {

constexpr double kTolerance = 1e-4;       // against PyTorch
constexpr double kCacheTolerance = 1e-5;  // a cached step against our own full recomputation
constexpr size_t kVocab = 1057;

std::string hf_path(const std::string& rel) { return data_path("hf/" + rel); }

struct Case {
    std::string name;
    size_t d_model;
    bool sharded = false;
    bool cache_equals_recomputation = true;  // false with dynamic rope scaling (HF's cache keeps old keys)
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

Result<Model> load_case(const Case& c, const LoadOptions& options = {}) {
    const std::vector<std::string> files = c.sharded ? std::vector<std::string>{"model-00001-of-00002.safetensors",
                                                                                "model-00002-of-00002.safetensors"}
                                                     : std::vector<std::string>{"model.safetensors"};
    CheckpointFiles f = open_checkpoint_files("hf/" + c.name, files, c.sharded);
    return Model::load_checkpoint(read_text(hf_path(c.name + "/config.json")), f.shards, f.index, options);
}

// Greedy decoding of `prompt` (one item), the steps' tokens and logits [steps, V].
std::pair<std::vector<int32_t>, std::vector<float>> greedy(const Model& m, const std::vector<int32_t>& prompt,
                                                           size_t steps) {
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + steps);
    DecodeRequest r;
    r.n_seq = prompt.size();
    r.tokens = prompt.data();
    r.max_new_tokens = steps;
    std::pair<std::vector<int32_t>, std::vector<float>> out;
    const Status begun = m.decode_begin(r, ws);
    EXPECT_TRUE(begun.is_ok()) << begun.message();
    while (begun.is_ok() && !ws.decode_done()) {
        const Status st = m.decode_step(ws);
        EXPECT_TRUE(st.is_ok()) << st.message();
        if (!st.is_ok()) break;
        out.first.push_back(ws.step_tokens()[0]);
        out.second.insert(out.second.end(), ws.logits(), ws.logits() + kVocab);
    }
    return out;
}

const Case kCases[] = {
    {"llama_gqa", 36},
    {"llama_mqa_llama3_bf16", 32},
    {"llama_linear_bias_f16_sharded", 32, true},
    {"llama_dynamic", 32, false, false},
    {"qwen2", 32},
    {"mistral_window", 32},
};

class RotaryGolden : public ::testing::TestWithParam<Case> {};

TEST_P(RotaryGolden, HiddenStatesAttentionsAndLogitsMatchTheReference) {
    const Case& c = GetParam();
    auto loaded = load_case(c);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const nlohmann::json info = nlohmann::json::parse(m.info_json());
    EXPECT_EQ(info["unused_tensors"], nlohmann::json::array()) << json_text(info);
    EXPECT_EQ(info["causal"], true);
    EXPECT_EQ(info["has_lm_head"], true);
    EXPECT_EQ(info["norm"], "rms_norm");
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1], d = c.d_model;
    const size_t h = info["n_heads"];
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
        ASSERT_EQ(want.size(), B * h * n * n);  // one map per query head
        EXPECT_LT(max_abs_diff(ws.encoder_attention()[l].data, want.data(), want.size()), kTolerance) << "layer " << l;
    }
    ASSERT_EQ(ws.logits_cols(), kVocab);
    EXPECT_LT(max_abs_diff(ws.logits(), g.at("logits").data(), B * n * kVocab), kTolerance);
}

// HF's forward keeps positions arange(n) for a left-padded row (every row compared, pads too:
// their queries see only masked keys, which HF's eager mask turns into uniform weights).
TEST_P(RotaryGolden, LeftPaddedRowFollowsHuggingFacesForward) {
    const Case& c = GetParam();
    auto loaded = load_case(c);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const size_t n = g.shapes.at("left_padded.input_ids")[1];
    const std::vector<int32_t> ids = g.tokens("left_padded.input_ids"), rows = all_rows(n);
    const std::vector<uint8_t> mask = g.mask("left_padded.attention_mask");
    ASSERT_EQ(mask[0], 0);
    size_t first_real = 0;
    while (!mask[first_real]) ++first_real;
    Workspace ws = workspace(m, 1, n, 0, n);
    TextRequest r;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.logits_rows = rows.data();
    r.n_logits_rows = n;
    SF_ASSERT_OK(m.forward_text(r, ws));
    const size_t d = c.d_model;
    EXPECT_LT(max_abs_diff(ws.output() + first_real * d, g.at("left_padded.last_hidden_state").data() + first_real * d,
                           (n - first_real) * d),
              kTolerance);
    EXPECT_LT(max_abs_diff(ws.logits() + first_real * kVocab, g.at("left_padded.logits").data() + first_real * kVocab,
                           (n - first_real) * kVocab),
              kTolerance);
    EXPECT_LT(max_abs_diff(ws.output(), g.at("left_padded.last_hidden_state").data(), n * d), kTolerance) << "pad rows";
}

// Decoding a left-padded prompt numbers its real tokens from 0 (HF generate's position ids), so
// the first step's logits are the reference's forward with those positions at the last row.
TEST_P(RotaryGolden, LeftPaddedPromptDecodesWithGenerationPositions) {
    const Case& c = GetParam();
    auto loaded = load_case(c);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const size_t n = g.shapes.at("left_padded.input_ids")[1];
    const std::vector<int32_t> ids = g.tokens("left_padded.input_ids");
    const std::vector<uint8_t> mask = g.mask("left_padded.attention_mask");
    Workspace ws = workspace(m, 1, n, n + 1);
    DecodeRequest r;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.max_new_tokens = 1;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    SF_ASSERT_OK(m.decode_step(ws));
    EXPECT_LT(max_abs_diff(ws.logits(), g.at("left_padded_generation.logits").data() + (n - 1) * kVocab, kVocab),
              kTolerance);
}

TEST_P(RotaryGolden, GreedyContinuationEqualsTheReferenceTokenForToken) {
    const Case& c = GetParam();
    auto loaded = load_case(c);
    SF_ASSERT_OK(loaded.status());
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const std::vector<int32_t> prompt = g.tokens("generate.prompt_ids"), want = g.tokens("generate.new_ids");
    const auto [got, logits] = greedy(loaded.value(), prompt, want.size());
    EXPECT_EQ(got, want);
    ASSERT_EQ(logits.size(), want.size() * kVocab);
    for (size_t s = 0; s < want.size(); ++s)
        EXPECT_LT(max_abs_diff(logits.data() + s * kVocab, g.at("generate.step_logits").data() + s * kVocab, kVocab),
                  kTolerance)
            << "step " << s;
}

// Without dynamic scaling a cached step is a full recomputation of the sequence so far: logits,
// and the step's attention row of every query head.
TEST_P(RotaryGolden, EveryCachedStepEqualsAFullRecomputation) {
    const Case& c = GetParam();
    if (!c.cache_equals_recomputation) GTEST_SKIP() << "dynamic rope: HF's cached keys keep their rotation";
    auto loaded = load_case(c);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const size_t h = nlohmann::json::parse(m.info_json())["n_heads"];
    const std::vector<int32_t> prompt = {51, 256, 851, 579, 402, 969, 454};  // longer than Mistral's window
    const size_t steps = 10;
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + steps);
    DecodeRequest r;
    r.n_seq = prompt.size();
    r.tokens = prompt.data();
    r.max_new_tokens = steps;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    std::vector<int32_t> ids = prompt;
    for (size_t s = 0; s < steps; ++s) {
        SF_ASSERT_OK(m.decode_step(ws));
        const size_t n = ids.size();
        Workspace full = workspace(m, 1, n, 0, 1);
        const std::vector<int32_t> last = {int32_t(n - 1)};
        TextRequest t;
        t.n_seq = n;
        t.tokens = ids.data();
        t.need_weights = true;
        t.logits_rows = last.data();
        t.n_logits_rows = 1;
        SF_ASSERT_OK(m.forward_text(t, full));
        EXPECT_LT(max_abs_diff(ws.logits(), full.logits(), kVocab), kCacheTolerance) << "step " << s;
        for (size_t l = 0; l < 2; ++l) {
            const AttentionMap& a = ws.step_attention()[l];
            ASSERT_EQ(a.nhead, h);
            ASSERT_EQ(a.n_seq_k, n);
            for (size_t head = 0; head < h; ++head)
                EXPECT_LT(max_abs_diff(a.data + head * n, full.encoder_attention()[l].data + (head * n + n - 1) * n, n),
                          kCacheTolerance)
                    << "step " << s << " layer " << l << " head " << head;
        }
        ids.push_back(ws.step_tokens()[0]);
    }
}

TEST_P(RotaryGolden, Int8WeightsStayCloseAndDecode) {
    const Case& c = GetParam();
    LoadOptions o;
    o.weights = WeightFormat::kInt8;
    auto q = load_case(c, o);
    SF_ASSERT_OK(q.status());
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const std::vector<int32_t> prompt = g.tokens("generate.prompt_ids");
    const auto [tokens, logits] = greedy(q.value(), prompt, 4);
    ASSERT_EQ(tokens.size(), 4u);
    // Per-channel int8 weights and dynamically quantized rows: logits within a few percent of
    // their range, and the first step's choice unchanged.
    const std::vector<float>& want = g.at("generate.step_logits");
    double range = 0;
    for (size_t i = 0; i < kVocab; ++i) range = std::max(range, std::abs(double(want[i])));
    EXPECT_LT(max_abs_diff(logits.data(), want.data(), kVocab), 0.1 * range);
    EXPECT_EQ(tokens[0], g.tokens("generate.new_ids")[0]);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RotaryGolden, ::testing::ValuesIn(kCases), case_name);

// A batch padded on the left decodes every prompt as it decodes alone, whatever the others are
// (GPT-2's learned positions and rotary positions count real tokens, as HF's generate does).
class LeftPaddedBatch : public ::testing::TestWithParam<const char*> {};

TEST_P(LeftPaddedBatch, DecodesEachPromptAsAlone) {
    const char* name = GetParam();
    auto loaded = load_case(Case{name, 0});
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const std::vector<std::vector<int32_t>> prompts = {{51, 256, 851, 579, 402, 969, 454, 620, 87}, {39, 450, 78}, {11}};
    const size_t n = 9, steps = 6, B = prompts.size();
    std::vector<int32_t> tokens(B * n, 1056);
    std::vector<uint8_t> mask(B * n, 0);
    for (size_t b = 0; b < B; ++b)
        for (size_t i = 0; i < prompts[b].size(); ++i) {
            tokens[b * n + n - prompts[b].size() + i] = prompts[b][i];
            mask[b * n + n - prompts[b].size() + i] = 1;
        }
    Workspace ws = workspace(m, B, n, n + steps);
    DecodeRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = tokens.data();
    r.attention_mask = mask.data();
    r.max_new_tokens = steps;
    SF_ASSERT_OK(m.decode_begin(r, ws));
    std::vector<std::vector<int32_t>> got(B);
    std::vector<std::vector<float>> got_logits(B);
    while (!ws.decode_done()) {
        SF_ASSERT_OK(m.decode_step(ws));
        for (size_t b = 0; b < B; ++b) {
            got[b].push_back(ws.step_tokens()[b]);
            got_logits[b].insert(got_logits[b].end(), ws.logits() + b * kVocab, ws.logits() + (b + 1) * kVocab);
        }
    }
    for (size_t b = 0; b < B; ++b) {
        const auto [alone, logits] = greedy(m, prompts[b], steps);
        EXPECT_EQ(alone, got[b]) << name << " prompt " << b;
        EXPECT_LT(max_abs_diff(logits.data(), got_logits[b].data(), steps * kVocab), kCacheTolerance) << name << " " << b;
    }
}

INSTANTIATE_TEST_SUITE_P(CausalLms, LeftPaddedBatch, ::testing::Values("gpt2", "llama_gqa", "qwen2"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// The cache holds the key/value heads only: growing max_context by one position costs
// n_layers x 2 x kv_width floats for the keys and values (plus the step's per-head map, the
// padding bias and the window row), not 2 x n_heads x head_dim.
TEST(RotaryDecoding, TheCacheHoldsOnlyTheKeyValueHeads) {
    auto loaded = load_case(Case{"llama_gqa", 36});
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const auto bytes = [&](size_t context) {
        WorkspaceLimits limits;
        limits.max_batch = 1;
        limits.max_src_len = 8;
        limits.max_context = context;
        auto ws = m.make_workspace(limits);
        EXPECT_TRUE(ws.is_ok());
        return ws.value().bytes();
    };
    const size_t layers = 2, kv_width = 2 * 10, heads = 4;
    const size_t per_position = bytes(101) - bytes(100);
    // keys + values per layer, one attention weight per head per layer, one padding bias
    EXPECT_EQ(per_position, (layers * 2 * kv_width + layers * heads + 1) * sizeof(float));
}

TEST(RotaryDecoding, StepsAllocateNothing) {
    auto loaded = load_case(Case{"mistral_window", 32});
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const std::vector<int32_t> prompt = {51, 256, 851, 579, 402, 969};
    Workspace ws = workspace(m, 1, prompt.size(), prompt.size() + 8);
    DecodeRequest r;
    r.n_seq = prompt.size();
    r.tokens = prompt.data();
    r.max_new_tokens = 8;
    Status st;
    const size_t allocations = allocations_during([&] {
        st = m.decode_begin(r, ws);
        while (st.is_ok() && !ws.decode_done()) st = m.decode_step(ws);
    });
    SF_ASSERT_OK(st);
    EXPECT_EQ(allocations, 0u);
}

// ---- configs: what Hugging Face rejects (or simdformer cannot run) is a clear error -----------

std::string gqa_config() { return read_text(hf_path("llama_gqa/config.json")); }

Status load_with(const std::string& from, const std::string& to, const std::string& case_name = "llama_gqa") {
    std::string config = read_text(hf_path(case_name + "/config.json"));
    const size_t at = config.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) config.replace(at, from.size(), to);
    CheckpointFiles f = open_checkpoint_files("hf/" + case_name, {"model.safetensors"}, false);
    return Model::load_checkpoint(config, f.shards, f.index).status();
}

void expect_error(const Status& st, StatusCode code, const std::vector<std::string>& fragments) {
    EXPECT_EQ(st.code(), code) << status_code_name(st.code()) << ": " << st.message();
    for (const std::string& f : fragments)
        EXPECT_NE(st.message().find(f), std::string::npos) << "'" << f << "' not in: " << st.message();
}

TEST(RotaryConfig, HeadCountsRopeTypesAndWidthsAreChecked) {
    expect_error(load_with("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"), StatusCode::kInvalidArgument,
                 {"num_key_value_heads", "3", "4"});
    expect_error(load_with("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 8"), StatusCode::kInvalidArgument,
                 {"num_key_value_heads", "8"});
    expect_error(load_with("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 0"), StatusCode::kInvalidArgument,
                 {"num_key_value_heads"});
    expect_error(load_with("\"head_dim\": 10", "\"head_dim\": 9"), StatusCode::kInvalidArgument, {"head_dim", "9"});
    expect_error(load_with("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0}"),
                 StatusCode::kUnsupported, {"rope_scaling", "yarn", "llama3"});
    expect_error(load_with("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"linear\"}"),
                 StatusCode::kInvalidArgument, {"rope_scaling", "factor"});
    expect_error(load_with("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0}"),
                 StatusCode::kInvalidArgument, {"low_freq_factor"});
    expect_error(load_with("\"rope_scaling\": null", "\"rope_scaling\": \"linear\""), StatusCode::kInvalidArgument,
                 {"rope_scaling"});
    expect_error(load_with("\"rope_theta\": 10000.0", "\"rope_theta\": -1"), StatusCode::kInvalidArgument,
                 {"rope_theta"});
    expect_error(load_with("\"rope_theta\": 10000.0", "\"rope_theta\": 10000.0, \"partial_rotary_factor\": 0.5"),
                 StatusCode::kUnsupported, {"partial_rotary_factor"});
    expect_error(load_with("\"hidden_act\": \"silu\"", "\"hidden_act\": \"xielu\""), StatusCode::kUnsupported,
                 {"hidden_act", "xielu"});  // a trained activation: refused (quick_gelu loads, hf_test)
    // The checkpoint's shapes must be the config's: q_proj is [heads x head_dim, hidden].
    expect_error(load_with("\"head_dim\": 10", "\"head_dim\": 8"), StatusCode::kShapeMismatch, {"q_proj"});
    // Untied, the LM head is the checkpoint's own lm_head.weight, which a tied Qwen2 has not.
    expect_error(load_with("\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false", "qwen2"),
                 StatusCode::kInvalidArgument, {"lm_head.weight"});
}

// A decoder's task heads (LlamaForSequenceClassification, ...) are not run here: refused at load
// by name, never loaded as the causal LM they share their tensors with.
TEST(RotaryConfig, DecoderTaskHeadsAreRefusedAtLoad) {
    for (const char* head : {"ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"}) {
        for (const auto& [family, case_name] : {std::pair{"Llama", "llama_gqa"}, {"Qwen2", "qwen2"}, {"Mistral", "mistral_window"}}) {
            const std::string from = std::string("\"") + family + "ForCausalLM\"";
            const std::string cls = std::string(family) + head;
            expect_error(load_with(from, "\"" + cls + "\"", case_name), StatusCode::kUnsupported, {cls, "not supported"});
        }
    }
}

// Special-token ids that only generation uses load even outside the vocabulary (reported), and
// a list of eos ids (Llama 3) gives every one of them.
TEST(RotaryConfig, GenerationTokenIdsAreAcceptedAsHuggingFaceDoes) {
    std::string config = gqa_config();
    config.replace(config.find("\"bos_token_id\": 1056"), 20, "\"bos_token_id\": 128000");
    CheckpointFiles f = open_checkpoint_files("hf/llama_gqa", {"model.safetensors"}, false);
    auto m = Model::load_checkpoint(config, f.shards, f.index);
    SF_ASSERT_OK(m.status());
    const nlohmann::json info = nlohmann::json::parse(m.value().info_json());
    EXPECT_EQ(info["bos_token_id"], nullptr);
    EXPECT_EQ(info["unused_token_ids"]["bos_token_id"], 128000);
    auto l3 = load_case(Case{"llama_mqa_llama3_bf16", 32});
    SF_ASSERT_OK(l3.status());
    const nlohmann::json i3 = nlohmann::json::parse(l3.value().info_json());
    EXPECT_EQ(i3["eos_token_ids"], nlohmann::json::array({1056, 0}));
    EXPECT_EQ(i3["eos_token_id"], 1056);
    EXPECT_EQ(i3["rotary"]["type"], "llama3");
    EXPECT_EQ(i3["n_kv_heads"], 1);
}

}  // namespace
}  // namespace simdformer::test

namespace simdformer::test {
namespace {

// A bare LlamaModel (tensors without the "model." prefix, no lm_head.weight): hidden states and
// attention as the ...ForCausalLM's, and no logits or generation, each refused by name.
TEST(RotaryConfig, ABareLlamaModelGivesHiddenStatesAndRefusesToGenerate) {
    const Golden weights = load_golden("hf/llama_gqa/model.safetensors");
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> bare;
    for (const auto& [name, data] : weights.values) {
        if (name == "lm_head.weight") continue;
        bare.push_back({name.substr(std::string("model.").size()), {weights.shapes.at(name), data.data()}});
    }
    const std::vector<uint8_t> bytes = write_safetensors(bare);
    std::string config = read_text(hf_path("llama_gqa/config.json"));
    config.replace(config.find("LlamaForCausalLM"), 16, "LlamaModel");
    MemorySource src(bytes.data(), bytes.size());
    auto loaded = Model::load_checkpoint(config, {{"model.safetensors", &src}}, "");
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const nlohmann::json info = nlohmann::json::parse(m.info_json());
    EXPECT_EQ(info["has_lm_head"], false);
    EXPECT_EQ(info["unused_tensors"], nlohmann::json::array());
    const Golden g = load_golden("hf/llama_gqa/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1];
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    Workspace ws = workspace(m, B, n, 0, 1);
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    SF_ASSERT_OK(m.forward_text(r, ws));
    EXPECT_LT(max_abs_diff(ws.output(), g.at("last_hidden_state").data(), B * n * 36), kTolerance);
    const int32_t row = 0;
    r.logits_rows = &row;
    r.n_logits_rows = 1;
    expect_error(m.forward_text(r, ws), StatusCode::kInvalidArgument, {"no LM head", "lm_head.weight"});
    Workspace dec = workspace(m, 1, 4, 8);
    DecodeRequest d;
    d.n_seq = 4;
    d.tokens = ids.data();
    d.max_new_tokens = 2;
    expect_error(m.decode_begin(d, dec), StatusCode::kUnsupported, {"no LM head", "ForCausalLM"});
}

}  // namespace
}  // namespace simdformer::test

namespace simdformer::test {
namespace {

// ---- configs as other Hugging Face versions write them: the same model, the same numbers ------

// `config` (case c's config.json rewritten) loaded on case c's weights: the last hidden states
// of the golden input and, with need_weights, every layer's attention; or the load's error.
struct Forward {
    std::vector<float> hidden;
    std::vector<std::vector<float>> attention;  // per layer [B, h, n, n]
};
Result<Forward> forward_with(const Case& c, const std::string& config, bool need_weights = true) {
    const std::vector<std::string> files = c.sharded ? std::vector<std::string>{"model-00001-of-00002.safetensors",
                                                                                "model-00002-of-00002.safetensors"}
                                                     : std::vector<std::string>{"model.safetensors"};
    CheckpointFiles f = open_checkpoint_files("hf/" + c.name, files, c.sharded);
    SF_ASSIGN_OR_RETURN(Model m, Model::load_checkpoint(config, f.shards, f.index));
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1];
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    Workspace ws = workspace(m, B, n, 0, 1);
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.need_weights = need_weights;
    SF_RETURN_IF_ERROR(m.forward_text(r, ws));
    Forward out{std::vector<float>(ws.output(), ws.output() + B * n * c.d_model), {}};
    if (need_weights)
        for (const AttentionMap& map : ws.encoder_attention())
            out.attention.emplace_back(map.data, map.data + map.n_batch * map.nhead * map.n_seq_q * map.n_seq_k);
    return out;
}

// The last hidden states alone (forward_with without the attention).
Result<std::vector<float>> hidden_states_with(const Case& c, const std::string& config) {
    SF_ASSIGN_OR_RETURN(Forward f, forward_with(c, config, false));
    return std::move(f.hidden);
}

std::string rewritten(const std::string& case_name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(read_text(hf_path(case_name + "/config.json")));
    edit(j);
    return j.dump();
}

void expect_golden_hidden_states(const Case& c, const std::string& config) {
    auto h = hidden_states_with(c, config);
    SF_ASSERT_OK(h.status());
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    EXPECT_LT(max_abs_diff(h.value().data(), g.at("last_hidden_state").data(), h.value().size()), kTolerance) << config;
}

// transformers 5 writes the rotary parameters as one "rope_parameters" object (rope_theta inside
// it, no top-level rope_theta or rope_scaling): Qwen2's theta of 1e6 and Llama's linear scaling
// must be read from there, not replaced by the defaults.
TEST(RotaryConfigVersions, RopeParametersOfTransformers5AreRead) {
    expect_golden_hidden_states(Case{"qwen2", 32}, rewritten("qwen2", [](nlohmann::json& j) {
        j.erase("rope_theta");
        j.erase("rope_scaling");
        j["rope_parameters"] = {{"rope_theta", 1000000.0}, {"rope_type", "default"}};
        j["transformers_version"] = "5.0.0";
    }));
    expect_golden_hidden_states(Case{"llama_linear_bias_f16_sharded", 32, true},
                                rewritten("llama_linear_bias_f16_sharded", [](nlohmann::json& j) {
                                    j.erase("rope_theta");
                                    j.erase("rope_scaling");
                                    j["rope_parameters"] = {{"rope_theta", 10000.0}, {"rope_type", "linear"}, {"factor", 2}};
                                }));
    // An empty rope_scaling (transformers 5 then reads rope_parameters) and rope_parameters
    // without a rope_type (the default) load too.
    expect_golden_hidden_states(Case{"qwen2", 32}, rewritten("qwen2", [](nlohmann::json& j) {
        j.erase("rope_theta");
        j["rope_scaling"] = nlohmann::json::object();
        j["rope_parameters"] = {{"rope_theta", 1000000}};
    }));
    // What would change the numbers without being computed is refused.
    const Case qwen2{"qwen2", 32};
    expect_error(hidden_states_with(qwen2, rewritten("qwen2", [](nlohmann::json& j) {
                     j["rope_parameters"] = {{"rope_theta", 10000.0}, {"rope_type", "default"}};
                 })).status(),
                 StatusCode::kInvalidArgument, {"rope_theta", "disagree"});
    expect_error(hidden_states_with(qwen2, rewritten("qwen2", [](nlohmann::json& j) {
                     j["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
                 })).status(),
                 StatusCode::kUnsupported, {"rope_parameters", "yarn"});
    expect_error(hidden_states_with(qwen2, rewritten("qwen2", [](nlohmann::json& j) {
                     j["rope_parameters"] = {{"rope_type", "default"}, {"partial_rotary_factor", 0.5}};
                 })).status(),
                 StatusCode::kUnsupported, {"partial_rotary_factor"});
}

// Some transformers 5 Ministral / Mistral configs give rope_parameters per layer type. The same
// parameters for every type are one rotary config (and load with the golden's numbers); different
// ones are refused, naming the layer types; a layer type whose entry is not an object too.
TEST(RotaryConfigVersions, RopeParametersPerLayerTypeLoadWhenAllTheSame) {
    const auto per_type = [](const nlohmann::json& full, const nlohmann::json& sliding) {
        return rewritten("qwen2", [&](nlohmann::json& j) {
            j.erase("rope_theta");
            j.erase("rope_scaling");
            j["rope_parameters"] = {{"full_attention", full}, {"sliding_attention", sliding}};
        });
    };
    const nlohmann::json theta = {{"rope_type", "default"}, {"rope_theta", 1000000.0}};
    expect_golden_hidden_states(Case{"qwen2", 32}, per_type(theta, theta));
    expect_golden_hidden_states(Case{"qwen2", 32}, rewritten("qwen2", [&](nlohmann::json& j) {
        j["rope_parameters"] = {{"full_attention", theta}};
    }));
    const Case qwen2{"qwen2", 32};
    expect_error(hidden_states_with(qwen2, per_type(theta, {{"rope_type", "default"}, {"rope_theta", 10000.0}})).status(),
                 StatusCode::kUnsupported, {"rope_parameters", "different parameters per layer type", "full_attention, sliding_attention"});
    expect_error(hidden_states_with(qwen2, per_type(theta, {{"rope_type", "linear"}, {"rope_theta", 1000000.0}, {"factor", 2}})).status(),
                 StatusCode::kUnsupported, {"full_attention, sliding_attention"});
    expect_error(hidden_states_with(qwen2, rewritten("qwen2", [&](nlohmann::json& j) {
                     j.erase("rope_theta");
                     j["rope_parameters"] = {{"full_attention", theta}, {"rope_theta", 1000000.0}};
                 })).status(),
                 StatusCode::kUnsupported, {"rope_parameters", "full_attention"});
}

// Qwen2's "layer_types" (written by the Config classes of transformers >= 4.53) decides which
// layers slide, whatever max_window_layers says; a sliding layer without a window is refused.
TEST(RotaryConfigVersions, Qwen2LayerTypesChooseTheSlidingLayers) {
    const Case qwen2{"qwen2", 32};
    const auto window = [](size_t max_window_layers, const nlohmann::json& layer_types) {
        return rewritten("qwen2", [&](nlohmann::json& j) {
            j["use_sliding_window"] = true;
            j["sliding_window"] = 3;
            j["max_window_layers"] = max_window_layers;
            if (!layer_types.is_null()) j["layer_types"] = layer_types;
        });
    };
    auto second_slides = hidden_states_with(qwen2, window(1, nullptr));
    auto both_slide = hidden_states_with(qwen2, window(0, nullptr));
    auto listed = hidden_states_with(qwen2, window(0, {"full_attention", "sliding_attention"}));
    SF_ASSERT_OK(second_slides.status());
    SF_ASSERT_OK(both_slide.status());
    SF_ASSERT_OK(listed.status());
    const size_t size = second_slides.value().size();
    ASSERT_GT(max_abs_diff(both_slide.value().data(), second_slides.value().data(), size), 1e-3);  // the window matters
    EXPECT_EQ(max_abs_diff(listed.value().data(), second_slides.value().data(), size), 0.0);
    // Every layer full: the reference's numbers (computed without a window).
    expect_golden_hidden_states(qwen2, window(0, {"full_attention", "full_attention"}));
    expect_error(hidden_states_with(qwen2, rewritten("qwen2", [](nlohmann::json& j) {
                     j["layer_types"] = {"full_attention", "sliding_attention"};  // use_sliding_window false
                 })).status(),
                 StatusCode::kInvalidArgument, {"layer_types", "no sliding window"});
    expect_error(hidden_states_with(qwen2, window(0, {"full_attention"})).status(), StatusCode::kInvalidArgument,
                 {"layer_types", "one type per layer"});
    expect_error(hidden_states_with(qwen2, window(0, {"full_attention", "chunked_attention"})).status(),
                 StatusCode::kUnsupported, {"layer_types", "chunked_attention"});
}

// A Mistral config that lists "layer_types" is loaded by AutoConfig as a Ministral one
// (MinistralForCausalLM): its full_attention layers attend to every earlier key, only its
// sliding_attention layers to the last sliding_window. (MistralConfig by itself would ignore the
// list and window every layer: a silent difference on prompts longer than the window.)
TEST(RotaryConfigVersions, MistralLayerTypesAreReadAsMinistralReadsThem) {
    const Case mistral{"mistral_window", 32};
    const auto typed = [](const nlohmann::json& layer_types) {
        return rewritten("mistral_window", [&](nlohmann::json& j) { j["layer_types"] = layer_types; });
    };
    // Every layer sliding, listed or not: the reference's numbers (a window of 4 on 22 tokens).
    expect_golden_hidden_states(mistral, typed({"sliding_attention", "sliding_attention"}));
    expect_golden_hidden_states(mistral, typed(nullptr));
    auto full = forward_with(mistral, rewritten("mistral_window", [](nlohmann::json& j) { j["sliding_window"] = nullptr; }));
    auto listed_full = forward_with(mistral, typed({"full_attention", "full_attention"}));
    auto mixed = forward_with(mistral, typed({"full_attention", "sliding_attention"}));
    auto sliding = forward_with(mistral, typed({"sliding_attention", "sliding_attention"}));
    SF_ASSERT_OK(full.status());
    SF_ASSERT_OK(listed_full.status());
    SF_ASSERT_OK(mixed.status());
    SF_ASSERT_OK(sliding.status());
    EXPECT_EQ(listed_full.value().hidden, full.value().hidden);
    const size_t size = full.value().hidden.size();
    ASSERT_GT(max_abs_diff(full.value().hidden.data(), sliding.value().hidden.data(), size), 1e-3);  // the window matters
    // Layer 0 full (as with no window at all), layer 1 windowed (as with the window everywhere).
    EXPECT_EQ(mixed.value().attention[0], full.value().attention[0]);
    EXPECT_NE(mixed.value().attention[1], full.value().attention[1]);
    const std::vector<float>& a1 = mixed.value().attention[1];
    const size_t n = 22;
    for (size_t q = 0; q < n; ++q)  // item 0, head 0: nothing more than 4 positions back
        for (size_t k = 0; k + 4 <= q; ++k) EXPECT_EQ(a1[q * n + k], 0.0f) << "q " << q << " k " << k;
    EXPECT_GT(max_abs_diff(mixed.value().hidden.data(), full.value().hidden.data(), size), 1e-3);
    EXPECT_GT(max_abs_diff(mixed.value().hidden.data(), sliding.value().hidden.data(), size), 1e-3);
    // A sliding layer needs a window; the list has one type per layer, of the two known ones.
    expect_error(hidden_states_with(mistral, rewritten("mistral_window", [](nlohmann::json& j) {
                     j["sliding_window"] = nullptr;
                     j["layer_types"] = {"full_attention", "sliding_attention"};
                 })).status(),
                 StatusCode::kInvalidArgument, {"layer_types", "no sliding window"});
    expect_error(hidden_states_with(mistral, typed({"sliding_attention"})).status(), StatusCode::kInvalidArgument,
                 {"layer_types", "one type per layer"});
    expect_error(hidden_states_with(mistral, typed({"full_attention", "chunked_attention"})).status(),
                 StatusCode::kUnsupported, {"layer_types", "chunked_attention"});
}

// model_type "ministral" (MinistralForCausalLM): MinistralConfig is MistralConfig's defaults plus
// layer_types (absent: every layer sliding when sliding_window is set), and its modules are
// Qwen2's without q/k/v biases, i.e. Mistral's: the same numbers as Mistral with layer_types, and
// the info says which layers slide (first_window_layer is only the first of them).
TEST(RotaryConfigVersions, MinistralIsMistralWithLayerTypes) {
    const Case mistral{"mistral_window", 32};
    const auto ministral = [](const nlohmann::json& layer_types, bool model_type = true) {
        return rewritten("mistral_window", [&](nlohmann::json& j) {
            if (model_type) j["model_type"] = "ministral";
            else j.erase("model_type");
            j["architectures"] = {"MinistralForCausalLM"};
            if (!layer_types.is_null()) j["layer_types"] = layer_types;
        });
    };
    expect_golden_hidden_states(mistral, ministral(nullptr));
    expect_golden_hidden_states(mistral, ministral(nullptr, false));  // the class name decides
    for (const nlohmann::json& types : {nlohmann::json{"full_attention", "sliding_attention"},
                                        nlohmann::json{"sliding_attention", "full_attention"}}) {
        auto as_ministral = forward_with(mistral, ministral(types));
        auto as_mistral = forward_with(mistral, rewritten("mistral_window", [&](nlohmann::json& j) { j["layer_types"] = types; }));
        SF_ASSERT_OK(as_ministral.status());
        SF_ASSERT_OK(as_mistral.status());
        EXPECT_EQ(as_ministral.value().hidden, as_mistral.value().hidden) << types;
    }
    CheckpointFiles f = open_checkpoint_files("hf/mistral_window", {"model.safetensors"}, false);
    auto m = Model::load_checkpoint(ministral({"sliding_attention", "full_attention"}), f.shards, f.index);
    SF_ASSERT_OK(m.status());
    const nlohmann::json info = nlohmann::json::parse(m.value().info_json());
    EXPECT_EQ(info["architecture"], "ministral");
    EXPECT_EQ(info["model_type"], "ministral");
    EXPECT_EQ(info["sliding_window"], 4);
    EXPECT_EQ(info["first_window_layer"], 0);
    EXPECT_EQ(info["window_layers"], nlohmann::json::array({0}));  // layer 1 is full
    auto plain = load_case(mistral);
    SF_ASSERT_OK(plain.status());
    EXPECT_EQ(nlohmann::json::parse(plain.value().info_json())["window_layers"], nlohmann::json::array({0, 1}));
}

}  // namespace
}  // namespace simdformer::test
