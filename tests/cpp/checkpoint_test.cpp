// The loading layer: safetensors headers read from a ByteSource, sharded checkpoints, bounded
// streaming reads, progress and cancellation, and the memory a load needs.
#include <algorithm>
#include <cstring>
#include <memory>

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

void expect_error(const Status& st, StatusCode code, const std::vector<std::string>& fragments) {
    EXPECT_EQ(st.code(), code) << status_code_name(st.code()) << ": " << st.message();
    for (const std::string& f : fragments)
        EXPECT_NE(st.message().find(f), std::string::npos) << "'" << f << "' not in: " << st.message();
}

template <class T>
Status status_of(const Result<T>& r) {
    return r.is_ok() ? Status::ok() : r.status();
}

// A memory source that records every read.
class RecordingSource : public ByteSource {
public:
    explicit RecordingSource(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)), memory_(bytes_.data(), bytes_.size()) {}
    uint64_t size() const override { return bytes_.size(); }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override {
        reads.push_back({offset, n});
        return memory_.read(offset, n, dst);
    }
    std::vector<std::pair<uint64_t, size_t>> reads;
    size_t bytes_read() const {
        size_t s = 0;
        for (const auto& r : reads) s += r.second;
        return s;
    }

private:
    std::vector<uint8_t> bytes_;
    MemorySource memory_;
};

TEST(Checkpoint, OpeningReadsOnlyTheHeader) {
    const std::vector<float> a(1000, 0.5f);
    RecordingSource src(write_safetensors({{"a", {{10, 100}, a.data()}}}));
    auto c = Checkpoint::open({{"model.safetensors", &src}}, "");
    SF_ASSERT_OK(c.status());
    // The format probe (4 bytes), the header length (8) and the header itself: no tensor data.
    EXPECT_LT(src.bytes_read(), 4 + 8 + 200u);
    EXPECT_EQ(c.value().tensors().size(), 1u);
    EXPECT_EQ(c.value().total_bytes(), 4000u);
}

TEST(Checkpoint, DuplicateTensorNamesInAHeaderAreRejected) {
    const std::vector<uint8_t> eight(8, 0);
    auto bytes = raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                          eight);
    expect_error(status_of(SafetensorsFile::parse(bytes.data(), bytes.size())), StatusCode::kIoError,
                 {"'w' more than once"});
}

// safetensors' own reader (serde: TensorInfo is a struct) refuses an entry that gives a field twice;
// a JSON parser keeps one of them silently, so "F16" then "F32" would be read as one dtype here and
// as another (or refused) elsewhere. __metadata__ is a map there, whose last value wins: accepted.
TEST(Checkpoint, AFieldGivenTwiceInATensorEntryIsRejected) {
    const std::vector<uint8_t> four(4, 0);
    for (const char* entry : {R"({"w":{"dtype":"F16","dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                              R"({"w":{"dtype":"F32","shape":[2],"shape":[1],"data_offsets":[0,4]}})",
                              R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,2],"data_offsets":[0,4]}})"}) {
        auto bytes = raw_file(entry, four);
        expect_error(status_of(SafetensorsFile::parse(bytes.data(), bytes.size())), StatusCode::kIoError,
                     {"tensor 'w' more than once or gives a field of it twice"});
    }
    auto bytes = raw_file(R"({"__metadata__":{"format":"tf","format":"pt"},"w":{"dtype":"F32","shape":[1],)"
                          R"("data_offsets":[0,4]}})",
                          four);
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(f.status());
    EXPECT_EQ(f.value().metadata("format"), "pt");
}

TEST(Checkpoint, IntegerBuffersAreKnownButAreNotWeights) {
    std::vector<uint8_t> data(16, 0);
    data[0] = 7;
    auto bytes = raw_file(R"({"ids":{"dtype":"I64","shape":[1,2],"data_offsets":[0,16]}})", data);
    auto f = SafetensorsFile::parse(bytes.data(), bytes.size());
    SF_ASSERT_OK(f.status());
    expect_error(status_of(f.value().take("ids", {1, 2})), StatusCode::kUnsupported, {"'ids'", "I64"});
}

TEST(Checkpoint, ShardsAreTiedTogetherByTheIndex) {
    const std::vector<float> a = {1, 2}, b = {3, 4, 5};
    std::vector<uint8_t> f1 = write_safetensors({{"a", {{2}, a.data()}}});
    std::vector<uint8_t> f2 = write_safetensors({{"b", {{3}, b.data()}}});
    MemorySource s1(f1.data(), f1.size()), s2(f2.data(), f2.size());
    const std::string index = R"({"metadata":{"total_size":20},"weight_map":{"a":"one.safetensors","b":"two.safetensors"}})";
    auto c = Checkpoint::open({{"one.safetensors", &s1}, {"two.safetensors", &s2}}, index);
    SF_ASSERT_OK(c.status());
    auto tb = c.value().take("b", {3});
    SF_ASSERT_OK(tb.status());
    EXPECT_EQ(std::vector<float>(tb.value().data(), tb.value().data() + 3), b);
    EXPECT_EQ(c.value().find("b")->shard, 1u);

    expect_error(status_of(Checkpoint::open({{"one.safetensors", &s1}}, index)), StatusCode::kIoError,
                 {"'b'", "two.safetensors", "not given"});
    const std::string swapped = R"({"weight_map":{"a":"two.safetensors","b":"two.safetensors"}})";
    expect_error(status_of(Checkpoint::open({{"one.safetensors", &s1}, {"two.safetensors", &s2}}, swapped)),
                 StatusCode::kIoError, {"'a'", "does not hold it"});
    expect_error(status_of(Checkpoint::open({{"one.safetensors", &s1}, {"again.safetensors", &s1}}, "")),
                 StatusCode::kIoError, {"'a'", "one.safetensors", "again.safetensors"});
    expect_error(status_of(Checkpoint::open({{"one.safetensors", &s1}}, "[1]")), StatusCode::kIoError, {"index"});
    expect_error(status_of(Checkpoint::open({}, "")), StatusCode::kIoError, {"model.safetensors"});
}

TEST(Checkpoint, OtherCheckpointFormatsAreUnsupported) {
    std::vector<uint8_t> zip = {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0};
    MemorySource z(zip.data(), zip.size());
    expect_error(status_of(Checkpoint::open({{"weights", &z}}, "")), StatusCode::kUnsupported, {"zip", "safetensors"});
    expect_error(status_of(Checkpoint::open({{"pytorch_model.bin", &z}}, "")), StatusCode::kUnsupported,
                 {"pytorch_model.bin", "safetensors"});
}

TEST(Checkpoint, TensorDataIsReadInBoundedChunksAndConvertedOnTheWay) {
    std::vector<float> a(3001);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i) * 0.25f - 100.0f;
    RecordingSource src(write_safetensors({{"a", {{3001}, a.data()}}}));
    LoadOptions options;
    options.chunk_bytes = 256;
    auto c = Checkpoint::open({{"model.safetensors", &src}}, "", options);
    SF_ASSERT_OK(c.status());
    src.reads.clear();
    auto t = c.value().take("a", {3001});
    SF_ASSERT_OK(t.status());
    EXPECT_EQ(std::vector<float>(t.value().data(), t.value().data() + a.size()), a);
    size_t largest = 0;
    for (const auto& r : src.reads) largest = std::max(largest, r.second);
    EXPECT_EQ(largest, 256u);
    EXPECT_EQ(src.bytes_read(), 4 * a.size());
}

// BF16 halves of known floats, converted through the staging buffer in chunks smaller than the tensor.
TEST(Checkpoint, HalfPrecisionConvertsIdenticallyWhateverTheChunkSize) {
    std::vector<uint8_t> data;
    std::vector<float> want;
    for (int i = 0; i < 777; ++i) {
        const float f = float(i % 256 - 128) / 16.0f;  // 8 significant bits: exact in bfloat16
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        data.push_back(uint8_t(bits >> 16));
        data.push_back(uint8_t(bits >> 24));
        want.push_back(f);
    }
    auto bytes = raw_file(R"({"h":{"dtype":"BF16","shape":[777],"data_offsets":[0,1554]}})", data);
    for (size_t chunk : {64u, 100u, 1u << 20}) {
        MemorySource src(bytes.data(), bytes.size());
        LoadOptions options;
        options.chunk_bytes = chunk;
        auto c = Checkpoint::open({{"m.safetensors", &src}}, "", options);
        SF_ASSERT_OK(c.status());
        auto t = c.value().take("h", {777});
        SF_ASSERT_OK(t.status());
        EXPECT_EQ(std::vector<float>(t.value().data(), t.value().data() + 777), want) << "chunk " << chunk;
    }
}

bool count_and_continue(void* user, uint64_t loaded, uint64_t total) {
    auto* calls = static_cast<std::vector<std::pair<uint64_t, uint64_t>>*>(user);
    calls->push_back({loaded, total});
    return true;
}

bool cancel_after_first(void* user, uint64_t, uint64_t) { return ++*static_cast<int*>(user) < 2; }

TEST(Checkpoint, ProgressIsMonotoneEndsAtTheTotalAndCanCancel) {
    const std::string dir = "hf/bert_mlm_f16/";
    const std::vector<uint8_t> bytes = read_file(data_path(dir + "model.safetensors"));
    const std::string config = read_text(data_path(dir + "config.json"));
    MemorySource src(bytes.data(), bytes.size());
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    LoadOptions options;
    options.chunk_bytes = 4096;
    options.progress = count_and_continue;
    options.progress_user = &calls;
    SF_ASSERT_OK(Model::load_checkpoint(config, {{"model.safetensors", &src}}, "", options).status());
    ASSERT_GT(calls.size(), 5u);
    for (size_t i = 1; i < calls.size(); ++i) {
        EXPECT_GE(calls[i].first, calls[i - 1].first);
        EXPECT_LE(calls[i].first, calls[i].second);
    }
    EXPECT_EQ(calls.back().first, calls.back().second);

    const size_t live = Buffer::live_bytes();
    int n = 0;
    options.progress = cancel_after_first;
    options.progress_user = &n;
    auto m = Model::load_checkpoint(config, {{"model.safetensors", &src}}, "", options);
    expect_error(m.status(), StatusCode::kCancelled, {"cancelled"});
    EXPECT_EQ(Buffer::live_bytes(), live);  // nothing half-loaded stays behind
}

TEST(LoadOptions, ParsesKnownKeysAndRejectsTheRest) {
    LoadOptions o;
    SF_ASSERT_OK(parse_load_options(R"({"weights":"f32","chunkBytes":4096})", &o));
    EXPECT_EQ(o.chunk_bytes, 4096u);
    EXPECT_EQ(o.weights, WeightFormat::kF32);
    SF_ASSERT_OK(parse_load_options("", &o));
    SF_ASSERT_OK(parse_load_options(R"({"weights":"int8"})", &o));
    EXPECT_EQ(o.weights, WeightFormat::kInt8);
    expect_error(parse_load_options(R"({"weights":"f16"})", &o), StatusCode::kInvalidArgument, {"f16"});
    expect_error(parse_load_options(R"({"chunk":1})", &o), StatusCode::kInvalidArgument, {"unknown load option \"chunk\""});
    expect_error(parse_load_options(R"({"chunkBytes":1.5})", &o), StatusCode::kInvalidArgument, {"chunkBytes"});
}

}  // namespace
}  // namespace simdformer::test
