// Hugging Face checkpoints (tests/data/hf/<case>/, written by scripts/fixtures/make_hf_fixtures.py in
// exact HF format) against the from-spec PyTorch reference's outputs in golden.safetensors:
// last hidden state, every layer's attention weights, pooler output, MLM logits and sequence-
// classification logits, <= 1e-4.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <nlohmann/json.hpp>
#include <optional>

#include "simdformer/arch/hf_config.h"
#include "simdformer/io/json_text.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/kernels/reference.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kTolerance = 1e-4;

std::string hf_path(const std::string& rel) { return data_path("hf/" + rel); }

// A checkpoint folder opened with one FileSource per weights file.
Result<Model> load_folder(const std::string& name, const std::vector<std::string>& files = {"model.safetensors"},
                          bool sharded = false, const LoadOptions& options = {}) {
    CheckpointFiles f = open_checkpoint_files("hf/" + name, files, sharded);
    return Model::load_checkpoint(read_text(hf_path(name + "/config.json")), f.shards, f.index, options);
}

struct Case {
    std::string name;
    std::vector<std::string> files = {"model.safetensors"};
    bool sharded = false;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class HfGolden : public ::testing::TestWithParam<Case> {};

TEST_P(HfGolden, HiddenStatesAttentionsPoolerAndLogitsMatchTheReference) {
    const Case& c = GetParam();
    auto loaded = load_folder(c.name, c.files, c.sharded);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    // Every tensor of the checkpoint was used or deliberately ignored (buffers, tied copies,
    // BertForPreTraining's next-sentence head).
    EXPECT_NE(m.info_json().find(R"("unused_tensors":[])"), std::string::npos) << m.info_json();
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const Shape& shape = g.shapes.at("input_ids");
    const size_t B = shape[0], n = shape[1], d = m.config().d_model, L = m.config().num_encoder_layers;
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    std::vector<int32_t> types;
    if (g.values.count("token_type_ids")) types = g.tokens("token_type_ids");
    const bool pooler = g.values.count("pooler_output") > 0, logits = g.values.count("logits") > 0;
    const bool classifier = g.values.count("classifier_logits") > 0;
    // ...ForTokenClassification: token_logits [B, n, num_labels]; ...ForQuestionAnswering:
    // start_logits and end_logits [B, n], the token head's columns 0 and 1.
    const bool token_classifier = g.values.count("token_logits") > 0, qa = g.values.count("start_logits") > 0;
    std::vector<int32_t> rows;
    for (size_t i = 0; logits && i < B * n; ++i) rows.push_back(int32_t(i));

    WorkspaceLimits limits;
    limits.max_batch = B;
    limits.max_src_len = n;
    limits.max_logits_rows = rows.size();
    auto ws = m.make_workspace(limits);
    SF_ASSERT_OK(ws.status());
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.token_types = types.empty() ? nullptr : types.data();
    r.attention_mask = mask.data();
    r.need_weights = true;
    r.need_pooler = pooler;
    r.need_classifier = classifier;
    r.need_token_logits = token_classifier || qa;
    r.logits_rows = rows.data();
    r.n_logits_rows = rows.size();
    SF_ASSERT_OK(m.forward_text(r, ws.value()));
    const Workspace& w = ws.value();

    ASSERT_EQ(w.output_rows(), B * n);
    EXPECT_LT(max_abs_diff(w.output(), g.at("last_hidden_state").data(), B * n * d), kTolerance) << "last_hidden_state";
    ASSERT_EQ(w.encoder_attention().size(), L);
    for (size_t l = 0; l < L; ++l) {
        const AttentionMap& a = w.encoder_attention()[l];
        const std::vector<float>& want = g.at("attentions." + std::to_string(l));
        ASSERT_EQ(a.n_batch * a.nhead * a.n_seq_q * a.n_seq_k, want.size());
        EXPECT_LT(max_abs_diff(a.data, want.data(), want.size()), kTolerance) << "attentions." << l;
    }
    if (pooler) {
        ASSERT_NE(w.pooler(), nullptr);
        EXPECT_LT(max_abs_diff(w.pooler(), g.at("pooler_output").data(), B * d), kTolerance) << "pooler_output";
    }
    if (logits) {
        ASSERT_NE(w.logits(), nullptr);
        const std::vector<float>& want = g.at("logits");
        ASSERT_EQ(rows.size() * w.logits_cols(), want.size());
        EXPECT_LT(max_abs_diff(w.logits(), want.data(), want.size()), kTolerance) << "logits";
    }
    if (classifier) {
        ASSERT_NE(w.classifier_logits(), nullptr);
        const std::vector<float>& want = g.at("classifier_logits");
        ASSERT_EQ(want.size() % B, 0u);
        EXPECT_EQ(nlohmann::json::parse(m.info_json())["num_labels"], want.size() / B);
        EXPECT_LT(max_abs_diff(w.classifier_logits(), want.data(), want.size()), kTolerance) << "classifier_logits";
    } else {
        EXPECT_EQ(w.classifier_logits(), nullptr);
    }
    if (token_classifier) {
        ASSERT_NE(w.token_logits(), nullptr);
        const std::vector<float>& want = g.at("token_logits");
        ASSERT_EQ(want.size() % (B * n), 0u);
        EXPECT_EQ(nlohmann::json::parse(m.info_json())["num_labels"], want.size() / (B * n));
        EXPECT_LT(max_abs_diff(w.token_logits(), want.data(), want.size()), kTolerance) << "token_logits";
    }
    if (qa) {
        ASSERT_NE(w.token_logits(), nullptr);
        const std::vector<float>& start = g.at("start_logits");
        const std::vector<float>& end = g.at("end_logits");
        ASSERT_EQ(start.size(), B * n);
        float worst = 0;
        for (size_t i = 0; i < B * n; ++i)
            worst = std::max({worst, std::abs(w.token_logits()[2 * i] - start[i]), std::abs(w.token_logits()[2 * i + 1] - end[i])});
        EXPECT_LT(worst, kTolerance) << "start_logits / end_logits";
    }
    if (!token_classifier && !qa) EXPECT_EQ(w.token_logits(), nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HfGolden,
    ::testing::Values(Case{"bert"}, Case{"bert_mlm_f16"}, Case{"bert_pretraining_bf16"}, Case{"bert_relu_unigram"},
                      Case{"bert_sharded", {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}, true},
                      Case{"roberta"}, Case{"distilbert"}, Case{"bert_seqcls"}, Case{"roberta_seqcls_multilabel"},
                      Case{"distilbert_seqcls_regression"}, Case{"bert_tokcls"}, Case{"roberta_tokcls"},
                      Case{"distilbert_tokcls"}, Case{"bert_qa"}, Case{"roberta_qa"}, Case{"distilbert_qa"},
                      Case{"roberta_nli"}, Case{"bert_reranker"}, Case{"xlmr_seqcls"}, Case{"xlmr_tokcls"}),
    case_name);


// ---- errors a loader must give (tests/data/hf/broken, see its expected.json) -------------------

void expect_error(const Status& st, StatusCode code, const std::vector<std::string>& fragments) {
    EXPECT_EQ(st.code(), code) << status_code_name(st.code()) << ": " << st.message();
    for (const std::string& f : fragments)
        EXPECT_NE(st.message().find(f), std::string::npos) << "'" << f << "' not in: " << st.message();
}

TEST(HfBroken, EveryBrokenFolderGivesTheExpectedError) {
    const std::string b = "broken/";
    expect_error(load_folder(b + "missing_shard", {"model-00001-of-00002.safetensors"}, true).status(),
                 StatusCode::kIoError, {"model-00002-of-00002.safetensors"});
    expect_error(load_folder(b + "missing_tensor").status(), StatusCode::kInvalidArgument,
                 {"encoder.layer.1.output.dense.bias"});
    expect_error(load_folder(b + "missing_weights", {}).status(), StatusCode::kIoError, {"model.safetensors"});
    expect_error(load_folder(b + "pytorch_bin_only", {"pytorch_model.bin"}).status(), StatusCode::kUnsupported,
                 {"pytorch_model.bin", "safetensors"});
    expect_error(load_folder(b + "truncated_weights").status(), StatusCode::kIoError, {"model.safetensors", "77016"});
    expect_error(load_folder(b + "unsupported_gemma").status(), StatusCode::kUnsupported,
                 {"gemma", "bert", "roberta", "distilbert", "gpt2", "llama", "qwen2", "mistral"});
    expect_error(load_folder(b + "wrong_shape").status(), StatusCode::kShapeMismatch,
                 {"encoder.layer.1.attention.self.query.weight", "32", "16"});
}

// ---- adapters: name maps, prefixes, buffers and configs, on in-memory checkpoints -------------

using TensorMap = std::map<std::string, std::pair<Shape, std::vector<float>>>;

// The F32 tensors of a fixture folder's model.safetensors.
TensorMap fixture_tensors(const std::string& name) {
    const std::vector<uint8_t> bytes = read_file(hf_path(name + "/model.safetensors"));
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    TensorMap tensors;
    EXPECT_TRUE(f.is_ok());
    if (!f.is_ok()) return tensors;
    for (const TensorInfo& t : f.value().tensors()) {
        if (!dtype_is_float(t.dtype)) continue;
        auto b = f.value().read(t);
        tensors[t.name] = {t.shape, std::vector<float>(b.value().data(), b.value().data() + b.value().size())};
    }
    return tensors;
}

std::vector<uint8_t> to_file(const TensorMap& tensors) {
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> list;
    for (const auto& [name, t] : tensors) list.push_back({name, {t.first, t.second.data()}});
    return write_safetensors(list);
}

Result<Model> load_bytes(const std::string& config, const std::vector<uint8_t>& bytes) {
    MemorySource src(bytes.data(), bytes.size());
    return Model::load_checkpoint(config, {{"model.safetensors", &src}}, "");
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

// Last hidden state of the bert fixture's golden input under a model.
std::vector<float> bert_output(const Model& m) {
    const Golden g = load_golden("hf/bert/golden.safetensors");
    const std::vector<int32_t> ids = g.tokens("input_ids"), types = g.tokens("token_type_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    const size_t B = 3, n = 16;
    WorkspaceLimits limits;
    limits.max_batch = B;
    limits.max_src_len = n;
    auto ws = m.make_workspace(limits);
    EXPECT_TRUE(ws.is_ok());
    if (!ws.is_ok()) return {};
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.token_types = types.data();
    r.attention_mask = mask.data();
    const Status st = m.forward_text(r, ws.value());
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st.is_ok()) return {};
    return std::vector<float>(ws.value().output(), ws.value().output() + B * n * m.config().d_model);
}

TEST(HfAdapters, BertLoadsWithOrWithoutTheBasePrefixAndAcceptsHeadsItDoesNotRun) {
    const std::string config = read_text(hf_path("bert/config.json"));
    const TensorMap plain = fixture_tensors("bert");
    auto base = load_bytes(config, to_file(plain));
    SF_ASSERT_OK(base.status());
    const std::vector<float> want = bert_output(base.value());

    TensorMap prefixed;
    for (const auto& [name, t] : plain) prefixed["bert." + name] = t;
    prefixed["classifier.weight"] = {{2, 32}, std::vector<float>(64, 0.5f)};  // a head simdformer does not run
    prefixed["classifier.bias"] = {{2}, {0.0f, 0.0f}};
    auto m = load_bytes(config, to_file(prefixed));
    SF_ASSERT_OK(m.status());
    EXPECT_EQ(bert_output(m.value()), want);
    EXPECT_EQ(m.value().parameter_count(), base.value().parameter_count());
    const std::string info = m.value().info_json();
    EXPECT_NE(info.find(R"("unused_tensors":["classifier.bias","classifier.weight"])"), std::string::npos) << info;
    EXPECT_NE(base.value().info_json().find(R"("unused_tensors":[])"), std::string::npos);

    prefixed.erase("bert.encoder.layer.0.output.LayerNorm.bias");
    expect_error(load_bytes(config, to_file(prefixed)).status(), StatusCode::kInvalidArgument,
                 {"missing tensor 'bert.encoder.layer.0.output.LayerNorm.bias' [32]"});
    TensorMap renamed;
    for (const auto& [name, t] : plain) renamed["model." + name] = t;
    expect_error(load_bytes(config, to_file(renamed)).status(), StatusCode::kInvalidArgument,
                 {"bert.embeddings.word_embeddings.weight", "without the prefix"});
}

TEST(HfAdapters, TensorFlowStyleLayerNormNamesLoad) {
    const std::string config = read_text(hf_path("bert/config.json"));
    TensorMap plain = fixture_tensors("bert"), tf;
    auto base = load_bytes(config, to_file(plain));
    SF_ASSERT_OK(base.status());
    for (const auto& [name, t] : plain) {
        std::string n = name;
        if (n.find("LayerNorm.weight") != std::string::npos) n = replaced(n, "LayerNorm.weight", "LayerNorm.gamma");
        if (n.find("LayerNorm.bias") != std::string::npos) n = replaced(n, "LayerNorm.bias", "LayerNorm.beta");
        tf[n] = t;
    }
    auto m = load_bytes(config, to_file(tf));
    SF_ASSERT_OK(m.status());
    EXPECT_EQ(bert_output(m.value()), bert_output(base.value()));
}

TEST(HfAdapters, UntiedMlmDecoderNeedsItsOwnWeight) {
    // bert_mlm_f16 without the tie: the decoder weight is now required, and it is missing.
    std::string config = read_text(hf_path("bert_mlm_f16/config.json"));
    config = replaced(config, "\"vocab_size\"", "\"tie_word_embeddings\": false,\n  \"vocab_size\"");
    const std::vector<uint8_t> bytes = read_file(hf_path("bert_mlm_f16/model.safetensors"));
    expect_error(load_bytes(config, bytes).status(), StatusCode::kInvalidArgument, {"cls.predictions.decoder.weight"});
}

TEST(HfConfig, NumbersMustBeExactIntegersAndFeaturesSupported) {
    const std::string config = read_text(hf_path("bert/config.json"));
    const std::vector<uint8_t> bytes = to_file(fixture_tensors("bert"));
    auto with = [&](const std::string& from, const std::string& to) { return load_bytes(replaced(config, from, to), bytes).status(); };
    expect_error(with("\"hidden_size\": 32", "\"hidden_size\": 32.0"), StatusCode::kInvalidArgument, {"hidden_size", "integer"});
    expect_error(with("\"hidden_size\": 32", "\"hidden_size\": \"32\""), StatusCode::kInvalidArgument, {"hidden_size"});
    expect_error(with("\"num_hidden_layers\": 2", "\"num_hidden_layers\": -2"), StatusCode::kInvalidArgument,
                 {"num_hidden_layers", "-2"});
    expect_error(with("\"vocab_size\": 626", "\"vocab_size\": 4294967297"), StatusCode::kInvalidArgument, {"vocab_size"});
    expect_error(with("\"num_attention_heads\": 4", "\"num_attention_heads\": 5"), StatusCode::kInvalidArgument,
                 {"hidden_size", "32", "5"});
    expect_error(with("\"hidden_act\": \"gelu\"", "\"hidden_act\": \"prelu\""), StatusCode::kUnsupported,
                 {"hidden_act", "prelu", "gelu_new", "gelu_fast"});
    expect_error(with("\"position_embedding_type\": \"absolute\"", "\"position_embedding_type\": \"relative_key\""),
                 StatusCode::kUnsupported, {"position_embedding_type", "relative_key"});
    expect_error(with("\"layer_norm_eps\": 1e-12", "\"layer_norm_eps\": 0"), StatusCode::kInvalidArgument, {"layer_norm_eps"});
    expect_error(with("\"pad_token_id\": 0", "\"pad_token_id\": 1.5"), StatusCode::kInvalidArgument, {"pad_token_id"});
    // The class name decides when model_type is absent; an unknown one is unsupported.
    SF_ASSERT_OK(with("\"model_type\": \"bert\",", ""));
    expect_error(load_bytes(replaced(replaced(config, "\"model_type\": \"bert\",", ""), "BertModel", "T5Model"), bytes).status(),
                 StatusCode::kUnsupported, {"T5Model", "bert, roberta, xlm-roberta, distilbert"});
}

// Last hidden state of fixture `name`'s golden input (ids and mask; token types 0) under a model.
std::vector<float> golden_input_output(const Model& m, const std::string& name) {
    const Golden g = load_golden("hf/" + name + "/golden.safetensors");
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    TextRequest r;
    r.n_batch = g.shapes.at("input_ids")[0];
    r.n_seq = g.shapes.at("input_ids")[1];
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    auto ws = m.make_workspace(workspace_limits(r));
    EXPECT_TRUE(ws.is_ok());
    if (!ws.is_ok()) return {};
    const Status st = m.forward_text(r, ws.value());
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st.is_ok()) return {};
    return std::vector<float>(ws.value().output(), ws.value().output() + r.n_batch * r.n_seq * m.config().d_model);
}

// position_embedding_type null: transformers 4.x's BertEmbeddings / RobertaEmbeddings add the
// position table only when the type is "absolute", so a null one adds nothing (and self-attention
// has no relative term). That is the absolute model with an all-zero table; the file's table is
// accepted and unused, and a file without it loads too. relative_key(_query) and custom types are
// refused by name.
// Every hidden_act of Hugging Face's ACT2FN that simdformer accepts computes the formula
// activations.py writes for it (here in double, as written there, gelu_fast with its own
// 0.7978845608), on the kernel the name is mapped to; the others are kUnsupported, by name.
TEST(HfConfig, HiddenActComputesHuggingFacesFormulaOrIsUnsupported) {
    const double pi = 3.14159265358979323846;
    auto tanh_form = [&](double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * std::pow(x, 3.0)))); };
    auto erf_form = [](double x) { return x * 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); };
    const std::vector<std::pair<std::string, std::function<double(double)>>> formulas = {
        {"gelu", erf_form},
        {"gelu_python", erf_form},
        {"gelu_new", tanh_form},
        {"gelu_pytorch_tanh", tanh_form},
        {"gelu_accurate", tanh_form},
        {"gelu_fast", [](double x) { return 0.5 * x * (1.0 + std::tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x))); }},
        {"relu", [](double x) { return x > 0 ? x : 0.0; }},
        {"silu", [](double x) { return x / (1.0 + std::exp(-x)); }},
        {"swish", [](double x) { return x / (1.0 + std::exp(-x)); }},
        {"tanh", [](double x) { return std::tanh(x); }},
        {"linear", [](double x) { return x; }},
    };
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(float(i) / 400.0f);  // [-10, 10] in steps of 1/400
    for (const auto& [name, formula] : formulas) {
        const nlohmann::json j = {{"hidden_act", name}};
        std::string read;
        Activation act = Activation::kNone;
        SF_ASSERT_OK(simdformer::HfConfig(j).activation({"hidden_act"}, "gelu", &read, &act));
        EXPECT_EQ(read, name);
        std::vector<float> y(x.size());
        kernels::activation_f32(act, x.size(), x.data(), y.data());
        double worst = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double want = formula(double(x[i]));
            worst = std::max(worst, std::abs(double(y[i]) - want) / (1.0 + std::abs(want)));
        }
        EXPECT_LT(worst, 2e-6) << name;
    }
    // A model loads with each (here gelu_fast and linear) and reports the name as written.
    const std::string config = read_text(hf_path("bert/config.json"));
    const std::vector<uint8_t> bytes = to_file(fixture_tensors("bert"));
    for (const char* name : {"gelu_fast", "linear", "quick_gelu", "mish"}) {
        auto m = load_bytes(replaced(config, "\"hidden_act\": \"gelu\"", std::string("\"hidden_act\": \"") + name + "\""), bytes);
        SF_ASSERT_OK(m.status());
        EXPECT_EQ(nlohmann::json::parse(m.value().info_json())["hidden_act"], name);
    }
    // prelu and xielu have trained parameters of their own (not read here); names are exact.
    for (const char* name : {"prelu", "xielu", "GELU", "Mish", ""}) {
        const nlohmann::json j = {{"hidden_act", name}};
        std::string read;
        Activation act = Activation::kNone;
        expect_error(simdformer::HfConfig(j).activation({"hidden_act"}, "gelu", &read, &act), StatusCode::kUnsupported,
                     {"hidden_act", std::string("\"") + name + "\"", "gelu_python"});
    }
    // null is None, which ACT2FN[None] refuses (KeyError) in every family: never the default's
    // formula (hidden_act of BERT / Llama, GPT-2's activation_function, DistilBERT's activation).
    for (const char* key : {"hidden_act", "activation_function", "activation"}) {
        const nlohmann::json j = {{key, nullptr}};
        std::string read;
        Activation act = Activation::kNone;
        expect_error(simdformer::HfConfig(j).activation({key}, "gelu", &read, &act), StatusCode::kInvalidArgument,
                     {key, "must be a string, not null"});
    }
    expect_error(load_bytes(replaced(config, "\"hidden_act\": \"gelu\"", "\"hidden_act\": null"),
                            read_file(hf_path("bert/model.safetensors"))).status(),
                 StatusCode::kInvalidArgument, {"\"hidden_act\" must be a string, not null"});
}

// Every ACT2FN name simdformer accepts against PyTorch: tests/data/hf/activations.safetensors holds
// x and, per name, the float32 values of activations.py's formula for it under torch 1.13
// (scripts/reference/hf_activations.py), over [-30, 30] and a few points past exp's range and
// mish's softplus threshold (20). The vector kernel (activation_f32, which the GEMM epilogues
// share) and its double twin both agree to 1e-5 relative (absolute below 1).
TEST(HfConfig, EveryAcceptedActivationMatchesPyTorch) {
    const Golden g = load_golden("hf/activations.safetensors");
    const std::vector<float>& x = g.at("x");
    size_t checked = 0;
    for (const auto& [name, want] : g.values) {
        if (name == "x") continue;
        const nlohmann::json j = {{"hidden_act", name}};
        std::string read;
        Activation act = Activation::kNone;
        SF_ASSERT_OK(simdformer::HfConfig(j).activation({"hidden_act"}, "gelu", &read, &act));
        std::vector<float> y(x.size());
        kernels::activation_f32(act, x.size(), x.data(), y.data());
        double worst = 0, worst_ref = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double scale = std::max(1.0, std::abs(double(want[i])));
            worst = std::max(worst, std::abs(double(y[i]) - double(want[i])) / scale);
            worst_ref = std::max(worst_ref, std::abs(kernels::ref::activation(act, double(x[i])) - double(want[i])) / scale);
        }
        EXPECT_LE(worst, 1e-5) << name;
        EXPECT_LE(worst_ref, 1e-5) << name << " (reference twin)";
        ++checked;
    }
    EXPECT_EQ(checked, 19u);
}

// null flags: PretrainedConfig keeps None and HF's code tests these for truth, so null is false
// whatever the default: BERT stays an encoder without cross-attention, and tie_weights()'s
// getattr(config, "tie_word_embeddings", True) gives the None, so the MLM decoder is untied and
// its weight is required, exactly as with false.
TEST(HfConfig, NullFlagsAreFalseAsHuggingFaceReadsNone) {
    const std::string config = read_text(hf_path("bert/config.json"));
    const std::vector<uint8_t> bytes = to_file(fixture_tensors("bert"));
    SF_ASSERT_OK(load_bytes(replaced(config, "\"vocab_size\"", "\"is_decoder\": null, \"add_cross_attention\": null, \"vocab_size\""),
                            bytes).status());
    expect_error(load_bytes(replaced(config, "\"vocab_size\"", "\"is_decoder\": true, \"vocab_size\""), bytes).status(),
                 StatusCode::kUnsupported, {"is_decoder"});
    const std::string mlm = read_text(hf_path("bert_mlm_f16/config.json"));
    const std::vector<uint8_t> mlm_bytes = read_file(hf_path("bert_mlm_f16/model.safetensors"));
    SF_ASSERT_OK(load_bytes(mlm, mlm_bytes).status());
    for (const char* off : {"false", "null"})
        expect_error(load_bytes(replaced(mlm, "\"vocab_size\"", std::string("\"tie_word_embeddings\": ") + off + ",\n  \"vocab_size\""),
                                mlm_bytes).status(),
                     StatusCode::kInvalidArgument, {"cls.predictions.decoder.weight"});
    // Llama's nn.Linear(bias=None) has no bias (`if bias`), Qwen2's use_sliding_window None no window.
    const std::string llama = read_text(hf_path("llama_gqa/config.json"));
    const std::vector<uint8_t> llama_bytes = read_file(hf_path("llama_gqa/model.safetensors"));
    SF_ASSERT_OK(load_bytes(replaced(replaced(llama, "\"attention_bias\": false", "\"attention_bias\": null"),
                                     "\"mlp_bias\": false", "\"mlp_bias\": null"),
                            llama_bytes).status());
    const std::string qwen2 = read_text(hf_path("qwen2/config.json"));
    auto q = load_bytes(replaced(qwen2, "\"use_sliding_window\": false", "\"use_sliding_window\": null"),
                        read_file(hf_path("qwen2/model.safetensors")));
    SF_ASSERT_OK(q.status());
    EXPECT_TRUE(nlohmann::json::parse(q.value().info_json())["sliding_window"].is_null());
}

// Flags given as numbers: HF tests them for truth (`if config.tie_word_embeddings`, nn.Linear's
// `if bias`), so 0 is false and 1 (any non-zero number) true; a string is refused ("false" would
// be true in Python, which such a file never means).
TEST(HfConfig, NumericFlagsAreReadAsPythonTruth) {
    const std::string mlm = read_text(hf_path("bert_mlm_f16/config.json"));
    const std::vector<uint8_t> mlm_bytes = read_file(hf_path("bert_mlm_f16/model.safetensors"));
    const auto with_tie = [&](const std::string& v) {
        return replaced(mlm, "\"vocab_size\"", "\"tie_word_embeddings\": " + v + ",\n  \"vocab_size\"");
    };
    SF_ASSERT_OK(load_bytes(with_tie("1"), mlm_bytes).status());
    SF_ASSERT_OK(load_bytes(with_tie("2"), mlm_bytes).status());
    for (const char* off : {"0", "0.0"})
        expect_error(load_bytes(with_tie(off), mlm_bytes).status(), StatusCode::kInvalidArgument, {"cls.predictions.decoder.weight"});
    expect_error(load_bytes(with_tie("\"false\""), mlm_bytes).status(), StatusCode::kInvalidArgument,
                 {"tie_word_embeddings", "must be true or false"});
    // Required-false flags: 0 is false; 1 asks for what is not supported.
    const std::string config = read_text(hf_path("bert/config.json"));
    const std::vector<uint8_t> bytes = to_file(fixture_tensors("bert"));
    SF_ASSERT_OK(load_bytes(replaced(config, "\"vocab_size\"", "\"is_decoder\": 0, \"add_cross_attention\": 0, \"vocab_size\""),
                            bytes).status());
    expect_error(load_bytes(replaced(config, "\"vocab_size\"", "\"is_decoder\": 1, \"vocab_size\""), bytes).status(),
                 StatusCode::kUnsupported, {"is_decoder"});
    // Llama's attention_bias 0: no bias, as with false.
    const std::string llama = read_text(hf_path("llama_gqa/config.json"));
    SF_ASSERT_OK(load_bytes(replaced(replaced(llama, "\"attention_bias\": false", "\"attention_bias\": 0"),
                                     "\"mlp_bias\": false", "\"mlp_bias\": 0"),
                            read_file(hf_path("llama_gqa/model.safetensors"))).status());
}

TEST(HfConfig, NullPositionEmbeddingTypeAddsNoPositionTable) {
    for (const auto& [name, table] : {std::pair<std::string, std::string>{"bert", "embeddings.position_embeddings.weight"},
                                      {"roberta", "roberta.embeddings.position_embeddings.weight"}}) {
        const std::string config = read_text(hf_path(name + "/config.json"));
        const std::string null_type = replaced(config, "\"position_embedding_type\": \"absolute\"",
                                               "\"position_embedding_type\": null");
        TensorMap tensors = fixture_tensors(name);
        auto with_table = load_bytes(config, to_file(tensors));
        auto got = load_bytes(null_type, to_file(tensors));
        SF_ASSERT_OK(with_table.status());
        SF_ASSERT_OK(got.status());
        ASSERT_TRUE(tensors.count(table)) << table;
        std::fill(tensors[table].second.begin(), tensors[table].second.end(), 0.0f);
        auto zero_table = load_bytes(config, to_file(tensors));
        SF_ASSERT_OK(zero_table.status());
        const std::vector<float> want = golden_input_output(zero_table.value(), name);
        const std::vector<float> absolute = golden_input_output(with_table.value(), name);
        ASSERT_EQ(want.size(), absolute.size());
        EXPECT_GT(max_abs_diff(absolute.data(), want.data(), want.size()), 1e-3) << name << ": the table matters";
        EXPECT_EQ(golden_input_output(got.value(), name), want) << name;
        tensors.erase(table);
        auto without = load_bytes(null_type, to_file(tensors));
        SF_ASSERT_OK(without.status());
        EXPECT_EQ(golden_input_output(without.value(), name), want) << name;
        EXPECT_NE(got.value().info_json().find(R"("unused_tensors":[])"), std::string::npos) << got.value().info_json();
    }
    const std::string config = read_text(hf_path("bert/config.json"));
    const std::vector<uint8_t> bytes = to_file(fixture_tensors("bert"));
    for (const char* type : {"\"relative_key\"", "\"relative_key_query\"", "\"alibi\"", "1"})
        expect_error(load_bytes(replaced(config, "\"absolute\"", type), bytes).status(), StatusCode::kUnsupported,
                     {"position_embedding_type", type, "not supported"});
}

// Special-token ids that only generation defaults and batch padding use are accepted whatever
// their value, as Hugging Face accepts them (a GPT-2 trained on a small vocabulary keeps
// GPT2Config's bos_token_id 50256), are none here, and info_json() reports them. Where an id
// shapes the forward pass (RoBERTa's positions count from pad_token_id) it must be in range.
TEST(HfConfig, GenerationOnlyTokenIdsOutsideTheVocabularyAreAcceptedAndReported) {
    const auto info_of = [](const Model& m) { return nlohmann::json::parse(m.info_json()); };
    {
        const std::string config = replaced(read_text(hf_path("gpt2/config.json")), "\"bos_token_id\": 1056", "\"bos_token_id\": 50256");
        auto m = load_bytes(config, to_file(fixture_tensors("gpt2")));
        SF_ASSERT_OK(m.status());
        const nlohmann::json info = info_of(m.value());
        EXPECT_TRUE(info["bos_token_id"].is_null()) << json_text(info);
        EXPECT_EQ(info["eos_token_id"], 1056);
        EXPECT_EQ(info["unused_token_ids"], nlohmann::json({{"bos_token_id", 50256}})) << json_text(info);
    }
    {
        const std::string config = replaced(read_text(hf_path("bert/config.json")), "\"pad_token_id\": 0", "\"pad_token_id\": 30522");
        auto m = load_bytes(config, to_file(fixture_tensors("bert")));
        SF_ASSERT_OK(m.status());
        EXPECT_EQ(info_of(m.value())["unused_token_ids"], nlohmann::json({{"pad_token_id", 30522}}));
        EXPECT_TRUE(info_of(m.value())["pad_token_id"].is_null());
    }
    const std::string roberta = replaced(read_text(hf_path("roberta/config.json")), "\"pad_token_id\": 1", "\"pad_token_id\": 5000");
    expect_error(load_bytes(roberta, to_file(fixture_tensors("roberta"))).status(), StatusCode::kInvalidArgument,
                 {"pad_token_id", "5000"});
}

// eos_token_id (and bos / pad) may be a list in a config Hugging Face loads (generation stops at
// any): GPT-2 and the encoders take it as the rotary decoders do, every in-vocabulary id a stop.
TEST(HfConfig, GenerationTokenIdListsAreAccepted) {
    const auto info_of = [](const Model& m) { return nlohmann::json::parse(m.info_json()); };
    {
        std::string config = replaced(read_text(hf_path("gpt2/config.json")), "\"eos_token_id\": 1056", "\"eos_token_id\": [1056, 50257, 7, 50256]");
        config = replaced(config, "\"bos_token_id\": 1056", "\"bos_token_id\": [1056]");
        auto m = load_bytes(config, to_file(fixture_tensors("gpt2")));
        SF_ASSERT_OK(m.status());
        const nlohmann::json info = info_of(m.value());
        EXPECT_EQ(info["eos_token_id"], 1056) << json_text(info);
        EXPECT_EQ(info["eos_token_ids"], nlohmann::json({1056, 7})) << json_text(info);
        EXPECT_EQ(info["bos_token_id"], 1056) << json_text(info);
        // Every id of the list outside the vocabulary, as a list (not only the last one).
        EXPECT_EQ(info["unused_token_ids"], nlohmann::json({{"eos_token_id", {50257, 50256}}})) << json_text(info);
    }
    {
        // Llama 3's list on a small vocabulary: none inside, all three reported; no eos at all.
        const std::string config = replaced(read_text(hf_path("gpt2/config.json")), "\"eos_token_id\": 1056", "\"eos_token_id\": [128001, 128008, 128009]");
        auto m = load_bytes(config, to_file(fixture_tensors("gpt2")));
        SF_ASSERT_OK(m.status());
        const nlohmann::json info = info_of(m.value());
        EXPECT_TRUE(info["eos_token_id"].is_null()) << json_text(info);
        EXPECT_EQ(info["eos_token_ids"], nlohmann::json::array()) << json_text(info);
        EXPECT_EQ(info["unused_token_ids"], nlohmann::json({{"eos_token_id", {128001, 128008, 128009}}})) << json_text(info);
    }
    {
        const std::string config = replaced(read_text(hf_path("bert/config.json")), "\"pad_token_id\": 0", "\"pad_token_id\": [0], \"eos_token_id\": [102, 101]");
        auto m = load_bytes(config, to_file(fixture_tensors("bert")));
        SF_ASSERT_OK(m.status());
        const nlohmann::json info = info_of(m.value());
        EXPECT_EQ(info["pad_token_id"], 0) << json_text(info);
        EXPECT_EQ(info["eos_token_ids"], nlohmann::json({102, 101})) << json_text(info);
    }
    expect_error(load_bytes(replaced(read_text(hf_path("bert/config.json")), "\"pad_token_id\": 0", "\"pad_token_id\": [\"0\"]"),
                            to_file(fixture_tensors("bert"))).status(),
                 StatusCode::kInvalidArgument, {"pad_token_id", "integers"});
}

TEST(HfConfig, DistilBertAliasesMustAgree) {
    const std::string config = read_text(hf_path("distilbert/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("distilbert/model.safetensors"));
    SF_ASSERT_OK(load_bytes(replaced(config, "\"dim\": 32", "\"dim\": 32, \"hidden_size\": 32"), bytes).status());
    expect_error(load_bytes(replaced(config, "\"dim\": 32", "\"dim\": 32, \"hidden_size\": 64"), bytes).status(),
                 StatusCode::kInvalidArgument, {"dim", "hidden_size", "disagree"});
}

// DistilBertConfig's activation key is "activation"; "hidden_act" is not one of its aliases
// (attribute_map has dim, n_heads, n_layers only), so HF leaves a stray hidden_act unread and
// keeps activation (default gelu). A config carrying both must compute the golden's gelu.
TEST(HfConfig, DistilBertReadsActivationNotHiddenAct) {
    const std::string config = read_text(hf_path("distilbert/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("distilbert/model.safetensors"));
    const Golden g = load_golden("hf/distilbert/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1];
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    for (const std::string& edited : {replaced(config, "\"activation\": \"gelu\",", "\"activation\": \"gelu\", \"hidden_act\": \"relu\","),
                                      replaced(config, "\"activation\": \"gelu\",", "\"hidden_act\": \"relu\",")}) {
        auto m = load_bytes(edited, bytes);
        SF_ASSERT_OK(m.status());
        EXPECT_EQ(nlohmann::json::parse(m.value().info_json())["hidden_act"], "gelu") << edited;
        WorkspaceLimits limits;
        limits.max_batch = B;
        limits.max_src_len = n;
        auto ws = m.value().make_workspace(limits);
        SF_ASSERT_OK(ws.status());
        TextRequest r;
        r.n_batch = B;
        r.n_seq = n;
        r.tokens = ids.data();
        r.attention_mask = mask.data();
        SF_ASSERT_OK(m.value().forward_text(r, ws.value()));
        EXPECT_LT(max_abs_diff(ws.value().output(), g.at("last_hidden_state").data(), B * n * 32), kTolerance) << edited;
    }
}

// DistilBERT with sinusoidal_pos_embds and no position table in the file: HF fills the table
// with create_sinusoidal_embeddings (position_enc[pos][j] = pos / 10000^(2 (j // 2) / dim) in
// float64, sin in even columns, cos in odd ones, then float32), written out here from that
// definition. The model without the table computes what the model given that table computes;
// a table in the file still wins; without the flag a missing table is an error naming it.
TEST(HfConfig, DistilBertSinusoidalPositionsAreComputedWhenTheFileHasNone) {
    const std::string config = read_text(hf_path("distilbert/config.json"));
    const std::string sinusoidal = replaced(config, "\"sinusoidal_pos_embds\": false", "\"sinusoidal_pos_embds\": true");
    const std::string table_name = "distilbert.embeddings.position_embeddings.weight";
    const Golden g = load_golden("hf/distilbert/golden.safetensors");
    const size_t B = g.shapes.at("input_ids")[0], n = g.shapes.at("input_ids")[1], d = 32, n_pos = 40;
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    auto run = [&](const std::string& cfg, const TensorMap& tensors) {
        auto m = load_bytes(cfg, to_file(tensors));
        EXPECT_TRUE(m.is_ok()) << m.status().message();
        if (!m.is_ok()) return std::vector<float>();
        WorkspaceLimits limits;
        limits.max_batch = B;
        limits.max_src_len = n;
        auto ws = m.value().make_workspace(limits);
        EXPECT_TRUE(ws.is_ok());
        TextRequest r;
        r.n_batch = B;
        r.n_seq = n;
        r.tokens = ids.data();
        r.attention_mask = mask.data();
        EXPECT_TRUE(m.value().forward_text(r, ws.value()).is_ok());
        return std::vector<float>(ws.value().output(), ws.value().output() + B * n * d);
    };
    TensorMap with_table = fixture_tensors("distilbert");
    ASSERT_EQ(with_table.at(table_name).first, (Shape{n_pos, d}));
    std::vector<float> table(n_pos * d);
    for (size_t pos = 0; pos < n_pos; ++pos)
        for (size_t j = 0; j < d; ++j) {
            const double angle = double(pos) / std::pow(10000.0, double(2 * (j / 2)) / double(d));
            table[pos * d + j] = float(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    with_table[table_name].second = table;
    TensorMap without_table = with_table;
    without_table.erase(table_name);
    const std::vector<float> want = run(config, with_table);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(run(sinusoidal, without_table), want);
    // A table in the file is the one used (HF loads it over the initial sinusoids).
    const std::vector<float> golden(g.at("last_hidden_state").data(), g.at("last_hidden_state").data() + B * n * d);
    EXPECT_LT(max_abs_diff(run(sinusoidal, fixture_tensors("distilbert")), golden), kTolerance);
    expect_error(load_bytes(config, to_file(without_table)).status(), StatusCode::kInvalidArgument, {table_name});
}

// ---- forward_text: Hugging Face's masking and the checks of a request --------------------------

// ---- sequence-classification heads ---------------------------------------------------------------

nlohmann::json parsed_info(const Model& m) { return nlohmann::json::parse(m.info_json()); }

// forward_text with need_classifier on the bert_seqcls golden input.
Status classify_bert_golden(const Model& m) {
    const Golden g = load_golden("hf/bert_seqcls/golden.safetensors");
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    const Shape& shape = g.shapes.at("input_ids");
    TextRequest r;
    r.n_batch = shape[0];
    r.n_seq = shape[1];
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.need_classifier = true;
    auto ws = m.make_workspace(workspace_limits(r));
    if (!ws.is_ok()) return ws.status();
    return m.forward_text(r, ws.value());
}

std::string without_key(const std::string& config, const char* key, const nlohmann::json* num_labels = nullptr) {
    nlohmann::json j = nlohmann::json::parse(config);
    j.erase(key);
    if (num_labels) j["num_labels"] = *num_labels;
    return json_text(j);
}

TEST(HfClassifier, LabelsAndProblemTypeAreReadAsPretrainedConfigReadsThem) {
    const std::string config = read_text(hf_path("bert_seqcls/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("bert_seqcls/model.safetensors"));
    auto m = load_bytes(config, bytes);
    SF_ASSERT_OK(m.status());
    const nlohmann::json info = parsed_info(m.value());
    EXPECT_EQ(info["has_classifier"], true);
    EXPECT_EQ(info["num_labels"], 3);
    EXPECT_EQ(info["labels"], nlohmann::json({"negative", "neutral", "positive"}));
    EXPECT_TRUE(info["problem_type"].is_null());
    // A label id2label does not name is HF's default name.
    auto gap = load_bytes(replaced(config, "\"1\": \"neutral\"", "\"7\": \"neutral\""), bytes);
    SF_ASSERT_OK(gap.status());
    EXPECT_EQ(parsed_info(gap.value())["labels"], nlohmann::json({"negative", "LABEL_1", "positive"}));
    // Keys as Python's int() reads them (" 1", "+2" and "0_0" are 1, 2 and 0); values whatever
    // JSON gives, printed as Python's str() prints them (HF keeps the value as it is).
    std::string loose = replaced(config, "\"0\": \"negative\"", "\"0_0\": 5");
    loose = replaced(loose, "\"1\": \"neutral\"", "\" 1\\n\": true");
    loose = replaced(loose, "\"2\": \"positive\"", "\"+2\": null");
    auto python = load_bytes(loose, bytes);
    SF_ASSERT_OK(python.status());
    EXPECT_EQ(parsed_info(python.value())["labels"], nlohmann::json({"5", "True", "None"}));
    auto multi = load_bytes(replaced(config, "\"pad_token_id\": 0", "\"pad_token_id\": 0, \"problem_type\": \"regression\""), bytes);
    SF_ASSERT_OK(multi.status());
    EXPECT_EQ(parsed_info(multi.value())["problem_type"], "regression");
    // Without id2label, num_labels (default 2) sizes the classifier, as in HF.
    const nlohmann::json three = 3;
    auto counted = load_bytes(without_key(config, "id2label", &three), bytes);
    SF_ASSERT_OK(counted.status());
    EXPECT_EQ(parsed_info(counted.value())["labels"], nlohmann::json({"LABEL_0", "LABEL_1", "LABEL_2"}));
    expect_error(load_bytes(without_key(config, "id2label"), bytes).status(), StatusCode::kShapeMismatch,
                 {"classifier.weight", "[3, 32]", "[2, 32]"});
    // The models without the head: a bare BertModel and a GPT-2.
    auto bare = load_folder("bert");
    SF_ASSERT_OK(bare.status());
    EXPECT_EQ(parsed_info(bare.value())["has_classifier"], false);
    EXPECT_TRUE(parsed_info(bare.value())["labels"].is_null());
    expect_error(classify_bert_golden(bare.value()), StatusCode::kUnsupported, {"no sequence-classification head", "BertModel"});
}

TEST(HfClassifier, BadLabelsAndMissingHeadTensorsAreErrors) {
    const std::string config = read_text(hf_path("bert_seqcls/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("bert_seqcls/model.safetensors"));
    auto with = [&](const std::string& from, const std::string& to) { return load_bytes(replaced(config, from, to), bytes).status(); };
    expect_error(with("\"0\": \"negative\"", "\"zero\": \"negative\""), StatusCode::kInvalidArgument,
                 {"id2label", "zero", "not an integer"});
    for (const char* key : {"\"0.5\"", "\"1__0\"", "\"_1\"", "\" \"", "\"1 2\"", "\"0x1\""})
        expect_error(with("\"0\": \"negative\"", std::string(key) + ": \"negative\""), StatusCode::kInvalidArgument,
                     {"id2label", "not an integer"});
    expect_error(with("\"1\": \"neutral\"", "\"01\": \"neutral\", \"1\": \"neutral\""), StatusCode::kInvalidArgument,
                 {"id2label", "twice"});
    expect_error(with("\"pad_token_id\": 0", "\"pad_token_id\": 0, \"problem_type\": \"ranking\""),
                 StatusCode::kInvalidArgument, {"problem_type", "ranking"});
    nlohmann::json empty = nlohmann::json::parse(config);
    empty["id2label"] = nlohmann::json::object();
    expect_error(load_bytes(json_text(empty), bytes).status(), StatusCode::kInvalidArgument, {"id2label", "at least one label"});
    TensorMap tensors = fixture_tensors("bert_seqcls");
    TensorMap no_pooler = tensors;
    no_pooler.erase("bert.pooler.dense.weight");
    no_pooler.erase("bert.pooler.dense.bias");
    expect_error(load_bytes(config, to_file(no_pooler)).status(), StatusCode::kInvalidArgument,
                 {"BertForSequenceClassification", "bert.pooler.dense.weight"});
    TensorMap no_bias = tensors;
    no_bias.erase("classifier.bias");
    expect_error(load_bytes(config, to_file(no_bias)).status(), StatusCode::kInvalidArgument, {"classifier.bias"});
}

// id2label may name up to 2^20 labels: read in n log n steps (a check of every pair took minutes
// for half a million, hours for the most), then the head's shape decides; a duplicate among them
// is found too.
TEST(HfClassifier, HalfAMillionLabelsAreReadInNLogNSteps) {
    // 2^19 labels, where comparing every pair would take hours against the bound below. Under the
    // sanitizers (each JSON allocation ~100x slower in wasm-asan: 2^16 labels took 60-90 s there,
    // and CI once failed on the clock) 2^14 labels run the same code for memory errors only; the
    // step count is the release builds' to prove.
    const bool sanitized = kSanitizerSampleDivisor != 1;
    const size_t n = size_t{1} << (sanitized ? 14 : 19);
    nlohmann::json config = nlohmann::json::parse(read_text(hf_path("bert_seqcls/config.json")));
    const std::vector<uint8_t> bytes = read_file(hf_path("bert_seqcls/model.safetensors"));
    nlohmann::json labels = nlohmann::json::object();
    for (size_t i = 0; i < n; ++i) labels[std::to_string(i)] = "L" + std::to_string(i);
    config["id2label"] = labels;
    const auto start = std::chrono::steady_clock::now();
    expect_error(load_bytes(json_text(config), bytes).status(), StatusCode::kShapeMismatch,
                 {"classifier.weight", std::to_string(n)});
    // Every key respelled ("+0", "+1", ...: Python's int() reads them) and one label twice.
    nlohmann::json respelled = nlohmann::json::object();
    for (size_t i = 0; i + 1 < n; ++i) respelled["+" + std::to_string(i)] = "L" + std::to_string(i);
    respelled["07"] = "again";
    config["id2label"] = respelled;
    expect_error(load_bytes(json_text(config), bytes).status(), StatusCode::kInvalidArgument, {"id2label", "label 7 twice"});
    if (!sanitized) EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60.0);
}

// The class decides what `classifier` is: under BertForTokenClassification the same tensors are a
// token classifier (on every token), not a sequence classifier (on the pooler), and info says so.
TEST(HfClassifier, TheClassDecidesWhichHeadTheClassifierIs) {
    const std::string config = replaced(read_text(hf_path("bert_seqcls/config.json")), "BertForSequenceClassification",
                                        "BertForTokenClassification");
    auto m = load_bytes(config, read_file(hf_path("bert_seqcls/model.safetensors")));
    SF_ASSERT_OK(m.status());
    const nlohmann::json info = parsed_info(m.value());
    EXPECT_EQ(info["has_classifier"], false);
    EXPECT_EQ(info["has_token_classifier"], true);
    EXPECT_EQ(info["has_qa_head"], false);
    EXPECT_EQ(info["labels"], nlohmann::json({"negative", "neutral", "positive"}));
    EXPECT_EQ(info["unused_tensors"], nlohmann::json::array());
    expect_error(classify_bert_golden(m.value()), StatusCode::kUnsupported, {"BertForTokenClassification"});
    // Another head class (not one simdformer runs) leaves the tensors unused and reported.
    auto other = load_bytes(replaced(config, "BertForTokenClassification", "BertForMultipleChoice"),
                            read_file(hf_path("bert_seqcls/model.safetensors")));
    SF_ASSERT_OK(other.status());
    EXPECT_EQ(parsed_info(other.value())["unused_tensors"], nlohmann::json({"classifier.bias", "classifier.weight"}));
    EXPECT_EQ(parsed_info(other.value())["has_token_classifier"], false);
}

// XLM-RoBERTa: RoBERTa's adapter under its own row, chosen by model_type or, without one, by
// the XLMRoberta class prefix (which the Roberta row must not claim).
TEST(HfXlmRoberta, ItsOwnRowWithRobertasMath) {
    const std::string config = read_text(hf_path("xlmr_seqcls/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path("xlmr_seqcls/model.safetensors"));
    auto m = load_bytes(config, bytes);
    SF_ASSERT_OK(m.status());
    EXPECT_EQ(parsed_info(m.value())["architecture"], "xlm-roberta");
    EXPECT_EQ(parsed_info(m.value())["model_type"], "xlm-roberta");
    nlohmann::json no_type = nlohmann::json::parse(config);
    no_type.erase("model_type");
    auto by_class = load_bytes(json_text(no_type), bytes);
    SF_ASSERT_OK(by_class.status());
    EXPECT_EQ(parsed_info(by_class.value())["architecture"], "xlm-roberta");
}

// The per-token heads: shapes checked against the config, a request for a head the checkpoint
// lacks is unsupported and names its class.
TEST(HfTokenHeads, ShapesAndMissingHeads) {
    const std::string qa_config = read_text(hf_path("bert_qa/config.json"));
    const std::vector<uint8_t> qa_bytes = read_file(hf_path("bert_qa/model.safetensors"));
    auto qa = load_bytes(qa_config, qa_bytes);
    SF_ASSERT_OK(qa.status());
    EXPECT_EQ(parsed_info(qa.value())["has_qa_head"], true);
    EXPECT_TRUE(parsed_info(qa.value())["labels"].is_null());
    // qa_outputs must have two outputs (start, end): a token-classification config over the same
    // file reads `classifier.`, which it lacks.
    expect_error(load_bytes(replaced(qa_config, "BertForQuestionAnswering", "BertForTokenClassification"), qa_bytes).status(),
                 StatusCode::kInvalidArgument, {"classifier.weight"});
    TensorMap tensors = fixture_tensors("bert_tokcls");
    const std::string tok_config = read_text(hf_path("bert_tokcls/config.json"));
    nlohmann::json fewer = nlohmann::json::parse(tok_config);
    fewer["id2label"] = {{"0", "O"}, {"1", "B-PER"}};
    expect_error(load_bytes(json_text(fewer), to_file(tensors)).status(), StatusCode::kShapeMismatch, {"classifier.weight"});
    auto bare = load_folder("bert");
    SF_ASSERT_OK(bare.status());
    const Golden g = load_golden("hf/bert/golden.safetensors");
    const std::vector<int32_t> ids = g.tokens("input_ids");
    TextRequest r;
    r.n_batch = g.shapes.at("input_ids")[0];
    r.n_seq = g.shapes.at("input_ids")[1];
    r.tokens = ids.data();
    r.need_token_logits = true;
    auto ws = bare.value().make_workspace(workspace_limits(r));
    SF_ASSERT_OK(ws.status());
    expect_error(bare.value().forward_text(r, ws.value()), StatusCode::kUnsupported,
                 {"no token-classification or question-answering head", "BertModel"});
}

TEST(HfForward, AFullyPaddedRowGetsUniformWeightsAsInHuggingFace) {
    auto m = load_folder("bert");
    SF_ASSERT_OK(m.status());
    const size_t n = 5;
    const std::vector<int32_t> ids = {2, 100, 101, 3, 0, 2, 7, 3, 0, 0};
    const std::vector<uint8_t> mask = {1, 1, 1, 1, 0, 0, 0, 0, 0, 0};  // item 1: every key padding
    WorkspaceLimits limits;
    limits.max_batch = 2;
    limits.max_src_len = n;
    auto ws = m.value().make_workspace(limits);
    SF_ASSERT_OK(ws.status());
    TextRequest r;
    r.n_batch = 2;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.need_weights = true;
    SF_ASSERT_OK(m.value().forward_text(r, ws.value()));
    const AttentionMap& a = ws.value().encoder_attention()[1];
    for (size_t h = 0; h < a.nhead; ++h)
        for (size_t q = 0; q < n; ++q) {
            const float* item0 = a.data + ((0 * a.nhead + h) * n + q) * n;
            const float* item1 = a.data + ((1 * a.nhead + h) * n + q) * n;
            EXPECT_EQ(item0[4], 0.0f);  // a padding key among real ones gets nothing
            for (size_t k = 0; k < n; ++k) EXPECT_FLOAT_EQ(item1[k], 1.0f / float(n));
        }
}

TEST(HfForward, BadRequestsNameTheProblemAndTheModelStaysUsable) {
    auto loaded = load_folder("bert");
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    WorkspaceLimits limits;
    limits.max_batch = 1;
    limits.max_src_len = 4;
    auto ws = m.make_workspace(limits);
    SF_ASSERT_OK(ws.status());
    std::vector<int32_t> ids = {2, 5, 6, 3}, types = {0, 0, 1, 1}, rows = {1};
    std::vector<uint8_t> mask = {1, 1, 1, 1};
    auto run = [&](auto change) {
        TextRequest r;
        r.n_seq = 4;
        r.tokens = ids.data();
        r.token_types = types.data();
        r.attention_mask = mask.data();
        change(r);
        return m.forward_text(r, ws.value());
    };
    SF_ASSERT_OK(run([](TextRequest&) {}));
    const std::vector<float> good(ws.value().output(), ws.value().output() + 4 * 32);
    ids[2] = 626;
    expect_error(run([](TextRequest&) {}), StatusCode::kInvalidArgument, {"token id 626 at index 2", "[0, 626)"});
    ids[2] = 6;
    types[3] = 2;
    expect_error(run([](TextRequest&) {}), StatusCode::kInvalidArgument, {"token type 2 at index 3", "[0, 2)"});
    types[3] = 1;
    mask[1] = 2;
    expect_error(run([](TextRequest&) {}), StatusCode::kInvalidArgument, {"attention_mask holds 2 at index 1"});
    mask[1] = 1;
    expect_error(run([](TextRequest& r) { r.n_seq = 41; }), StatusCode::kInvalidArgument, {"n_seq=41", "40 positions"});
    expect_error(run([](TextRequest& r) { r.n_seq = 5; }), StatusCode::kInvalidArgument, {"n_seq=5", "workspace"});
    expect_error(run([](TextRequest& r) { r.n_batch = 2; }), StatusCode::kInvalidArgument, {"n_batch=2"});
    expect_error(run([&](TextRequest& r) {
                     r.logits_rows = rows.data();
                     r.n_logits_rows = 1;
                 }),
                 StatusCode::kInvalidArgument, {"no masked-LM head"});
    expect_error(run([](TextRequest& r) { r.tokens = nullptr; }), StatusCode::kInvalidArgument, {"tokens"});
    ForwardRequest torch_request;
    expect_error(m.forward(torch_request, ws.value()), StatusCode::kInvalidArgument, {"forward_text"});
    SF_ASSERT_OK(run([](TextRequest&) {}));
    EXPECT_EQ(std::vector<float>(ws.value().output(), ws.value().output() + 4 * 32), good);

    auto mlm = load_folder("bert_mlm_f16");
    SF_ASSERT_OK(mlm.status());
    limits.max_logits_rows = 2;
    auto ws2 = mlm.value().make_workspace(limits);
    SF_ASSERT_OK(ws2.status());
    TextRequest r;
    r.n_seq = 4;
    r.tokens = ids.data();
    std::vector<int32_t> bad_rows = {3, 4};
    r.logits_rows = bad_rows.data();
    r.n_logits_rows = 2;
    expect_error(mlm.value().forward_text(r, ws2.value()), StatusCode::kInvalidArgument, {"logits row 4 at index 1", "[0, 4)"});
    r.n_logits_rows = 3;
    expect_error(mlm.value().forward_text(r, ws2.value()), StatusCode::kInvalidArgument, {"max_logits_rows=2"});
    r.need_pooler = true;
    r.n_logits_rows = 1;
    expect_error(mlm.value().forward_text(r, ws2.value()), StatusCode::kInvalidArgument, {"no pooler"});
}

TEST(HfInfo, NormalizedConfigInOneVocabulary) {
    auto m = load_folder("roberta");
    SF_ASSERT_OK(m.status());
    const std::string info = m.value().info_json();
    for (const char* part : {R"("architecture":"roberta")", R"("max_positions":40)", R"("pad_token_id":1)",
                             R"("type_vocab_size":1)", R"("has_mlm_head":true)", R"("has_pooler":false)",
                             R"("dtype":"F32")", R"("weights":"f32")", R"("d_model":32)", R"("n_layers":2)",
                             R"("vocab_size":1061)", R"("config":{)", R"("transformers_version":"4.46.3")"})
        EXPECT_NE(info.find(part), std::string::npos) << part << " not in " << info;
    auto d = load_folder("distilbert");
    SF_ASSERT_OK(d.status());
    EXPECT_NE(d.value().info_json().find(R"("layer_norm_eps":1e-12)"), std::string::npos) << d.value().info_json();
}

// ---- streaming: how bytes arrive never changes the model --------------------------------------

TEST(HfStreaming, ChunkedFileAndMemoryLoadsGiveBitIdenticalModels) {
    const std::string dir = "bert_mlm_f16";  // F16: every chunk goes through the conversion buffer
    const std::string config = read_text(hf_path(dir + "/config.json"));
    const std::vector<uint8_t> bytes = read_file(hf_path(dir + "/model.safetensors"));
    auto run = [&](const Model& m) {
        const Golden g = load_golden("hf/" + dir + "/golden.safetensors");
        const std::vector<int32_t> ids = g.tokens("input_ids"), rows = {0, 5, 17, 47};
        const std::vector<uint8_t> mask = g.mask("attention_mask");
        WorkspaceLimits limits;
        limits.max_batch = 3;
        limits.max_src_len = 16;
        limits.max_logits_rows = rows.size();
        auto ws = m.make_workspace(limits);
        TextRequest r;
        r.n_batch = 3;
        r.n_seq = 16;
        r.tokens = ids.data();
        r.attention_mask = mask.data();
        r.logits_rows = rows.data();
        r.n_logits_rows = rows.size();
        const Status st = m.forward_text(r, ws.value());
        EXPECT_TRUE(st.is_ok()) << st.message();
        std::vector<float> out(ws.value().output(), ws.value().output() + 3 * 16 * 32);
        out.insert(out.end(), ws.value().logits(), ws.value().logits() + rows.size() * 626);
        return out;
    };
    MemorySource whole(bytes.data(), bytes.size());
    auto a = Model::load_checkpoint(config, {{"model.safetensors", &whole}}, "");
    SF_ASSERT_OK(a.status());
    LoadOptions tiny;
    tiny.chunk_bytes = 64;  // 32 halves per read: many chunks per row of every tensor
    auto b = Model::load_checkpoint(config, {{"model.safetensors", &whole}}, "", tiny);
    SF_ASSERT_OK(b.status());
    auto c = load_folder(dir);
    SF_ASSERT_OK(c.status());
    const std::vector<float> want = run(a.value());
    EXPECT_EQ(run(b.value()), want);
    EXPECT_EQ(run(c.value()), want);
}

// ---- memory: a checkpoint of > 100 MB loads with little more than its packed weights ----------

// A BERT-shaped checkpoint (one layer, d = 768, vocab 30522: 122 MB of F32) whose tensor data is
// computed on read, so the test holds no copy of the file and the Buffer counters see only what
// the loader allocates.
struct BertShape {
    size_t d = 768, ff = 3072, vocab = 30522, positions = 512, layers = 1;
};

class SyntheticBert : public ByteSource {
public:
    explicit SyntheticBert(const BertShape& shape = {}) {
        const size_t d = shape.d, ff = shape.ff;
        add("embeddings.word_embeddings.weight", {shape.vocab, d});
        add("embeddings.position_embeddings.weight", {shape.positions, d});
        add("embeddings.token_type_embeddings.weight", {2, d});
        add("embeddings.LayerNorm.weight", {d});
        add("embeddings.LayerNorm.bias", {d});
        for (size_t i = 0; i < shape.layers; ++i) add_layer("encoder.layer." + std::to_string(i) + ".", d, ff);
        header_ += "}";
        const uint64_t n = header_.size();
        for (int i = 0; i < 8; ++i) prefix_.push_back(uint8_t(n >> (8 * i)));
        prefix_.insert(prefix_.end(), header_.begin(), header_.end());
    }
    uint64_t size() const override { return prefix_.size() + data_bytes_; }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override {
        SF_RETURN_IF_ERROR(check_range(offset, n, size(), "synthetic"));
        for (size_t i = 0; i < n; ++i, ++offset) {
            if (offset < prefix_.size()) {
                dst[i] = prefix_[offset];
                continue;
            }
            // Float k of the data section: a small value in [-0.05, 0.05) from a hash of k.
            const uint64_t k = (offset - prefix_.size()) / 4;
            const float v = float(uint32_t(k * 2654435761u) >> 8) / float(1 << 24) * 0.1f - 0.05f;
            uint8_t b[4];
            std::memcpy(b, &v, 4);
            dst[i] = b[(offset - prefix_.size()) % 4];
        }
        return Status::ok();
    }
    uint64_t floats() const { return data_bytes_ / 4; }
    size_t largest_tensor_bytes = 0;

private:
    void add_layer(const std::string& l, size_t d, size_t ff) {
        for (const char* p : {"attention.self.query.", "attention.self.key.", "attention.self.value.", "attention.output.dense."}) {
            add(l + p + "weight", {d, d});
            add(l + p + "bias", {d});
        }
        add(l + "intermediate.dense.weight", {ff, d});
        add(l + "intermediate.dense.bias", {ff});
        add(l + "output.dense.weight", {d, ff});
        add(l + "output.dense.bias", {d});
        for (const char* p : {"attention.output.LayerNorm.", "output.LayerNorm."}) {
            add(l + p + "weight", {d});
            add(l + p + "bias", {d});
        }
    }

public:

private:
    void add(const std::string& name, const Shape& shape) {
        size_t count = 1;
        for (size_t s : shape) count *= s;
        header_ += (header_.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":" +
                   shape_string(shape) + ",\"data_offsets\":[" + std::to_string(data_bytes_) + "," +
                   std::to_string(data_bytes_ + 4 * count) + "]}";
        data_bytes_ += 4 * count;
        largest_tensor_bytes = std::max(largest_tensor_bytes, 4 * count);
    }
    std::string header_ = "{";
    std::vector<uint8_t> prefix_;
    uint64_t data_bytes_ = 0;
};

TEST(HfMemory, LoadPeakIsThePackedWeightsPlusBoundedStaging) {
    SyntheticBert file;
    ASSERT_GE(file.size(), 100u << 20);
    const std::string config = R"({"architectures":["BertModel"],"model_type":"bert","hidden_size":768,
        "num_hidden_layers":1,"num_attention_heads":12,"intermediate_size":3072,"vocab_size":30522})";
    const size_t before = Buffer::live_bytes();
    Buffer::reset_peak_live_bytes();
    auto m = Model::load_checkpoint(config, {{"model.safetensors", &file}}, "");
    SF_ASSERT_OK(m.status());
    const size_t weights = Buffer::live_bytes() - before;  // the packed model, as it stays
    const size_t peak = Buffer::peak_live_bytes() - before;
    std::printf("[ load ] file %.1f MiB, weights %.1f MiB, peak %.1f MiB (+%.2f MiB), largest tensor %.1f MiB\n",
                double(file.size()) / 1048576, double(weights) / 1048576, double(peak) / 1048576,
                double(peak - weights) / 1048576, double(file.largest_tensor_bytes) / 1048576);
    // Issue 9's bound is weights + largest tensor + 10 %; streaming keeps it to two 1 MiB chunks.
    EXPECT_LE(double(peak), (double(weights) + double(file.largest_tensor_bytes)) * 1.10);
    EXPECT_LE(peak - weights, size_t(3) << 20);
    EXPECT_EQ(m.value().parameter_count(), file.floats());  // every float of the file is one parameter
}

// Issue 28's sequence, as the bindings run it: a workspace kept across calls once grew each limit
// to the maximum ever seen, independently, so after embedding 64 texts one 512-token call with
// every attention map asked for a 64 x 512 workspace with all maps (here 12 layers x 12 heads:
// 9.6 GB, out_of_memory) although each call fits alone. Sized per call, both run.
TEST(HfWorkspace, SixtyFourShortTextsThenOneLongTextWithAttentionBothRun) {
    BertShape shape;
    shape.d = 12;
    shape.ff = 24;
    shape.vocab = 50;
    shape.layers = 12;
    SyntheticBert file(shape);
    const std::string config = R"({"architectures":["BertModel"],"model_type":"bert","hidden_size":12,
        "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":24,"vocab_size":50})";
    auto loaded = Model::load_checkpoint(config, {{"model.safetensors", &file}}, "");
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    std::optional<Workspace> ws;
    const auto run = [&](size_t batch, size_t n, bool weights) {
        std::vector<int32_t> ids(batch * n);
        for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t(1 + i % 40);
        TextRequest r;
        r.n_batch = batch;
        r.n_seq = n;
        r.tokens = ids.data();
        r.need_weights = weights;
        SF_RETURN_IF_ERROR(m.ensure_workspace(&ws, workspace_limits(r)));
        return m.forward_text(r, *ws);
    };
    SF_ASSERT_OK(run(64, 16, false));   // model.embed(64 texts)
    SF_ASSERT_OK(run(1, 512, true));    // model.encodeText(512 tokens, { returnAttention: true })
    ASSERT_EQ(ws->encoder_attention().size(), 12u);
    EXPECT_EQ(ws->encoder_attention()[11].n_seq_k, 512u);
    EXPECT_EQ(ws->limits().max_batch, 1u);
    SF_ASSERT_OK(run(64, 16, false));   // and back
}

// Sweep (issues 32/33 acceptance): the config.json files of popular public checkpoints, as their
// repositories publish them (tests/data/hf/real_configs/configs.json: every field, real sizes),
// each loaded on the fixture of the same architecture and head: the fixture's sizes replace the
// real ones (a size the fixture lacks is removed), and a label map longer or shorter than the
// fixture's classifier keeps its first labels. Everything else -- token ids outside the small
// vocabulary, torch_dtype bfloat16 over float32 weights, rope_scaling null or llama3, integer
// rope_theta, sliding_window with use_sliding_window false, eos_token_id lists, n_ctx, the
// extra keys (pooler_*, summary_*, task_specific_params, transformers.js_config, ...) -- is the
// real file's, and loads as transformers loads it.
nlohmann::json real_config_on_fixture(const nlohmann::json& real, const nlohmann::json& fixture) {
    nlohmann::json c = real;
    for (const char* key : {"hidden_size", "intermediate_size", "num_attention_heads", "num_hidden_layers",
                            "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings", "type_vocab_size",
                            "dim", "hidden_dim", "n_heads", "n_layers", "n_embd", "n_head", "n_layer", "n_positions",
                            "n_inner"}) {
        if (fixture.contains(key))
            c[key] = fixture[key];
        else
            c.erase(key);
    }
    const size_t labels = fixture.contains("id2label") ? fixture["id2label"].size() : 0;
    if (c.contains("id2label") && labels > 0 && c["id2label"].size() != labels) {
        nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
        for (size_t i = 0; i < labels; ++i) {
            const std::string name = c["id2label"].value(std::to_string(i), "LABEL_" + std::to_string(i));
            id2label[std::to_string(i)] = name;
            label2id[name] = i;
        }
        c["id2label"] = id2label;
        if (c.contains("label2id")) c["label2id"] = label2id;
        if (c.contains("_num_labels")) c["_num_labels"] = labels;
    }
    return c;
}

TEST(HfConfig, PopularCheckpointsConfigsLoadAsTransformersLoadsThem) {
    const nlohmann::json cases = nlohmann::json::parse(read_text(hf_path("real_configs/configs.json")));
    size_t loaded = 0;
    for (const auto& [name, entry] : cases.items()) {
        const std::string fixture = entry["fixture"].get<std::string>();
        const nlohmann::json fc = nlohmann::json::parse(read_text(hf_path(fixture + "/config.json")));
        const nlohmann::json c = real_config_on_fixture(entry["config"], fc);
        auto m = load_bytes(c.dump(), read_file(hf_path(fixture + "/model.safetensors")));
        EXPECT_TRUE(m.is_ok()) << name << ": " << m.status().message();
        if (!m.is_ok()) continue;
        // What the loader made of the file, where HF's meaning is easy to get wrong (labels,
        // windows, rotary types, tied heads, ids outside the vocabulary), as info_json reports it.
        const nlohmann::json info = nlohmann::json::parse(m.value().info_json());
        const nlohmann::json expect = entry.value("expect", nlohmann::json::object());
        for (const auto& [key, want] : expect.items())
            EXPECT_EQ(info[key], want) << name << ": info." << key;
        ++loaded;
    }
    EXPECT_EQ(loaded, cases.size());
}

}  // namespace
}  // namespace simdformer::test
