// Uses the installed library as an application would:
// 1. a model file of simdformer's nn.Transformer dialect: a batch of two sequences must give, bit
//    for bit, what each sequence gives alone, and every output must be finite;
// 2. a Hugging Face BERT folder (config.json + model.safetensors, read from disk a chunk at a
//    time): its pooled sentence vector must be finite, and a padded batch must give the
//    unpadded sequence's vector.
//
//   consumer <model.safetensors> <config.json> <Hugging Face BERT folder>
#include <simdformer/simdformer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace sf = simdformer;

namespace {

std::string read_all(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int fail(const std::string& what) {
    std::fprintf(stderr, "consumer: %s\n", what.c_str());
    return 1;
}

}  // namespace

// The pooler output of `ids` alone and as item 1 of a padded batch of two must agree.
int run_bert(const std::string& folder) {
    auto file = sf::FileSource::open(folder + "/model.safetensors");
    if (!file.is_ok()) return fail(file.status().message());
    auto loaded = sf::Model::load_checkpoint(read_all((folder + "/config.json").c_str()),
                                             {{"model.safetensors", &file.value()}}, "");
    if (!loaded.is_ok()) return fail(loaded.status().message());
    const sf::Model& model = loaded.value();
    const size_t d = model.config().d_model, n = 6;
    sf::WorkspaceLimits limits;
    limits.max_batch = 2;
    limits.max_src_len = n;
    auto ws = model.make_workspace(limits);
    if (!ws.is_ok()) return fail(ws.status().message());

    const std::vector<int32_t> ids = {2, 10, 11, 12, 3, 0, 2, 20, 21, 3, 0, 0};  // [2, n], 0 = [PAD]
    const std::vector<uint8_t> mask = {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0};
    sf::TextRequest r;
    r.n_batch = 2;
    r.n_seq = n;
    r.tokens = ids.data();
    r.attention_mask = mask.data();
    r.need_pooler = true;
    if (sf::Status st = model.forward_text(r, ws.value()); !st.is_ok()) return fail(st.message());
    const std::vector<float> batch(ws.value().pooler() + d, ws.value().pooler() + 2 * d);  // item 1
    r.n_batch = 1;
    r.n_seq = 4;
    r.tokens = ids.data() + n;
    r.attention_mask = nullptr;
    if (sf::Status st = model.forward_text(r, ws.value()); !st.is_ok()) return fail(st.message());
    double worst = 0;
    for (size_t i = 0; i < d; ++i) {
        if (!std::isfinite(batch[i])) return fail("pooler output is not finite");
        worst = std::max(worst, std::fabs(double(batch[i]) - double(ws.value().pooler()[i])));
    }
    if (worst > 1e-5) return fail("padded and unpadded pooler outputs differ by " + std::to_string(worst));
    std::printf("consumer: %s\n", model.info_json().substr(0, 60).c_str());
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 4) return fail("usage: consumer <model.safetensors> <config.json> <Hugging Face BERT folder>");
    const std::string bytes = read_all(argv[1]), config = read_all(argv[2]);
    auto loaded = sf::Model::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), config);
    if (!loaded.is_ok()) return fail(loaded.status().message());
    const sf::Model& model = loaded.value();
    const size_t d = model.config().d_model, n = 5;

    sf::WorkspaceLimits limits;
    limits.max_batch = 2;
    limits.max_src_len = n;
    auto ws = model.make_workspace(limits);
    if (!ws.is_ok()) return fail(ws.status().message());

    std::vector<float> x(2 * n * d);  // [2, n, d_model]
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.37 * double(i) + 1.0));
    sf::ForwardRequest r;
    r.n_batch = 2;
    r.src.n_seq = n;
    r.src.embeddings = x.data();
    if (sf::Status st = model.forward(r, ws.value()); !st.is_ok()) return fail(st.message());
    const std::vector<float> batch(ws.value().output(), ws.value().output() + 2 * n * d);

    for (size_t b = 0; b < 2; ++b) {
        r.n_batch = 1;
        r.src.embeddings = x.data() + b * n * d;
        if (sf::Status st = model.forward(r, ws.value()); !st.is_ok()) return fail(st.message());
        for (size_t i = 0; i < n * d; ++i) {
            const float one = ws.value().output()[i];
            if (!std::isfinite(one) || one != batch[b * n * d + i])
                return fail("item " + std::to_string(b) + " element " + std::to_string(i) + ": alone " +
                            std::to_string(one) + ", in the batch " + std::to_string(batch[b * n * d + i]));
        }
    }
    std::printf("consumer: simdformer %s (%s, %zu lanes): %zu parameters, [2, %zu, %zu] output, batch = one by one\n",
                sf::version(), sf::simd_arch(), sf::simd_lanes(), model.parameter_count(), n, d);
    return run_bert(argv[3]);
}
