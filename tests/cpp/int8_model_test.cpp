// int8 models: Hugging Face fixtures and nn.Transformer-dialect goldens loaded with
// {"weights": "int8"} (quantized as they load) and from pre-quantized files written by
// scripts/quantize.py (tests/data/int8/), against the f32 PyTorch outputs: cosine similarity of
// every layer's hidden states >= 0.999 and of sentence embeddings >= 0.995; the two int8 paths
// give identical results; int8 weights take about a quarter of the memory.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <tuple>

#include <nlohmann/json.hpp>

#include "int8_reference.h"
#include "simdformer/io/json_text.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/layers/linear.h"
#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kLayerCosine = 0.999;
constexpr double kSentenceCosine = 0.995;

LoadOptions int8_options() {
    LoadOptions o;
    o.weights = WeightFormat::kInt8;
    return o;
}

struct Case {
    std::string name;
    std::vector<std::string> files = {"model.safetensors"};
    bool sharded = false;
};
std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// The folder's config with only the first `layers` layers (the hidden state after layer l of
// the full model is the last hidden state of its first l layers).
std::string truncated_config(const std::string& folder, size_t layers) {
    nlohmann::json c = nlohmann::json::parse(read_text(data_path(folder + "/config.json")));
    c[c.contains("n_layers") ? "n_layers" : "num_hidden_layers"] = layers;
    return json_text(c);
}

Result<Model> load_text_model(const std::string& folder, const Case& c, const std::string& config,
                              const LoadOptions& options) {
    CheckpointFiles f = open_checkpoint_files(folder, c.files, c.sharded);
    return Model::load_checkpoint(config, f.shards, f.index, options);
}

// The golden inputs of a case and a forward pass over them.
struct TextRun {
    size_t B = 0, n = 0, d = 0;
    std::vector<int32_t> ids, types;
    std::vector<uint8_t> mask;
    std::vector<float> hidden;                // [B * n, d]
    std::vector<std::vector<float>> attention;  // per layer
};

TextRun run_text(const Model& m, const Golden& g) {
    TextRun t;
    const Shape& shape = g.shapes.at("input_ids");
    t.B = shape[0];
    t.n = shape[1];
    t.d = m.config().d_model;
    t.ids = g.tokens("input_ids");
    t.mask = g.mask("attention_mask");
    if (g.values.count("token_type_ids")) t.types = g.tokens("token_type_ids");
    WorkspaceLimits limits;
    limits.max_batch = t.B;
    limits.max_src_len = t.n;
    auto ws = m.make_workspace(limits);
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    if (!ws.is_ok()) return t;
    TextRequest r;
    r.n_batch = t.B;
    r.n_seq = t.n;
    r.tokens = t.ids.data();
    r.token_types = t.types.empty() ? nullptr : t.types.data();
    r.attention_mask = t.mask.data();
    r.need_weights = true;
    const Status st = m.forward_text(r, ws.value());
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st.is_ok()) return t;
    t.hidden.assign(ws.value().output(), ws.value().output() + t.B * t.n * t.d);
    for (const AttentionMap& a : ws.value().encoder_attention())
        t.attention.emplace_back(a.data, a.data + a.n_batch * a.nhead * a.n_seq_q * a.n_seq_k);
    return t;
}

// The rows of real tokens (attention_mask = 1) of a [B * n, d] array, concatenated.
std::vector<float> real_rows(const std::vector<float>& x, const std::vector<uint8_t>& mask, size_t d) {
    std::vector<float> out;
    for (size_t i = 0; i < mask.size(); ++i)
        if (mask[i]) out.insert(out.end(), x.begin() + i * d, x.begin() + (i + 1) * d);
    return out;
}

// Lowest cosine similarity of a real token's row.
double min_row_cosine(const std::vector<float>& a, const std::vector<float>& b, const std::vector<uint8_t>& mask,
                      size_t d) {
    double lo = 1.0;
    for (size_t i = 0; i < mask.size(); ++i)
        if (mask[i]) lo = std::min(lo, cosine_similarity(a.data() + i * d, b.data() + i * d, d));
    return lo;
}

// Mean over real tokens, then L2-normalised: sentence-transformers' mean pooling + Normalize.
std::vector<float> sentence_embeddings(const TextRun& t) {
    std::vector<float> out(t.B * t.d, 0.0f);
    for (size_t b = 0; b < t.B; ++b) {
        std::vector<double> sum(t.d, 0.0);
        size_t count = 0;
        for (size_t i = 0; i < t.n; ++i) {
            if (!t.mask[b * t.n + i]) continue;
            ++count;
            for (size_t j = 0; j < t.d; ++j) sum[j] += t.hidden[(b * t.n + i) * t.d + j];
        }
        double norm = 0;
        for (double& v : sum) {
            v /= double(std::max<size_t>(count, 1));
            norm += v * v;
        }
        norm = std::sqrt(norm);
        for (size_t j = 0; j < t.d; ++j) out[b * t.d + j] = float(sum[j] / std::max(norm, 1e-12));
    }
    return out;
}

class HfInt8 : public ::testing::TestWithParam<Case> {};

TEST_P(HfInt8, EveryLayerAndTheSentenceEmbeddingsStayCloseToF32) {
    const Case& c = GetParam();
    const std::string folder = "hf/" + c.name;
    const Golden g = load_golden(folder + "/golden.safetensors");
    auto full = load_text_model(folder, c, read_text(data_path(folder + "/config.json")), int8_options());
    SF_ASSERT_OK(full.status());
    const size_t layers = full.value().config().num_encoder_layers;
    EXPECT_EQ(nlohmann::json::parse(full.value().info_json())["weights"], "int8");
    const TextRun run = run_text(full.value(), g);
    ASSERT_FALSE(run.hidden.empty());
    for (size_t l = 1; l <= layers; ++l) {
        TextRun t = run;
        if (l < layers) {
            auto part = load_text_model(folder, c, truncated_config(folder, l), int8_options());
            SF_ASSERT_OK(part.status());
            t = run_text(part.value(), g);
        }
        const std::vector<float>& want = g.at("hidden_states." + std::to_string(l));
        const double cos = cosine_similarity(real_rows(t.hidden, t.mask, t.d), real_rows(want, t.mask, t.d));
        const double row_cos = min_row_cosine(t.hidden, want, t.mask, t.d);
        EXPECT_GE(cos, kLayerCosine) << "hidden_states." << l;
        EXPECT_GE(row_cos, 0.995) << "hidden_states." << l << " (worst token)";
        RecordProperty("cos_layer" + std::to_string(l), std::to_string(cos));
        RecordProperty("min_token_cos_layer" + std::to_string(l), std::to_string(row_cos));
    }
    // Attention maps: reported, not bounded (the issue asks for the number).
    for (size_t l = 0; l < layers; ++l) {
        const double diff = max_abs_diff(run.attention[l], g.at("attentions." + std::to_string(l)));
        RecordProperty("attention_max_abs_diff_layer" + std::to_string(l), std::to_string(diff));
        EXPECT_LT(diff, 0.1) << "attentions." << l;
    }
    if (g.values.count("sentence_embedding")) {
        const std::vector<float> got = sentence_embeddings(run);
        const std::vector<float>& want = g.at("sentence_embedding");
        for (size_t b = 0; b < run.B; ++b) {
            const double cos = cosine_similarity(got.data() + b * run.d, want.data() + b * run.d, run.d);
            EXPECT_GE(cos, kSentenceCosine) << "sentence " << b;
            RecordProperty("sentence_cos_" + std::to_string(b), std::to_string(cos));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HfInt8,
    ::testing::Values(Case{"bert"}, Case{"bert_mlm_f16"}, Case{"bert_pretraining_bf16"}, Case{"bert_relu_unigram"},
                      Case{"bert_sharded", {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}, true},
                      Case{"roberta"}, Case{"distilbert"}),
    case_name);

// ---- pre-quantized files (scripts/quantize.py) ------------------------------------------------

class PrequantizedHf : public ::testing::TestWithParam<std::string> {};

TEST_P(PrequantizedHf, LoadsWithoutOptionsAndEqualsQuantizingAtLoad) {
    const std::string name = GetParam();
    const Golden g = load_golden("hf/" + name + "/golden.safetensors");
    const Case c{name};
    auto at_load = load_text_model("hf/" + name, c, read_text(data_path("hf/" + name + "/config.json")), int8_options());
    SF_ASSERT_OK(at_load.status());
    const std::string config = read_text(data_path("int8/" + name + "/config.json"));
    for (const LoadOptions& options : {LoadOptions{}, int8_options()}) {
        auto pre = load_text_model("int8/" + name, c, config, options);
        SF_ASSERT_OK(pre.status());
        const auto info = nlohmann::json::parse(pre.value().info_json());
        EXPECT_EQ(info["weights"], "int8");
        EXPECT_EQ(info["parameters"], nlohmann::json::parse(at_load.value().info_json())["parameters"]);
        EXPECT_TRUE(info["unused_tensors"].empty()) << json_text(info["unused_tensors"]);  // every _scale used
        const TextRun a = run_text(at_load.value(), g), b = run_text(pre.value(), g);
        ASSERT_FALSE(a.hidden.empty());
        EXPECT_EQ(a.hidden, b.hidden);  // the same int8 values and scales: identical results
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, PrequantizedHf, ::testing::Values("bert", "roberta", "distilbert"));

TEST(Prequantized, FilesAreSmallerAndNamedByTheConvention) {
    const std::vector<uint8_t> f32 = read_file(data_path("hf/bert/model.safetensors"));
    const std::vector<uint8_t> i8 = read_file(data_path("int8/bert/model.safetensors"));
    auto file = SafetensorsFile::parse(i8.data(), i8.size());
    SF_ASSERT_OK(file.status());
    size_t quantized = 0;
    for (const TensorInfo& t : file.value().tensors()) {
        if (t.dtype != DType::kI8) continue;
        ++quantized;
        const TensorInfo* s = file.value().find(t.name + "_scale");
        ASSERT_NE(s, nullptr) << t.name;
        EXPECT_EQ(s->dtype, DType::kF32);
        EXPECT_EQ(s->shape, Shape{t.shape[0]}) << t.name;
    }
    EXPECT_EQ(quantized, 14u);  // word embeddings, 2 x 6 layer weights, pooler
    // The tiny fixture keeps f32 position embeddings and biases, so less than 4x here.
    EXPECT_LT(double(i8.size()), 0.35 * double(f32.size()));
    EXPECT_EQ(file.value().metadata("quantization"), "int8 per output channel (symmetric)");
}

TEST(Prequantized, MissingOrBadScalesAreErrorsThatNameTheTensor) {
    MapWeightReader r;
    r.put_i8("w", {2, 3}, {1, 2, 3, -4, 5, -6});
    LinearRef ref{"w", ""};
    auto missing = Linear::load(r, ref, 3, 2);
    ASSERT_FALSE(missing.is_ok());
    EXPECT_NE(missing.status().message().find("'w_scale'"), std::string::npos) << missing.status().message();
    r.put("w_scale", {2}, {0.5f, -1.0f});
    auto negative = Linear::load(r, ref, 3, 2);
    ASSERT_FALSE(negative.is_ok());
    EXPECT_NE(negative.status().message().find("negative"), std::string::npos) << negative.status().message();
    r.put("w_scale", {3}, {0.5f, 1.0f, 1.0f});
    auto shape = Linear::load(r, ref, 3, 2);
    ASSERT_FALSE(shape.is_ok());
    EXPECT_NE(shape.status().message().find("[3]"), std::string::npos) << shape.status().message();
    r.put("w_scale", {2}, {0.5f, 0.25f});
    auto ok = Linear::load(r, ref, 3, 2);
    SF_ASSERT_OK(ok.status());
    EXPECT_TRUE(ok.value().int8());
    // y = x Wᵀ with W = scale * q, exact for this x (one activation level per unit).
    const float x[3] = {1.0f, 0.0f, -1.0f};
    float y[2];
    ok.value().forward(1, x, 3, y, 2);
    EXPECT_NEAR(y[0], 0.5f * (1 - 3), 1e-2);
    EXPECT_NEAR(y[1], 0.25f * (-4 + 6), 1e-2);
    float row[3];
    ok.value().weight_row(1, row);
    EXPECT_EQ(row[0], -1.0f);
    EXPECT_EQ(row[1], 1.25f);
    EXPECT_EQ(row[2], -1.5f);
}

// ---- Linear: both layouts, fused slices, small chunks --------------------------------------------

// A safetensors file with any dtypes (write_safetensors writes F32 only): name -> (dtype, shape, bytes).
std::vector<uint8_t> raw_safetensors(const std::vector<std::tuple<std::string, std::string, Shape, std::vector<uint8_t>>>& t) {
    nlohmann::json header = nlohmann::json::object();
    std::vector<uint8_t> data;
    for (const auto& [name, dtype, shape, bytes] : t) {
        header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data.insert(data.end(), bytes.begin(), bytes.end());
    }
    std::string text = json_text(header);
    text.append((8 - text.size() % 8) % 8, ' ');
    std::vector<uint8_t> out(8);
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

template <class T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
    std::vector<uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TEST(LinearInt8, FusedSlicesOfBothLayoutsStreamedInSmallChunksEqualTheKernelOnTheSlice) {
    const size_t in = 37, out = 19, parts = 3, part = 1, total = parts * out, rows = 5;
    const auto conv = random_vector(in * total, 60);   // GPT-2 Conv1D [in, total]
    const auto lin = random_vector(total * in, 61);    // nn.Linear [total, in]
    const auto bias = random_vector(total, 62);
    const auto x = random_vector(rows * in, 63, -2.0f, 2.0f);
    // The slice as B [in, out] of each layout, quantized and multiplied by the kernels directly.
    auto expected = [&](const float* b, size_t row_stride, size_t col_stride) {
        std::vector<uint8_t> packed(kernels::packed_i8_size(in, out));
        kernels::pack_i8(in, out, b, row_stride, col_stride, packed.data());
        kernels::Epilogue ep;
        ep.bias = bias.data() + part * out;
        std::vector<float> y(rows * out);
        kernels::gemm_qd8_qc8w(rows, out, in, x.data(), in, packed.data(), y.data(), out, ep);
        return y;
    };
    const std::vector<float> want_conv = expected(conv.data() + part * out, total, 1);
    const std::vector<float> want_lin = expected(lin.data() + part * out * in, 1, in);

    const std::vector<uint8_t> file = write_safetensors(
        {{"conv", {{in, total}, conv.data()}}, {"lin", {{total, in}, lin.data()}}, {"bias", {{total}, bias.data()}}});
    for (size_t chunk : {size_t(64), size_t(1) << 20}) {  // 16 floats per read, and everything at once
        MemorySource source(file.data(), file.size());
        LoadOptions options = int8_options();
        options.chunk_bytes = chunk;
        auto c = Checkpoint::open({{"model.safetensors", &source}}, "", options);
        SF_ASSERT_OK(c.status());
        for (bool out_in : {false, true}) {
            const LinearRef ref{out_in ? "lin" : "conv", "bias", out_in ? WeightLayout::kOutIn : WeightLayout::kInOut,
                                part, parts};
            auto l = Linear::load(c.value(), ref, in, out);
            SF_ASSERT_OK(l.status());
            ASSERT_TRUE(l.value().int8());
            EXPECT_LE(l.value().weight_bytes(), kernels::packed_i8_size(in, out) + 3);
            std::vector<float> y(rows * out);
            l.value().forward(rows, x.data(), in, y.data(), out);
            EXPECT_EQ(y, out_in ? want_lin : want_conv) << (out_in ? "nn.Linear" : "Conv1D") << " chunk " << chunk;
        }
    }

    // The same Conv1D slice pre-quantized (per column of [in, total], as scripts/quantize.py does).
    const int8ref::QuantizedWeight q = int8ref::quantize_weight(in, total, conv.data(), total, 1);
    const std::vector<uint8_t> qfile = raw_safetensors({{"conv", "I8", {in, total}, as_bytes(q.q)},
                                                        {"conv_scale", "F32", {total}, as_bytes(q.scale)},
                                                        {"bias", "F32", {total}, as_bytes(bias)}});
    MemorySource source(qfile.data(), qfile.size());
    LoadOptions small;
    small.chunk_bytes = 64;
    auto c = Checkpoint::open({{"model.safetensors", &source}}, "", small);
    SF_ASSERT_OK(c.status());
    auto l = Linear::load(c.value(), LinearRef{"conv", "bias", WeightLayout::kInOut, part, parts}, in, out);
    SF_ASSERT_OK(l.status());
    std::vector<float> y(rows * out);
    l.value().forward(rows, x.data(), in, y.data(), out);
    EXPECT_EQ(y, want_conv);
    EXPECT_TRUE(c.value().unused().empty());  // the I8 weight, its scales and the bias are all used
}

// ---- Linear::load_concat: q | k | v packed side by side as one weight ----------------------------

// Self-attention's one GEMM against q | k | v equals the three Linears column for column, bit for
// bit: f32 and int8 (quantized at load and pre-quantized), separate nn.Linear tensors and the
// slices of one fused tensor of both layouts, widths that split GEMM panels (grouped-query k, v narrower than q),
// a part without a bias, one row (the GEMV) and several, chunks of 16 floats and whole tensors.
TEST(LinearConcat, SideBySideEqualsTheSeparateLinearsBitForBit) {
    const size_t in = 37, outs[3] = {19, 11, 11}, fused_out = 13;
    const char* names[3] = {"q", "k", "v"};
    std::vector<std::tuple<std::string, std::string, Shape, std::vector<uint8_t>>> f32_tensors, i8_tensors;
    for (size_t i = 0; i < 3; ++i) {
        for (bool out_in : {false, true}) {
            const std::string name = std::string(out_in ? "lin_" : "conv_") + names[i];
            const Shape shape = out_in ? Shape{outs[i], in} : Shape{in, outs[i]};
            const auto w = random_vector(in * outs[i], uint32_t(70 + 2 * i + out_in));
            f32_tensors.emplace_back(name, "F32", shape, as_bytes(w));
            // Any int8 values and scales do (both sides read the same tensors): w as [in, out], quantized.
            const int8ref::QuantizedWeight q = int8ref::quantize_weight(in, outs[i], w.data(), outs[i], 1);
            i8_tensors.emplace_back(name, "I8", shape, as_bytes(q.q));
            i8_tensors.emplace_back(name + "_scale", "F32", Shape{outs[i]}, as_bytes(q.scale));
        }
        if (i < 2) {  // v has no bias
            f32_tensors.emplace_back(std::string("b_") + names[i], "F32", Shape{outs[i]},
                                     as_bytes(random_vector(outs[i], uint32_t(80 + i))));
            i8_tensors.push_back(f32_tensors.back());
        }
    }
    for (bool out_in : {false, true}) {  // one fused tensor of three equal slices (in_proj_weight, c_attn)
        const Shape shape = out_in ? Shape{3 * fused_out, in} : Shape{in, 3 * fused_out};
        f32_tensors.emplace_back(out_in ? "lin_fused" : "conv_fused", "F32", shape,
                                 as_bytes(random_vector(3 * fused_out * in, 90 + out_in)));
    }
    f32_tensors.emplace_back("b_fused", "F32", Shape{3 * fused_out}, as_bytes(random_vector(3 * fused_out, 92)));
    const std::vector<uint8_t> f32_file = raw_safetensors(f32_tensors), i8_file = raw_safetensors(i8_tensors);
    const auto x = random_vector(5 * in, 93, -2.0f, 2.0f);

    // y [rows, Σ outs] of load_concat against each ref's own Linear, column block by block.
    auto check = [&](Checkpoint& c, const LinearRef* refs, const size_t* o, bool int8, const std::string& what) {
        const LinearRef* ptrs[3] = {&refs[0], &refs[1], &refs[2]};
        auto joined = Linear::load_concat(c, ptrs, o, 3, in);
        SF_ASSERT_OK(joined.status());
        EXPECT_EQ(joined.value().int8(), int8) << what;
        const size_t width = o[0] + o[1] + o[2];
        EXPECT_EQ(joined.value().out_features(), width);
        for (size_t rows : {size_t(1), size_t(5)}) {
            std::vector<float> y(rows * width);
            joined.value().forward(rows, x.data(), in, y.data(), width);
            for (size_t i = 0, col = 0; i < 3; col += o[i], ++i) {
                auto alone = Linear::load(c, refs[i], in, o[i]);
                SF_ASSERT_OK(alone.status());
                std::vector<float> want(rows * o[i]);
                alone.value().forward(rows, x.data(), in, want.data(), o[i]);
                for (size_t r = 0; r < rows; ++r)
                    for (size_t j = 0; j < o[i]; ++j)
                        ASSERT_EQ(y[r * width + col + j], want[r * o[i] + j])
                            << what << ", part " << i << ", row " << r << " of " << rows << ", column " << j;
            }
        }
    };
    for (size_t chunk : {size_t(64), size_t(1) << 20}) {
        for (int format = 0; format < 3; ++format) {  // f32, int8 at load, pre-quantized I8
            const std::vector<uint8_t>& file = format == 2 ? i8_file : f32_file;
            MemorySource source(file.data(), file.size());
            LoadOptions options = format == 1 ? int8_options() : LoadOptions{};
            options.chunk_bytes = chunk;
            auto c = Checkpoint::open({{"model.safetensors", &source}}, "", options);
            SF_ASSERT_OK(c.status());
            const std::string what = std::string(format == 0 ? "f32" : format == 1 ? "int8" : "I8") + " chunk " +
                                     std::to_string(chunk);
            for (bool out_in : {false, true}) {
                const WeightLayout layout = out_in ? WeightLayout::kOutIn : WeightLayout::kInOut;
                const std::string pre = out_in ? "lin_" : "conv_";
                const LinearRef refs[3] = {{pre + "q", "b_q", layout}, {pre + "k", "b_k", layout}, {pre + "v", "", layout}};
                if (out_in) {
                    check(c.value(), refs, outs, format != 0, what + " " + pre);
                } else {  // separate Conv1D tensors are not joined (no checkpoint has them)
                    const LinearRef* ptrs[3] = {&refs[0], &refs[1], &refs[2]};
                    auto refused = Linear::load_concat(c.value(), ptrs, outs, 3, in);
                    EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported) << refused.status().message();
                }
                if (format == 2) continue;
                const LinearRef slices[3] = {{pre + "fused", "b_fused", layout, 0, 3},
                                             {pre + "fused", "b_fused", layout, 1, 3},
                                             {pre + "fused", "b_fused", layout, 2, 3}};
                const size_t fused_outs[3] = {fused_out, fused_out, fused_out};
                check(c.value(), slices, fused_outs, format != 0, what + " " + pre + "fused");
            }
        }
    }
}

// ---- the nn.Transformer dialect -----------------------------------------------------------------

Result<Model> load_torch_case(const std::string& folder, const std::string& name, const LoadOptions& options) {
    auto source = FileSource::open(data_path(folder + name + ".safetensors"));
    if (!source.is_ok()) return source.status();
    return Model::load_checkpoint(read_text(data_path(name + ".json")), {{"model.safetensors", &source.value()}}, "",
                                  options);
}

std::vector<float> encoder_output(const Model& m, const Golden& g, size_t batch, size_t n, bool causal) {
    auto ws = m.make_workspace({batch, n, 0, false});
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    if (!ws.is_ok()) return {};
    std::vector<uint8_t> pad;
    if (g.values.count("key_padding")) pad = g.mask("key_padding");
    ForwardRequest r;
    r.n_batch = batch;
    r.src.n_seq = n;
    r.src.embeddings = g.at("x").data();
    r.src.key_padding = pad.empty() ? nullptr : pad.data();
    r.src.causal = causal;
    const Status st = m.forward(r, ws.value());
    EXPECT_TRUE(st.is_ok()) << st.message();
    const size_t d = m.config().d_model;
    return std::vector<float>(ws.value().output(), ws.value().output() + batch * n * d);
}

struct TorchCase {
    std::string name;
    size_t batch, n;
    bool causal;
};

class TorchInt8 : public ::testing::TestWithParam<TorchCase> {};

TEST_P(TorchInt8, EncoderOutputsStayCloseToPyTorchAndPrequantizedIsIdentical) {
    const TorchCase& c = GetParam();
    const Golden g = load_golden(c.name + ".golden.safetensors");
    auto at_load = load_torch_case("", c.name, int8_options());
    SF_ASSERT_OK(at_load.status());
    EXPECT_EQ(nlohmann::json::parse(at_load.value().info_json())["weights"], "int8");
    const std::vector<float> out = encoder_output(at_load.value(), g, c.batch, c.n, c.causal);
    const double cos = cosine_similarity(out, g.at("out"));
    EXPECT_GE(cos, kLayerCosine);
    RecordProperty("cos", std::to_string(cos));
    auto pre = load_torch_case("int8/", c.name, {});
    SF_ASSERT_OK(pre.status());
    EXPECT_EQ(encoder_output(pre.value(), g, c.batch, c.n, c.causal), out);
}

INSTANTIATE_TEST_SUITE_P(Cases, TorchInt8,
                         ::testing::Values(TorchCase{"encoder_layer_post", 2, 6, false},
                                           TorchCase{"encoder_layer_pre_gelu_bf16", 2, 5, true},
                                           TorchCase{"encoder", 3, 7, false}),
                         [](const auto& info) { return info.param.name; });

TEST(TorchInt8, GreedyGenerationOfTheSeq2SeqGoldenIsUnchanged) {
    const Golden g = load_golden("seq2seq.golden.safetensors");
    auto m = load_torch_case("", "seq2seq", int8_options());
    SF_ASSERT_OK(m.status());
    const std::vector<int32_t> src = g.tokens("src"), want = g.tokens("generated");
    const std::vector<uint8_t> pad = g.mask("src_key_padding");
    auto ws = m.value().make_workspace({2, 6, 16, false});
    SF_ASSERT_OK(ws.status());
    GenerateRequest r;
    r.n_batch = 2;
    r.src = {6, nullptr, src.data(), pad.data(), nullptr, false};
    r.max_length = 8;
    SF_ASSERT_OK(m.value().generate(r, ws.value()));
    const size_t len = ws.value().generated_length();
    EXPECT_EQ(std::vector<int32_t>(ws.value().generated(), ws.value().generated() + 2 * len), want);
}

// ---- memory ------------------------------------------------------------------------------------

TEST(Int8Memory, LinearWeightsTakeAQuarterAndTheLoadPeakStaysBounded) {
    // A BERT-shaped model whose linear weights dominate, built in memory: d 256, d_ff 1024,
    // 2 layers, vocabulary 2000.
    const size_t d = 256, ff = 1024, vocab = 2000, layers = 2, positions = 64;
    std::vector<std::pair<std::string, std::pair<Shape, std::vector<float>>>> t;
    uint32_t seed = 100;
    auto add = [&](const std::string& name, Shape shape) {
        size_t count = 1;
        for (size_t s : shape) count *= s;
        t.push_back({name, {shape, random_vector(count, seed++, -0.05f, 0.05f)}});
    };
    add("embeddings.word_embeddings.weight", {vocab, d});
    add("embeddings.position_embeddings.weight", {positions, d});
    add("embeddings.token_type_embeddings.weight", {2, d});
    add("embeddings.LayerNorm.weight", {d});
    add("embeddings.LayerNorm.bias", {d});
    size_t largest = vocab * d;
    for (size_t l = 0; l < layers; ++l) {
        const std::string p = "encoder.layer." + std::to_string(l) + ".";
        for (const char* m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
            add(p + m + ".weight", {d, d});
            add(p + m + ".bias", {d});
        }
        add(p + "attention.output.LayerNorm.weight", {d});
        add(p + "attention.output.LayerNorm.bias", {d});
        add(p + "intermediate.dense.weight", {ff, d});
        add(p + "intermediate.dense.bias", {ff});
        add(p + "output.dense.weight", {d, ff});
        add(p + "output.dense.bias", {d});
        add(p + "output.LayerNorm.weight", {d});
        add(p + "output.LayerNorm.bias", {d});
    }
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> views;
    for (const auto& [name, v] : t) views.push_back({name, {v.first, v.second.data()}});
    const std::vector<uint8_t> bytes = write_safetensors(views);
    const std::string config = R"({"model_type":"bert","architectures":["BertModel"],"hidden_size":256,
        "num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":1024,"vocab_size":2000,
        "max_position_embeddings":64,"type_vocab_size":2,"hidden_act":"gelu","layer_norm_eps":1e-12,
        "pad_token_id":0})";
    size_t held[2] = {0, 0}, peak[2] = {0, 0};
    for (int int8 = 0; int8 < 2; ++int8) {
        MemorySource source(bytes.data(), bytes.size());
        const size_t before = Buffer::live_bytes();
        Buffer::reset_peak_live_bytes();
        auto m = Model::load_checkpoint(config, {{"model.safetensors", &source}}, "", int8 ? int8_options() : LoadOptions{});
        SF_ASSERT_OK(m.status());
        held[int8] = Buffer::live_bytes() - before;
        peak[int8] = Buffer::peak_live_bytes() - before;
    }
    const double ratio = double(held[1]) / double(held[0]);
    RecordProperty("int8_over_f32_bytes", std::to_string(ratio));
    EXPECT_LE(ratio, 0.27) << held[1] << " vs " << held[0] << " bytes";
    // Peak while loading: the packed weights + at most the largest tensor as f32 + 10 %.
    EXPECT_LE(double(peak[1]), 1.1 * double(held[1] + largest * sizeof(float))) << peak[1] << " vs " << held[1];
}

}  // namespace
}  // namespace simdformer::test
