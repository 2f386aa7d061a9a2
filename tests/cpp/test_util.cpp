#include "test_util.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace simdformer::test {

std::vector<float> random_vector(size_t n, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

double max_abs_diff(const float* a, const float* b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; ++i) {
        const double d = std::fabs(double(a[i]) - double(b[i]));
        if (std::isnan(d)) return INFINITY;
        m = std::max(m, d);
    }
    return m;
}

double max_rel_diff(const float* a, const float* b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; ++i) {
        const double d = std::fabs(double(a[i]) - double(b[i])) / (std::fabs(double(b[i])) + 1.0);
        if (std::isnan(d)) return INFINITY;
        m = std::max(m, d);
    }
    return m;
}

double cosine_similarity(const float* a, const float* b, size_t n) {
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; ++i) {
        ab += double(a[i]) * double(b[i]);
        aa += double(a[i]) * double(a[i]);
        bb += double(b[i]) * double(b[i]);
    }
    if (std::isnan(ab) || std::isnan(aa) || std::isnan(bb)) return NAN;
    if (aa == 0 && bb == 0) return 1.0;
    if (aa == 0 || bb == 0) return 0.0;
    return ab / (std::sqrt(aa) * std::sqrt(bb));
}

std::string data_path(const std::string& file) { return std::string(SIMDFORMER_TEST_DATA_DIR) + "/" + file; }

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    EXPECT_TRUE(f.good()) << "cannot open " << path;
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string read_text(const std::string& path) {
    const std::vector<uint8_t> b = read_file(path);
    return std::string(b.begin(), b.end());
}

CheckpointFiles open_checkpoint_files(const std::string& folder, const std::vector<std::string>& names, bool sharded) {
    CheckpointFiles f;
    if (sharded) f.index = read_text(data_path(folder + "/model.safetensors.index.json"));
    for (const std::string& w : names) {
        auto source = FileSource::open(data_path(folder + "/" + w));
        EXPECT_TRUE(source.is_ok()) << source.status().message();
        if (!source.is_ok()) continue;
        f.files.push_back(std::make_unique<FileSource>(std::move(source).value()));
        f.shards.push_back({w, f.files.back().get()});
    }
    return f;
}

const std::vector<float>& Golden::at(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) {
        ADD_FAILURE() << "golden tensor '" << name << "' missing";
        static const std::vector<float> empty;
        return empty;
    }
    return it->second;
}

std::vector<uint8_t> Golden::mask(const std::string& name) const {
    std::vector<uint8_t> m;
    for (float v : at(name)) m.push_back(v != 0.0f);
    return m;
}

std::vector<int32_t> Golden::tokens(const std::string& name) const {
    std::vector<int32_t> t;
    for (float v : at(name)) t.push_back(int32_t(v));
    return t;
}

Golden load_golden(const std::string& file) {
    Golden g;
    const std::vector<uint8_t> bytes = read_file(data_path(file));
    auto parsed = SafetensorsFile::parse(bytes.data(), bytes.size());
    EXPECT_TRUE(parsed.is_ok()) << parsed.status().message();
    if (!parsed.is_ok()) return g;
    SafetensorsFile& f = parsed.value();
    const std::vector<TensorInfo> infos = f.tensors();
    for (const TensorInfo& t : infos) {
        if (t.dtype == DType::kI64 || t.dtype == DType::kI32) {
            std::vector<float>& v = g.values[t.name];
            for (uint64_t i = 0; i < t.elements; ++i) {
                int64_t x = 0;
                if (t.dtype == DType::kI64) std::memcpy(&x, bytes.data() + t.offset + 8 * i, 8);
                else {
                    int32_t y;
                    std::memcpy(&y, bytes.data() + t.offset + 4 * i, 4);
                    x = y;
                }
                v.push_back(float(x));
            }
            g.shapes[t.name] = t.shape;
            continue;
        }
        auto b = f.read(t);
        EXPECT_TRUE(b.is_ok()) << b.status().message();
        if (!b.is_ok()) continue;
        g.values[t.name] = std::vector<float>(b.value().data(), b.value().data() + b.value().size());
        g.shapes[t.name] = t.shape;
    }
    return g;
}

Model load_case(const std::string& name) {
    const std::vector<uint8_t> bytes = read_file(data_path(name + ".safetensors"));
    auto m = Model::load(bytes.data(), bytes.size(), read_text(data_path(name + ".json")));
    EXPECT_TRUE(m.is_ok()) << name << ": " << m.status().message();
    if (!m.is_ok()) return Model();
    return std::move(m).value();
}

Workspace workspace(const Model& m, size_t batch, size_t n, size_t context, size_t logits_rows) {
    WorkspaceLimits limits;
    limits.max_batch = batch;
    limits.max_src_len = n;
    limits.max_context = context;
    limits.max_logits_rows = logits_rows;
    auto ws = m.make_workspace(limits);
    EXPECT_TRUE(ws.is_ok()) << ws.status().message();
    return std::move(ws).value();
}

std::vector<int32_t> all_rows(size_t n) {
    std::vector<int32_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = int32_t(i);
    return rows;
}

}  // namespace simdformer::test
