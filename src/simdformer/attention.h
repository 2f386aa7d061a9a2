// The textbook operations, callable on their own (teaching level, also bound to JavaScript):
// one attention over explicit Q, K, V, and the sinusoidal positional table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdformer/config.h"
#include "simdformer/status.h"

namespace simdformer {

struct AttentionRequest {
    size_t n_seq_q = 0, n_seq_k = 0;
    size_t d_k = 0;  // width of queries and keys
    size_t d_v = 0;  // width of values
    const float* q = nullptr;  // [n_seq_q, d_k]
    const float* k = nullptr;  // [n_seq_k, d_k]
    const float* v = nullptr;  // [n_seq_k, d_v]
    AttentionOptions options;
    // Additive scores: s(q, k) = w_vᵀ tanh(W_q q + W_k k).
    size_t additive_dim = 0;
    const float* w_q = nullptr;  // [additive_dim, d_k]
    const float* w_k = nullptr;  // [additive_dim, d_k]
    const float* w_v = nullptr;  // [additive_dim]
    const uint8_t* key_padding = nullptr;  // [n_seq_k]; 1 = masked
    const float* attn_mask = nullptr;      // [n_seq_q, n_seq_k] additive (-inf = masked)
    bool causal = false;                   // key j masked for query i when j > i
};

// out [n_seq_q, d_v] = normalize(mask(score(Q, K))) V; weights [n_seq_q, n_seq_k] when not null.
// Validates everything (sizes, finiteness, additive weights present) before computing.
// Allocates its own scratch; models use the allocation-free layer path instead.
Status attention(const AttentionRequest& request, float* out, float* weights);

// p[i, 2j] = sin(i / 10000^(2j/d)), p[i, 2j+1] = cos(i / 10000^(2j/d)); out [n_positions, d].
Status positional_encoding(size_t n_positions, size_t d, float* out);

}  // namespace simdformer
