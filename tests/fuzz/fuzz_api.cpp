// libFuzzer target: argument validation of the public API. Shapes, lengths, masks, options and
// values (including NaN/Inf) are decoded from the input and thrown at a small encoder-decoder
// model and at the standalone attention op. Every call must return a Status or a result; the
// model must stay usable (a known-good call afterwards gives the known-good answer).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "simdformer/io/weight_reader.h"  // MapWeightReader (internal)
#include "simdformer/simdformer.h"

namespace sf = simdformer;

namespace {

// Reads the fuzz input front to back; past the end it yields zeros.
struct Reader {
    const uint8_t* p;
    size_t n;
    uint8_t byte() { return n ? (--n, *p++) : 0; }
    size_t below(size_t limit) { return limit ? byte() % limit : 0; }
    float value() {
        switch (byte() % 16) {
            case 0: return std::numeric_limits<float>::quiet_NaN();
            case 1: return std::numeric_limits<float>::infinity();
            case 2: return -std::numeric_limits<float>::infinity();
            case 3: return 1e30f;
            default: return (float(byte()) - 128.0f) / 32.0f;
        }
    }
};

struct Fixture {
    sf::Model model;
    sf::Workspace ws;
    std::vector<int32_t> src = {3, 4, 5, 6};
    std::vector<int32_t> expected;
};

Fixture* make_fixture() {
    sf::MapWeightReader w;
    const size_t d = 8, h = 2, ff = 16, vocab = 10, layers = 1, da = 4;
    uint32_t state = 12345;
    auto rnd = [&](size_t n) {
        std::vector<float> v(n);
        for (float& x : v) {
            state = state * 1664525u + 1013904223u;
            x = (float(state >> 8) / float(1 << 24) - 0.5f) * 0.5f;
        }
        return v;
    };
    auto attention = [&](const std::string& p) {
        w.put(p + "in_proj_weight", {3 * d, d}, rnd(3 * d * d));
        w.put(p + "in_proj_bias", {3 * d}, rnd(3 * d));
        w.put(p + "out_proj.weight", {d, d}, rnd(d * d));
        w.put(p + "out_proj.bias", {d}, rnd(d));
        w.put(p + "additive.q_weight", {h, da, d / h}, rnd(h * da * d / h));
        w.put(p + "additive.k_weight", {h, da, d / h}, rnd(h * da * d / h));
        w.put(p + "additive.v_weight", {h, da}, rnd(h * da));
    };
    auto norm = [&](const std::string& p) {
        w.put(p + "weight", {d}, std::vector<float>(d, 1.0f));
        w.put(p + "bias", {d}, std::vector<float>(d, 0.0f));
    };
    auto ffn = [&](const std::string& p) {
        w.put(p + "linear1.weight", {ff, d}, rnd(ff * d));
        w.put(p + "linear1.bias", {ff}, rnd(ff));
        w.put(p + "linear2.weight", {d, ff}, rnd(d * ff));
        w.put(p + "linear2.bias", {d}, rnd(d));
    };
    for (size_t i = 0; i < layers; ++i) {
        const std::string e = "encoder.layers." + std::to_string(i) + ".", dd = "decoder.layers." + std::to_string(i) + ".";
        attention(e + "self_attn.");
        ffn(e);
        norm(e + "norm1.");
        norm(e + "norm2.");
        attention(dd + "self_attn.");
        attention(dd + "multihead_attn.");
        ffn(dd);
        norm(dd + "norm1.");
        norm(dd + "norm2.");
        norm(dd + "norm3.");
    }
    w.put("src_embedding.weight", {vocab, d}, rnd(vocab * d));
    w.put("tgt_embedding.weight", {vocab, d}, rnd(vocab * d));
    w.put("generator.weight", {vocab, d}, rnd(vocab * d));
    w.put("generator.bias", {vocab}, rnd(vocab));
    auto config = sf::parse_model_config(R"({"model_type":"transformer","d_model":8,"nhead":2,"dim_feedforward":16,
        "num_encoder_layers":1,"num_decoder_layers":1,"vocab_size":10,"max_len":12,"additive_dim":4,
        "bos_token":1,"eos_token":2})");
    auto model = sf::Model::load(w, config.value());
    auto ws = model.value().make_workspace({3, 12, 12, true});
    auto* f = new Fixture{std::move(model).value(), std::move(ws).value()};
    sf::GenerateRequest g;
    g.src = {4, nullptr, f->src.data(), nullptr, nullptr, false};
    g.max_length = 8;
    if (f->model.generate(g, f->ws).is_ok())
        f->expected.assign(f->ws.generated(), f->ws.generated() + f->ws.generated_length());
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static Fixture* fixture = make_fixture();
    Reader in{data, size};
    const size_t batch = in.below(5), n = in.below(16), n_tgt = in.below(16);
    std::vector<int32_t> tokens(batch * n + 1), tgt(batch * n_tgt + 1);
    for (int32_t& t : tokens) t = int32_t(in.byte()) - 20;
    for (int32_t& t : tgt) t = int32_t(in.byte() % 12);
    std::vector<uint8_t> padding(16 * 5);  // [batch <= 4, 16] for the model; [n_seq_k <= 5] for attention
    for (uint8_t& p : padding) p = in.byte() & 1;
    std::vector<float> mask(16 * 16);
    for (float& m : mask) m = in.value();
    const sf::AttentionOptions options{sf::ScoreKind(in.below(3)), sf::NormalizeKind(in.below(2))};

    const uint8_t which = in.byte() % 3;
    if (which == 0) {
        sf::ForwardRequest r;
        r.n_batch = batch;
        r.src = {n, nullptr, tokens.data(), (in.byte() & 1) ? padding.data() : nullptr,
                 (in.byte() & 1) ? mask.data() : nullptr, bool(in.byte() & 1)};
        r.tgt = {n_tgt, nullptr, tgt.data(), nullptr, nullptr, true};
        r.options = options;
        r.need_weights = in.byte() & 1;
        r.encoder_only = in.byte() & 1;
        (void)fixture->model.forward(r, fixture->ws);
    } else if (which == 1) {
        sf::GenerateRequest g;
        g.n_batch = batch;
        g.src = {n, nullptr, tokens.data(), (in.byte() & 1) ? padding.data() : nullptr, nullptr, false};
        g.max_length = in.below(20);
        g.bos = int64_t(in.byte() % 14) - 2;
        g.eos = int64_t(in.byte() % 14) - 2;
        g.options = options;
        g.need_weights = in.byte() & 1;
        (void)fixture->model.generate(g, fixture->ws);
    } else {
        const size_t nq = in.below(6), nk = in.below(6), dk = in.below(6), dv = in.below(6), da = in.below(4);
        std::vector<float> q(nq * dk + 1), k(nk * dk + 1), v(nk * dv + 1), wq(da * dk + 1), wk(da * dk + 1), wv(da + 1);
        for (auto* vec : {&q, &k, &v, &wq, &wk, &wv})
            for (float& x : *vec) x = in.value();
        std::vector<float> out(nq * dv + 1), weights(nq * nk + 1);
        sf::AttentionRequest r;
        r.n_seq_q = nq;
        r.n_seq_k = nk;
        r.d_k = dk;
        r.d_v = dv;
        r.q = q.data();
        r.k = k.data();
        r.v = v.data();
        r.options = options;
        r.additive_dim = da;
        r.w_q = wq.data();
        r.w_k = wk.data();
        r.w_v = wv.data();
        r.key_padding = (in.byte() & 1) ? padding.data() : nullptr;
        r.attn_mask = (in.byte() & 1) && nq * nk <= mask.size() ? mask.data() : nullptr;
        r.causal = in.byte() & 1;
        (void)sf::attention(r, out.data(), weights.data());
    }

    // The model still works and still gives the same answer.
    sf::GenerateRequest g;
    g.src = {4, nullptr, fixture->src.data(), nullptr, nullptr, false};
    g.max_length = 8;
    if (!fixture->model.generate(g, fixture->ws).is_ok()) __builtin_trap();
    if (std::vector<int32_t>(fixture->ws.generated(), fixture->ws.generated() + fixture->ws.generated_length()) !=
        fixture->expected)
        __builtin_trap();
    return 0;
}
