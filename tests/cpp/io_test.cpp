// safetensors parsing, dtype conversion, config parsing and every way a model file can be bad:
// each gives a Status naming the problem, and nothing is half-loaded.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>

#include "test_util.h"

namespace simdformer::test {
namespace {

std::vector<uint8_t> raw_file(const std::string& header, const std::vector<uint8_t>& data) {
    std::vector<uint8_t> out(8);
    const uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(n >> (8 * i));
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

Status parse_status(const std::vector<uint8_t>& bytes) {
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    return f.is_ok() ? Status::ok() : f.status();
}

void expect_error(const Status& st, StatusCode code, const std::string& fragment) {
    EXPECT_EQ(st.code(), code) << st.message();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << "message: " << st.message();
}

Status status_of_open(const std::string& path) {
    auto f = FileSource::open(path);
    return f.is_ok() ? Status::ok() : f.status();
}

TEST(Safetensors, RoundTripsFloat32AndMetadata) {
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {-1.5f};
    auto bytes = write_safetensors({{"a", {{2, 3}, a.data()}}, {"b", {{1}, b.data()}}}, {{"config", "{}"}});
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(f.status());
    EXPECT_EQ(f.value().metadata("config"), "{}");
    EXPECT_EQ(f.value().tensors().size(), 2u);
    auto t = f.value().take("a", {2, 3});
    SF_ASSERT_OK(t.status());
    EXPECT_EQ(std::vector<float>(t.value().data(), t.value().data() + 6), a);
    EXPECT_EQ(f.value().unused(), std::vector<std::string>{"b"});
}

TEST(Safetensors, ConvertsHalfPrecisionFormats) {
    // F16: 1.0 = 0x3C00, -2.5 = 0xC100, 65504 = 0x7BFF, smallest subnormal 2^-24 = 0x0001.
    // BF16: 1.0 = 0x3F80, -3.0 = 0xC040.
    const std::vector<uint8_t> f16 = {0x00, 0x3C, 0x00, 0xC1, 0xFF, 0x7B, 0x01, 0x00};
    const std::vector<uint8_t> bf16 = {0x80, 0x3F, 0x40, 0xC0};
    std::vector<uint8_t> data = f16;
    data.insert(data.end(), bf16.begin(), bf16.end());
    double d = 0.25;
    uint8_t db[8];
    std::memcpy(db, &d, 8);
    data.insert(data.end(), db, db + 8);
    auto bytes = raw_file(R"({"h":{"dtype":"F16","shape":[4],"data_offsets":[0,8]},)"
                          R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},)"
                          R"("d":{"dtype":"F64","shape":[1],"data_offsets":[12,20]}})",
                          data);
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(f.status());
    auto h = f.value().take("h", {4});
    SF_ASSERT_OK(h.status());
    EXPECT_EQ(h.value().data()[0], 1.0f);
    EXPECT_EQ(h.value().data()[1], -2.5f);
    EXPECT_EQ(h.value().data()[2], 65504.0f);
    EXPECT_EQ(h.value().data()[3], std::ldexp(1.0f, -24));
    auto b = f.value().take("b", {2});
    SF_ASSERT_OK(b.status());
    EXPECT_EQ(b.value().data()[0], 1.0f);
    EXPECT_EQ(b.value().data()[1], -3.0f);
    auto dd = f.value().take("d", {1});
    SF_ASSERT_OK(dd.status());
    EXPECT_EQ(dd.value().data()[0], 0.25f);
}

TEST(Safetensors, RejectsMalformedFiles) {
    const std::vector<uint8_t> four(4, 0);
    expect_error(parse_status({1, 2, 3}), StatusCode::kIoError, "shorter than the 8-byte header length");
    auto huge = raw_file("{}", {});
    huge[0] = 0xff;
    huge[3] = 0x7f;
    expect_error(parse_status(huge), StatusCode::kIoError, "exceeds the");
    expect_error(parse_status(raw_file("{not json", {})), StatusCode::kIoError, "not valid JSON");
    expect_error(parse_status(raw_file("[1,2]", {})), StatusCode::kIoError, "not a JSON object");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", four)),
                 StatusCode::kIoError, "beyond the data section");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four)),
                 StatusCode::kIoError, "needs 8 bytes but data_offsets span 4");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", four)),
                 StatusCode::kUnsupported, "dtype U8 is not supported");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four)),
                 StatusCode::kIoError, "non-negative integers");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", four)),
                 StatusCode::kIoError, "begin 4 > end 0");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[1]}})", four)), StatusCode::kIoError,
                 "missing \"data_offsets\"");
    expect_error(parse_status(raw_file(R"({"w":{"dtype":"F32","shape":[65536,65536,65536,65536],"data_offsets":[0,4]}})", four)),
                 StatusCode::kIoError, "overflows");
    const std::vector<uint8_t> eight(8, 0);
    expect_error(parse_status(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                       eight)),
                 StatusCode::kIoError, "overlapping");
    expect_error(parse_status(raw_file(R"({"__metadata__":{"x":1}})", {})), StatusCode::kIoError, "not a string");
    // Nesting is bounded before the parser runs (a header of '[' would otherwise nest millions of
    // levels and every recursive walk of the value would exhaust the stack).
    expect_error(parse_status(raw_file("{\"w\":" + std::string(65, '[') + std::string(65, ']') + "}", {})),
                 StatusCode::kInvalidArgument, "nested deeper than 64 levels");
    // Brackets inside strings do not count, and a name repeated at a deeper level is no duplicate.
    const std::string brackets(100, '[');
    SF_ASSERT_OK(parse_status(raw_file(R"({"__metadata__":{"w":")" + brackets + R"("},)"
                                       R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                                       four)));
}

TEST(Safetensors, EveryTruncationOfARealModelIsRejected) {
    const std::vector<uint8_t> bytes = read_file(data_path("encoder_layer_post.safetensors"));
    const std::string config = read_text(data_path("encoder_layer_post.json"));
    for (size_t cut = 0; cut < bytes.size(); cut += 97) {
        auto m = Model::load(bytes.data(), cut, config);
        EXPECT_FALSE(m.is_ok()) << "cut at " << cut;
    }
    SF_ASSERT_OK(Model::load(bytes.data(), bytes.size(), config).status());
}

// Builds an encoder_layer file from the committed fixture with one change applied.
std::vector<uint8_t> modified_encoder_layer(const std::function<void(std::map<std::string, std::pair<Shape, std::vector<float>>>&)>& change) {
    const std::vector<uint8_t> bytes = read_file(data_path("encoder_layer_post.safetensors"));
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    std::map<std::string, std::pair<Shape, std::vector<float>>> tensors;
    for (const TensorInfo& t : f.value().tensors()) {
        auto b = f.value().take(t.name, t.shape);
        tensors[t.name] = {t.shape, std::vector<float>(b.value().data(), b.value().data() + b.value().size())};
    }
    change(tensors);
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> list;
    for (auto& [name, t] : tensors) list.push_back({name, {t.first, t.second.data()}});
    return write_safetensors(list);
}

Status load_status(const std::vector<uint8_t>& bytes, const std::string& config) {
    auto m = Model::load(bytes.data(), bytes.size(), config);
    return m.is_ok() ? Status::ok() : m.status();
}

TEST(ModelFile, NamesTheTensorAndTheProblem) {
    const std::string config = read_text(data_path("encoder_layer_post.json"));
    expect_error(load_status(modified_encoder_layer([](auto& t) { t.erase("linear2.bias"); }), config),
                 StatusCode::kInvalidArgument, "missing tensor 'linear2.bias' [16]");
    expect_error(load_status(modified_encoder_layer([](auto& t) { t["extra.weight"] = {{2}, {1, 2}}; }), config),
                 StatusCode::kInvalidArgument, "unexpected tensor(s) for a encoder_layer with this config: extra.weight");
    expect_error(load_status(modified_encoder_layer([](auto& t) { t["norm1.weight"] = {{15}, std::vector<float>(15, 1)}; }), config),
                 StatusCode::kShapeMismatch, "tensor 'norm1.weight' has shape [15], expected [16]");
    expect_error(load_status(modified_encoder_layer([](auto& t) { t["linear1.weight"].second[5] = NAN; }), config),
                 StatusCode::kInvalidArgument, "tensor 'linear1.weight' holds a non-finite value");
    const auto good = modified_encoder_layer([](auto&) {});
    SF_ASSERT_OK(load_status(good, config));
    expect_error(load_status(good, R"({"model_type":"encoder_layer","d_model":16,"nhead":3,"dim_feedforward":24})"),
                 StatusCode::kInvalidArgument, "d_model=16 is not divisible by nhead=3");
    expect_error(load_status(good, R"({"model_type":"encoder_layer","d_model":16,"nhead":2,"dim_feedforward":32})"),
                 StatusCode::kShapeMismatch, "'linear1.weight' has shape [24, 16], expected [32, 16]");
    expect_error(load_status(good, ""), StatusCode::kInvalidArgument, "no config given");
}

TEST(Config, ParsesPyTorchNamesAndRejectsTypos) {
    auto c = parse_model_config(R"({"model_type":"transformer","d_model":8,"nhead":2,"dim_feedforward":16,
        "num_encoder_layers":1,"num_decoder_layers":3,"activation":"gelu","norm_first":true,
        "layer_norm_eps":1e-6,"dropout":0.1,"batch_first":true})");
    SF_ASSERT_OK(c.status());
    EXPECT_EQ(c.value().kind, TorchModule::kTransformer);
    EXPECT_EQ(c.value().num_decoder_layers, 3u);
    EXPECT_EQ(c.value().activation, Activation::kGeluErf);
    EXPECT_TRUE(c.value().norm_first);
    EXPECT_FLOAT_EQ(c.value().layer_norm_eps, 1e-6f);
    auto mha = parse_model_config(R"({"model_type":"multihead_attention","embed_dim":8,"num_heads":4})");
    SF_ASSERT_OK(mha.status());
    EXPECT_EQ(mha.value().d_head(), 2u);
    expect_error(parse_model_config(R"({"d_model":8,"nhead":2,"dim_feedforwrd":16})").status(),
                 StatusCode::kInvalidArgument, "unknown key \"dim_feedforwrd\"");
    expect_error(parse_model_config(R"({"d_model":8,"nhead":2,"dim_feedforward":16,"activation":"swish"})").status(),
                 StatusCode::kInvalidArgument, "'swish' is not one of relu, gelu, gelu_tanh");
    expect_error(parse_model_config(R"({"d_model":"8"})").status(), StatusCode::kInvalidArgument,
                 "\"d_model\" must be an integer in [0, 1073741824], not \"8\"");
    expect_error(parse_model_config("[").status(), StatusCode::kInvalidArgument, "not valid JSON");
    // 2^32 + 16 used to become 16 where size_t is 32 bits (wasm): sizes are checked as 64-bit values.
    expect_error(parse_model_config(R"({"d_model":4294967312})").status(), StatusCode::kInvalidArgument,
                 "\"d_model\" must be an integer in [0, 1073741824], not 4294967312");
    expect_error(parse_model_config(R"({"d_model":-8})").status(), StatusCode::kInvalidArgument, "not -8");
    expect_error(parse_model_config(R"({"model_type":"encoder","d_model":8,"nhead":2,"dim_feedforward":16})").status(),
                 StatusCode::kInvalidArgument, "num_encoder_layers >= 1");
}

// nn.MultiheadAttention(add_zero_attn=True) appends a zero key and value to every sequence (no
// tensor says so), add_bias_kv=True appends learned ones, and bias=False drops every bias: each
// changes the output, so a value other than PyTorch's default is refused by name, never ignored.
TEST(Config, RefusesAttentionOptionsItDoesNotCompute) {
    const std::string base = R"({"model_type":"encoder_layer","d_model":8,"nhead":2,"dim_feedforward":16,)";
    for (const char* off : {R"("add_zero_attn":false})", R"("add_bias_kv":false})", R"("bias":true})"})
        SF_EXPECT_OK(parse_model_config(base + off).status());
    expect_error(parse_model_config(base + R"("add_zero_attn":true})").status(), StatusCode::kUnsupported,
                 "\"add_zero_attn\" = true is not supported");
    expect_error(parse_model_config(base + R"("add_bias_kv":true})").status(), StatusCode::kUnsupported,
                 "\"add_bias_kv\" = true is not supported");
    expect_error(parse_model_config(base + R"("bias":false})").status(), StatusCode::kUnsupported,
                 "\"bias\" = false is not supported");
    expect_error(parse_model_config(base + R"("add_zero_attn":1})").status(), StatusCode::kUnsupported,
                 "\"add_zero_attn\" = 1 is not supported");
}

// FileSource::open (the public C++ API) opens regular files only: a folder is refused by name, and a
// FIFO without a writer is refused at once instead of blocking in open() forever; a device
// (/dev/zero, whose size reads as 0, /dev/urandom) is no model file either.
TEST(FileSource, OpensRegularFilesOnly) {
    expect_error(status_of_open(data_path("hf")), StatusCode::kIoError, "is not a regular file");
#if !defined(__EMSCRIPTEN__)
    expect_error(status_of_open("/dev/zero"), StatusCode::kIoError, "is not a regular file");
    char dir[] = "/tmp/simdformer-fifo-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string fifo = std::string(dir) + "/model.safetensors";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    expect_error(status_of_open(fifo), StatusCode::kIoError, "is not a regular file");
    unlink(fifo.c_str());
    rmdir(dir);
#endif
    SF_EXPECT_OK(status_of_open(data_path("mha_self.safetensors")));
}

TEST(ModelFile, ConfigMayLiveInTheFileMetadata) {
    const std::vector<uint8_t> bytes = read_file(data_path("mha_self.safetensors"));
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    std::vector<std::vector<float>> keep;
    std::vector<std::pair<std::string, std::pair<Shape, const float*>>> list;
    for (const TensorInfo& t : f.value().tensors()) {
        auto b = f.value().take(t.name, t.shape);
        keep.emplace_back(b.value().data(), b.value().data() + b.value().size());
        list.push_back({t.name, {t.shape, keep.back().data()}});
    }
    auto with_config = write_safetensors(list, {{"config", read_text(data_path("mha_self.json"))}});
    auto m = Model::load(with_config.data(), with_config.size(), "");
    SF_ASSERT_OK(m.status());
    EXPECT_EQ(m.value().config().nhead, 4u);
    EXPECT_EQ(m.value().parameter_count(), 1088u);
}

TEST(Workspace, AbsurdLimitsAreAnErrorNotACrash) {
    const Model m = load_case("encoder");
    auto ws = m.make_workspace({1u << 20, 1u << 16, 1u << 16, true});
    EXPECT_EQ(ws.status().code(), StatusCode::kOutOfMemory);
    EXPECT_NE(ws.status().message().find("max_batch=1048576"), std::string::npos) << ws.status().message();
    EXPECT_FALSE(m.make_workspace({0, 4, 4, false}).is_ok());
    SF_ASSERT_OK(m.make_workspace({2, 7, 0, true}).status());
}

}  // namespace
}  // namespace simdformer::test
