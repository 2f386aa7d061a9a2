// int8 GEMMs against the f32 GEMM on the BERT-base and decoding shapes, in one process:
// warm-up, then interleaved rounds (f32, f32_qc8w, qd8_qc8w in rotating order, so that load
// from other processes hits all three alike), medians per kernel and the median over rounds of
// each kernel's time divided by the f32 time of the same round. The same source
// builds natively and to wasm (run by node):
//   build/native-release/bench/bench_int8            node build/wasm-release/bench/bench_int8.js
// Then a whole BERT-base layer through Model::forward_text, f32 against int8 weights.
// Arguments: [budget_ms per shape, default 3000] [shape filter substring, e.g. 128x768x, or layer]
//            [warm-up ms per shape, default 2000].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/buffer.h"
#include "int8/gemm_f32_qc8w.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/simdformer.h"

namespace k = simdformer::kernels;

namespace {

struct Shape {
    size_t m, n, k;  // C[m, n] = A[m, k] · W[k, n]
    const char* what;
};

const Shape kShapes[] = {
    {128, 768, 768, "BERT q/k/v/out projections"},
    {128, 3072, 768, "BERT feed-forward up"},
    {128, 768, 3072, "BERT feed-forward down"},
    {1, 768, 768, "decoding step, projection"},
    {1, 50257, 768, "decoding step, GPT-2 LM head"},
};

double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

struct Result {
    double f32 = 0, a = 0, b = 0;  // median ms per call
};

Result run_shape(const Shape& s, double budget_ms, double warmup_ms) {
    // 64-byte aligned buffers, as the layers hold them (plain vectors made timings depend on
    // where malloc happened to put them).
    auto buffer = [](size_t floats) {
        auto b = simdformer::Buffer::uninitialized(floats, "bench");
        if (!b.is_ok()) {
            std::fprintf(stderr, "%s\n", b.status().message().c_str());
            std::exit(1);
        }
        return std::move(b).value();
    };
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    simdformer::Buffer a = buffer(s.m * s.k), bias = buffer(s.n), c = buffer(s.m * s.n);
    simdformer::Buffer packed_f32 = buffer(k::packed_b_size(s.k, s.n));
    simdformer::Buffer packed_i8 = buffer((k::packed_i8_size(s.k, s.n) + 3) / 4);
    for (size_t i = 0; i < a.size(); ++i) a.data()[i] = nd(rng);
    for (size_t i = 0; i < bias.size(); ++i) bias.data()[i] = 0.1f * nd(rng);
    {
        simdformer::Buffer w = buffer(s.k * s.n);  // freed before timing (the LM head is big)
        for (size_t i = 0; i < w.size(); ++i) w.data()[i] = 0.05f * nd(rng);
        k::pack_b(s.k, s.n, w.data(), s.n, 1, packed_f32.data());
        k::pack_i8(s.k, s.n, w.data(), s.n, 1, packed_i8.data());
    }
    k::Epilogue ep;
    ep.bias = bias.data();

    auto f32 = [&] { k::gemm_f32_packed(s.m, s.n, s.k, a.data(), s.k, packed_f32.data(), c.data(), s.n, ep); };
    auto qa = [&] { k::gemm_f32_qc8w(s.m, s.n, s.k, a.data(), s.k, packed_i8.data(), c.data(), s.n, ep); };
    auto qb = [&] { k::gemm_qd8_qc8w(s.m, s.n, s.k, a.data(), s.k, packed_i8.data(), c.data(), s.n, ep); };

    // Calls per sample so that one sample lasts >= ~2 ms (timer resolution, call overhead).
    double t0 = now_ms();
    f32();
    const double one = std::max(1e-3, now_ms() - t0);
    const int calls = std::max(1, int(2.0 / one));
    auto sample = [&](auto& fn) {
        const double t = now_ms();
        for (int i = 0; i < calls; ++i) fn();
        return (now_ms() - t) / calls;
    };
    // Warm-up long enough for V8 to replace every function's baseline (Liftoff) code with
    // optimized (TurboFan) code: tier-up is per function and compiles in the background, so a few
    // calls are not enough on a busy machine and the first rounds would measure baseline code.
    const double warm_start = now_ms();
    for (int i = 0; i < 3 || now_ms() - warm_start < warmup_ms; ++i) {
        sample(f32);
        sample(qa);
        sample(qb);
    }
    std::vector<double> tf, ta, tb, ra, rb;  // times, and ratios to f32 within each round
    const double start = now_ms();
    for (int round = 0; round < 7 || (now_ms() - start < budget_ms && round < 400); ++round) {
        double f = 0, x = 0, y = 0;
        switch (round % 3) {  // rotate the order
            case 0: f = sample(f32); x = sample(qa); y = sample(qb); break;
            case 1: x = sample(qa); y = sample(qb); f = sample(f32); break;
            default: y = sample(qb); f = sample(f32); x = sample(qa); break;
        }
        tf.push_back(f);
        ta.push_back(x);
        tb.push_back(y);
        ra.push_back(x / f);
        rb.push_back(y / f);
    }
    Result r{median(tf), median(ta), median(tb)};
    const double gflop = 2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9;
    std::printf("%4zux%-5zux%-5zu %-30s %4zu rounds | f32 %8.3f ms %5.1f GF/s | f32_qc8w %8.3f ms x%.2f | "
                "qd8_qc8w %8.3f ms x%.2f\n",
                s.m, s.n, s.k, s.what, tf.size(), r.f32, gflop / r.f32 * 1e3, r.a, median(ra), r.b, median(rb));
    std::fflush(stdout);
    return r;
}

// A whole BERT-base layer (d 768, 12 heads, d_ff 3072, GELU; random weights, a 1000-token
// vocabulary) through Model::forward_text on 128 tokens, f32 and int8 weights, interleaved.
void run_layer(double budget_ms, double warmup_ms) {
    const size_t d = 768, ff = 3072, vocab = 1000, positions = 128, n = 128;
    std::vector<std::pair<std::string, std::pair<simdformer::Shape, std::vector<float>>>> t;
    std::mt19937 rng(3);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    auto add = [&](const std::string& name, simdformer::Shape shape, float fill = -1.0f) {
        size_t count = 1;
        for (size_t x : shape) count *= x;
        std::vector<float> v(count);
        for (float& x : v) x = fill >= 0.0f ? fill : nd(rng);
        t.push_back({name, {shape, std::move(v)}});
    };
    add("embeddings.word_embeddings.weight", {vocab, d});
    add("embeddings.position_embeddings.weight", {positions, d});
    add("embeddings.token_type_embeddings.weight", {2, d});
    add("embeddings.LayerNorm.weight", {d}, 1.0f);
    add("embeddings.LayerNorm.bias", {d}, 0.0f);
    const std::string p = "encoder.layer.0.";
    for (const char* m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
        add(p + m + ".weight", {d, d});
        add(p + m + ".bias", {d});
    }
    add(p + "attention.output.LayerNorm.weight", {d}, 1.0f);
    add(p + "attention.output.LayerNorm.bias", {d}, 0.0f);
    add(p + "intermediate.dense.weight", {ff, d});
    add(p + "intermediate.dense.bias", {ff});
    add(p + "output.dense.weight", {d, ff});
    add(p + "output.dense.bias", {d});
    add(p + "output.LayerNorm.weight", {d}, 1.0f);
    add(p + "output.LayerNorm.bias", {d}, 0.0f);
    std::vector<std::pair<std::string, std::pair<simdformer::Shape, const float*>>> views;
    for (const auto& [name, v] : t) views.push_back({name, {v.first, v.second.data()}});
    const std::vector<uint8_t> bytes = simdformer::write_safetensors(views);
    const std::string config = R"({"model_type":"bert","architectures":["BertModel"],"hidden_size":768,
        "num_hidden_layers":1,"num_attention_heads":12,"intermediate_size":3072,"vocab_size":1000,
        "max_position_embeddings":128,"type_vocab_size":2,"hidden_act":"gelu","layer_norm_eps":1e-12,
        "pad_token_id":0})";
    simdformer::Model models[2];
    simdformer::Workspace spaces[2];
    size_t held[2] = {0, 0};  // bytes the loaded model keeps
    for (int int8 = 0; int8 < 2; ++int8) {
        const size_t before = simdformer::Buffer::live_bytes();
        simdformer::MemorySource source(bytes.data(), bytes.size());
        simdformer::LoadOptions options;
        options.weights = int8 ? simdformer::WeightFormat::kInt8 : simdformer::WeightFormat::kF32;
        auto m = simdformer::Model::load_checkpoint(config, {{"model.safetensors", &source}}, "", options);
        if (!m.is_ok()) {
            std::fprintf(stderr, "layer: %s\n", m.status().message().c_str());
            std::exit(1);
        }
        models[int8] = std::move(m).value();
        held[int8] = simdformer::Buffer::live_bytes() - before;
        simdformer::WorkspaceLimits limits;
        limits.max_src_len = n;
        limits.record_attention = false;
        auto ws = models[int8].make_workspace(limits);
        if (!ws.is_ok()) std::exit(1);
        spaces[int8] = std::move(ws).value();
    }
    std::vector<int32_t> tokens(n);
    for (size_t i = 0; i < n; ++i) tokens[i] = int32_t((i * 37 + 5) % vocab);
    simdformer::TextRequest r;
    r.n_seq = n;
    r.tokens = tokens.data();
    auto call = [&](int int8) {
        const double t0 = now_ms();
        if (!models[int8].forward_text(r, spaces[int8]).is_ok()) std::exit(1);
        return now_ms() - t0;
    };
    const double warm_start = now_ms();
    for (int i = 0; i < 3 || now_ms() - warm_start < warmup_ms; ++i) {
        call(0);
        call(1);
    }
    std::vector<double> tf, ti, ratio;
    const double start = now_ms();
    for (int round = 0; round < 7 || (now_ms() - start < budget_ms && round < 400); ++round) {
        double f, q;
        if (round % 2) {
            f = call(0);
            q = call(1);
        } else {
            q = call(1);
            f = call(0);
        }
        tf.push_back(f);
        ti.push_back(q);
        ratio.push_back(q / f);
    }
    std::printf("BERT-base layer, forward_text 1 x 128 tokens (%zu rounds): f32 %.2f ms, int8 %.2f ms x%.2f; "
                "model bytes f32 %zu, int8 %zu (x%.3f)\n",
                tf.size(), median(tf), median(ti), median(ratio), held[0], held[1], double(held[1]) / double(held[0]));
}

}  // namespace

int main(int argc, char** argv) {
    const double budget = argc > 1 ? std::atof(argv[1]) : 3000.0;
    const std::string filter = argc > 2 ? argv[2] : "";
    const double warmup = argc > 3 ? std::atof(argv[3]) : 2000.0;
    std::printf("int8 GEMM bench: arch %s, %zu float lanes; times are medians per call; xR = median over rounds of time / f32 time in the same round\n",
                k::simd_arch(), k::simd_lanes());
    std::printf("   m x n    x k\n");
    Result layer[3];
    bool have_layer = true;
    for (size_t i = 0; i < sizeof(kShapes) / sizeof(kShapes[0]); ++i) {
        const Shape& s = kShapes[i];
        const std::string name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
        if (!filter.empty() && name.find(filter) == std::string::npos) {
            if (i < 3) have_layer = false;
            continue;
        }
        const Result r = run_shape(s, budget, warmup);
        if (i < 3) layer[i] = r;
    }
    if (have_layer) {
        // A BERT-base layer at 128 tokens: q, k, v, out (4 x 768x768), up (3072x768), down (768x3072).
        auto sum = [&](double Result::*f) { return 4 * layer[0].*f + layer[1].*f + layer[2].*f; };
        std::printf("BERT-base layer GEMMs (4 x 128x768x768 + 128x3072x768 + 128x768x3072): f32 %.2f ms, "
                    "f32_qc8w %.2f ms x%.2f, qd8_qc8w %.2f ms x%.2f\n",
                    sum(&Result::f32), sum(&Result::a), sum(&Result::a) / sum(&Result::f32), sum(&Result::b),
                    sum(&Result::b) / sum(&Result::f32));
    }
    if (filter.empty() || filter == "layer") run_layer(budget, warmup);
    return 0;
}
