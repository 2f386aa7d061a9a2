// Encodes with any simdformer model file and prints what attention did.
//
//   simdformer_encode <model.safetensors> [config.json] [tokens...]
//
// Vector models get a deterministic pseudo-random input; token models use the given ids (or
// 1 2 3 ...). Transformers with a generator decode greedily. For every attention map the
// query rows are printed with their strongest key, and head 0 of the last layer as a heatmap.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "simdformer/simdformer.h"

namespace sf = simdformer;

namespace {

std::string read_all(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void print_heatmap(const char* title, const sf::AttentionMap& m) {
    if (!m.data) return;
    static const char* shades[] = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"};
    std::printf("%s  [batch 0, head 0 of %zu; rows = queries, columns = keys]\n", title, m.nhead);
    for (size_t q = 0; q < m.n_seq_q; ++q) {
        const float* row = m.data + q * m.n_seq_k;
        size_t best = 0;
        std::printf("  q%-3zu |", q);
        for (size_t k = 0; k < m.n_seq_k; ++k) {
            const int level = std::min(9, int(std::lround(row[k] * 9.0f)));
            std::printf("%s", shades[level]);
            if (row[k] > row[best]) best = k;
        }
        std::printf("|  argmax k%zu (%.2f)\n", best, row[best]);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <model.safetensors> [config.json] [tokens...]\n", argv[0]);
        return 2;
    }
    const std::string bytes = read_all(argv[1]);
    if (bytes.empty()) {
        std::fprintf(stderr, "error: cannot read %s\n", argv[1]);
        return 1;
    }
    const std::string config = argc > 2 ? read_all(argv[2]) : std::string();
    auto loaded = sf::Model::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), config);
    if (!loaded.is_ok()) {
        std::fprintf(stderr, "error: %s\n", loaded.status().message().c_str());
        return 1;
    }
    const sf::Model& model = loaded.value();
    const sf::ModelConfig& c = model.config();
    std::printf("%s: d_model=%zu nhead=%zu layers=%zu+%zu parameters=%zu kernels=%s (%zu lanes)\n",
                sf::torch_module_name(c.kind).c_str(), c.d_model, c.nhead, c.num_encoder_layers, c.num_decoder_layers,
                model.parameter_count(), sf::simd_arch(), sf::simd_lanes());

    std::vector<int32_t> tokens;
    for (int i = 3; i < argc; ++i) tokens.push_back(std::stoi(argv[i]));
    if (tokens.empty())
        for (int32_t i = 0; i < 6; ++i) tokens.push_back(c.src_vocab_size ? (3 + i) % int32_t(c.src_vocab_size) : 0);
    const size_t n = tokens.size();
    std::vector<float> x(n * c.d_model);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.37 * double(i) + 1.0));

    auto ws = model.make_workspace({1, n, c.max_len < 64 ? c.max_len : 64, true});
    if (!ws.is_ok()) {
        std::fprintf(stderr, "error: %s\n", ws.status().message().c_str());
        return 1;
    }
    const auto start = std::chrono::steady_clock::now();
    sf::Status st;
    if (c.kind == sf::TorchModule::kTransformer && c.tgt_vocab_size) {
        sf::GenerateRequest r;
        r.src.n_seq = n;
        r.src.tokens = tokens.data();
        r.max_length = ws.value().limits().max_tgt_len;
        r.need_weights = true;
        st = model.generate(r, ws.value());
    } else {
        sf::ForwardRequest r;
        r.src.n_seq = n;
        r.src.embeddings = c.src_vocab_size ? nullptr : x.data();
        r.src.tokens = c.src_vocab_size ? tokens.data() : nullptr;
        r.tgt = r.src;
        r.memory = x.data();
        r.n_seq_memory = n;
        r.need_weights = true;
        st = model.forward(r, ws.value());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!st.is_ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        return 1;
    }
    std::printf("forward: %.3f ms\n", ms);
    const sf::Workspace& w = ws.value();
    if (w.generated_length()) {
        std::printf("generated:");
        for (size_t i = 0; i < w.generated_length(); ++i) std::printf(" %d", w.generated()[i]);
        std::printf("\n");
    } else if (w.output()) {
        std::printf("output[0][0..4]: %.5f %.5f %.5f %.5f\n", w.output()[0], w.output()[1], w.output()[2], w.output()[3]);
    }
    if (!w.encoder_attention().empty()) print_heatmap("encoder self-attention, last layer", w.encoder_attention().back());
    if (!w.decoder_self_attention().empty()) print_heatmap("decoder self-attention, last layer", w.decoder_self_attention().back());
    if (!w.decoder_cross_attention().empty()) print_heatmap("cross-attention, last layer", w.decoder_cross_attention().back());
    return 0;
}
