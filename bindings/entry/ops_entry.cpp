#include "ops_entry.h"

#include <cmath>

#include "options.h"
#include "reply.h"
#include "simdformer/attention.h"
#include "simdformer/io.h"
#include "simdformer/threads.h"

namespace simdformer::entry {

int LinearEntry::create(Number weight, Number bias, Number in_features, Number out_features) {
    return guarded("linear", [&]() -> Status {
        size_t in = 0, out = 0;
        SF_RETURN_IF_ERROR(size(in_features, "linear: inFeatures", 1, kMaxSize, &in));
        SF_RETURN_IF_ERROR(size(out_features, "linear: outFeatures", 1, kMaxSize, &out));
        uint64_t n = 0;
        SF_RETURN_IF_ERROR(product({out, in}, "linear: weight", kMaxArrayBytes / sizeof(float), &n));
        const float *w = nullptr, *b = nullptr;
        SF_RETURN_IF_ERROR(array_of(weight, n, "linear: weight", false, &w));
        SF_RETURN_IF_ERROR(array_of(bias, out, "linear: bias", true, &b));
        auto op = LinearOp::create(w, b, in, out);
        if (!op.is_ok()) return op.status();
        op_ = std::move(op).value();
        in_ = in;
        out_ = out;
        return Status::ok();
    });
}

int LinearEntry::forward(Number x, Number rows, Number y) const {
    return guarded("linear.forward", [&]() -> Status {
        if (in_ == 0) return Status::invalid("linear.forward: the layer was not created");
        size_t n = 0;
        SF_RETURN_IF_ERROR(size(rows, "linear.forward: rows", 1, kMaxSize, &n));
        uint64_t n_in = 0, n_out = 0;
        SF_RETURN_IF_ERROR(product({n, in_}, "linear.forward: x", kMaxArrayBytes / sizeof(float), &n_in));
        SF_RETURN_IF_ERROR(product({n, out_}, "linear.forward: y", kMaxArrayBytes / sizeof(float), &n_out));
        const float* in = nullptr;
        float* out = nullptr;
        SF_RETURN_IF_ERROR(array_of(x, n_in, "linear.forward: x", false, &in));
        SF_RETURN_IF_ERROR(array_of(y, n_out, "linear.forward: y", false, &out));
        return op_.forward(n, in, out);
    });
}

int attention(const AttentionArgs& a) {
    return guarded("attention", [&]() -> Status {
        AttentionRequest r;
        SF_RETURN_IF_ERROR(attention_options(a.score, a.normalize, &r.options));
        SF_RETURN_IF_ERROR(size(a.n_seq_q, "attention: nSeqQ", 1, kMaxSize, &r.n_seq_q));
        SF_RETURN_IF_ERROR(size(a.n_seq_k, "attention: nSeqK", 1, kMaxSize, &r.n_seq_k));
        SF_RETURN_IF_ERROR(size(a.d_k, "attention: dK", 1, kMaxSize, &r.d_k));
        SF_RETURN_IF_ERROR(size(a.d_v, "attention: dV", 1, kMaxSize, &r.d_v));
        SF_RETURN_IF_ERROR(size(a.additive_dim, "attention: additiveDim", 0, kMaxSize, &r.additive_dim));
        const uint64_t limit = kMaxArrayBytes / sizeof(float);
        uint64_t nq_dk = 0, nk_dk = 0, nk_dv = 0, da_dk = 0, nq_nk = 0, nq_dv = 0;
        SF_RETURN_IF_ERROR(product({r.n_seq_q, r.d_k}, "attention: Q", limit, &nq_dk));
        SF_RETURN_IF_ERROR(product({r.n_seq_k, r.d_k}, "attention: K", limit, &nk_dk));
        SF_RETURN_IF_ERROR(product({r.n_seq_k, r.d_v}, "attention: V", limit, &nk_dv));
        SF_RETURN_IF_ERROR(product({r.additive_dim, r.d_k}, "attention: additive weights", limit, &da_dk));
        SF_RETURN_IF_ERROR(product({r.n_seq_q, r.n_seq_k}, "attention: weights", limit, &nq_nk));
        SF_RETURN_IF_ERROR(product({r.n_seq_q, r.d_v}, "attention: output", limit, &nq_dv));
        SF_RETURN_IF_ERROR(array_of(a.q, nq_dk, "attention: Q", false, &r.q));
        SF_RETURN_IF_ERROR(array_of(a.k, nk_dk, "attention: K", false, &r.k));
        SF_RETURN_IF_ERROR(array_of(a.v, nk_dv, "attention: V", false, &r.v));
        SF_RETURN_IF_ERROR(array_of(a.w_q, da_dk, "attention: additive wQ", true, &r.w_q));
        SF_RETURN_IF_ERROR(array_of(a.w_k, da_dk, "attention: additive wK", true, &r.w_k));
        SF_RETURN_IF_ERROR(array_of(a.w_v, r.additive_dim, "attention: additive wV", true, &r.w_v));
        SF_RETURN_IF_ERROR(array_of(a.key_padding, r.n_seq_k, "attention: keyPadding", true, &r.key_padding));
        SF_RETURN_IF_ERROR(array_of(a.attn_mask, nq_nk, "attention: attnMask", true, &r.attn_mask));
        SF_RETURN_IF_ERROR(flag(a.causal, "attention: causal", &r.causal));
        float *out = nullptr, *weights = nullptr;
        SF_RETURN_IF_ERROR(array_of(a.out, nq_dv, "attention: output", false, &out));
        SF_RETURN_IF_ERROR(array_of(a.weights, nq_nk, "attention: weights", true, &weights));
        return simdformer::attention(r, out, weights);
    });
}

int layer_norm(Number rows, Number d, Number x, Number gamma, Number beta, Number eps, Number y) {
    return guarded("layerNorm", [&]() -> Status {
        size_t n = 0, width = 0;
        SF_RETURN_IF_ERROR(size(rows, "layerNorm: rows", 1, kMaxSize, &n));
        SF_RETURN_IF_ERROR(size(d, "layerNorm: d", 1, kMaxSize, &width));
        if (!(eps > 0) || !std::isfinite(eps) || float(eps) <= 0.0f || !std::isfinite(float(eps)))
            return Status::invalid("layerNorm: eps must be a positive number that float32 can hold");
        uint64_t values = 0;
        SF_RETURN_IF_ERROR(product({n, width}, "layerNorm: x", kMaxArrayBytes / sizeof(float), &values));
        const float *px = nullptr, *g = nullptr, *b = nullptr;
        float* py = nullptr;
        SF_RETURN_IF_ERROR(array_of(x, values, "layerNorm: x", false, &px));
        SF_RETURN_IF_ERROR(array_of(gamma, width, "layerNorm: gamma", false, &g));
        SF_RETURN_IF_ERROR(array_of(beta, width, "layerNorm: beta", false, &b));
        SF_RETURN_IF_ERROR(array_of(y, values, "layerNorm: y", false, &py));
        return simdformer::layer_norm(n, width, px, g, b, float(eps), py);
    });
}

int positional_encoding(Number n, Number d, Number out) {
    return guarded("positionalEncoding", [&]() -> Status {
        size_t positions = 0, width = 0;
        SF_RETURN_IF_ERROR(size(n, "positionalEncoding: n", 1, kMaxSize, &positions));
        SF_RETURN_IF_ERROR(size(d, "positionalEncoding: d", 1, kMaxSize, &width));
        uint64_t values = 0;
        SF_RETURN_IF_ERROR(product({positions, width}, "positionalEncoding", kMaxArrayBytes / sizeof(float), &values));
        float* p = nullptr;
        SF_RETURN_IF_ERROR(array_of(out, values, "positionalEncoding: out", false, &p));
        return simdformer::positional_encoding(positions, width, p);
    });
}

int describe_safetensors(Number data, Number size_arg, std::string* json) {
    return guarded("inspect", [&]() -> Status {
        size_t n = 0;
        SF_RETURN_IF_ERROR(size(size_arg, "inspect: size", 0, kMaxArrayBytes, &n));
        const uint8_t* bytes = nullptr;
        SF_RETURN_IF_ERROR(array_of(data, n, "inspect: data", n == 0, &bytes));
        auto d = simdformer::describe_safetensors(bytes, n);
        if (!d.is_ok()) return d.status();
        *json = std::move(d).value();
        return Status::ok();
    });
}

int set_thread_count(Number n) {
    return guarded("setThreads", [&]() -> Status {
        // JS numbers: only exact integers in range reach the size_t conversion.
        if (!(n >= 1 && n <= 64) || n != std::floor(n))
            return Status::invalid("threads must be an integer in [1, 64], got " + js_text(n));
        return simdformer::set_threads(size_t(n));
    });
}

}  // namespace simdformer::entry
