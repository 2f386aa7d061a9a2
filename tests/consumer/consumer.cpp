// Loads a model file with the installed library and runs it: a batch of two sequences must
// give, bit for bit, what each sequence gives alone, and every output must be finite.
//
//   consumer <model.safetensors> <config.json>
#include <simdformer/simdformer.h>

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

int main(int argc, char** argv) {
    if (argc != 3) return fail("usage: consumer <model.safetensors> <config.json>");
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
    return 0;
}
