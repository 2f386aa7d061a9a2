// attention.h: the standalone attention operation (the same head steps as MultiHeadAttention,
// layers/attention_head.h, on one head with caller-given Q, K, V: no projections) and the
// sinusoidal positional table.
#include "simdformer/attention.h"

#include <algorithm>
#include <string>

#include "simdformer/buffer.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/layers/attention_head.h"
#include "simdformer/layers/positional_encoding.h"
#include "simdformer/detail/validate.h"

namespace simdformer {
namespace {

Status validate(const AttentionRequest& r) {
    if (!r.q || !r.k || !r.v) return Status::invalid("attention needs Q, K and V");
    if (r.n_seq_q == 0 || r.n_seq_k == 0 || r.d_k == 0 || r.d_v == 0)
        return Status::invalid(cat({"attention sizes must be positive (n_seq_q=", r.n_seq_q,
                                    ", n_seq_k=", r.n_seq_k, ", d_k=", r.d_k,
                                    ", d_v=", r.d_v, ")"}));
    const size_t limit = size_t(1) << 24;
    size_t p;
    if (r.n_seq_q > limit || r.n_seq_k > limit || r.d_k > limit || r.d_v > limit || !checked_mul(r.n_seq_q, r.n_seq_k, &p) ||
        p > kMaxBufferFloats)
        return Status::oom(cat({"attention of ", r.n_seq_q, " x ", r.n_seq_k, " is too large"}));
    SF_RETURN_IF_ERROR(check_finite(r.q, r.n_seq_q * r.d_k, "Q"));
    SF_RETURN_IF_ERROR(check_finite(r.k, r.n_seq_k * r.d_k, "K"));
    SF_RETURN_IF_ERROR(check_finite(r.v, r.n_seq_k * r.d_v, "V"));
    if (r.options.score == ScoreKind::kAdditive) {
        if (r.additive_dim == 0 || !r.w_q || !r.w_k || !r.w_v)
            return Status::invalid("additive scores need additive_dim > 0 and the weights W_q, W_k, w_v");
        SF_RETURN_IF_ERROR(check_finite(r.w_q, r.additive_dim * r.d_k, "W_q"));
        SF_RETURN_IF_ERROR(check_finite(r.w_k, r.additive_dim * r.d_k, "W_k"));
        SF_RETURN_IF_ERROR(check_finite(r.w_v, r.additive_dim, "w_v"));
    }
    if (r.attn_mask) SF_RETURN_IF_ERROR(check_additive_mask(r.attn_mask, r.n_seq_q * r.n_seq_k, "attn_mask"));
    return Status::ok();
}

}  // namespace

Status attention(const AttentionRequest& r, float* out, float* weights) {
    SF_RETURN_IF_ERROR(validate(r));
    const size_t nq = r.n_seq_q, nk = r.n_seq_k;
    SF_ASSIGN_OR_RETURN(Buffer scores, Buffer::zeros(nq * nk, "attention scores"));
    const size_t pack = std::max({kernels::packed_b_size(r.d_k, nk), kernels::packed_b_size(nk, r.d_v),
                                  kernels::packed_b_size(r.d_k, r.additive_dim)});
    SF_ASSIGN_OR_RETURN(Buffer scratch, Buffer::zeros(pack, "attention scratch"));
    float* s = scores.data();  // [nq, nk]

    if (r.options.score == ScoreKind::kAdditive) {
        // s[i, j] = w_vᵀ tanh(W_q q_i + W_k k_j): project once, then the additive-score kernel.
        const size_t da = r.additive_dim;
        SF_ASSIGN_OR_RETURN(Buffer pq, Buffer::zeros(nq * da, "additive W_q q"));
        SF_ASSIGN_OR_RETURN(Buffer pk, Buffer::zeros(nk * da, "additive W_k k"));
        kernels::gemm_f32_nt(nq, da, r.d_k, r.q, r.d_k, r.w_q, r.d_k, pq.data(), da, scratch.data());
        kernels::gemm_f32_nt(nk, da, r.d_k, r.k, r.d_k, r.w_k, r.d_k, pk.data(), da, scratch.data());
        kernels::additive_scores_f32(nq, nk, da, pq.data(), da, pk.data(), da, r.w_v, s, nk);
    } else {
        head_dot_scores(nq, nk, r.d_k, r.q, r.d_k, r.k, r.d_k, r.options.score, s, scratch.data());
    }
    HeadMasks masks;
    masks.key_padding = r.key_padding;
    masks.attn_mask = r.attn_mask;
    masks.causal = r.causal;
    head_attend(nq, nk, r.d_v, s, masks, r.options.normalize, r.v, r.d_v, out, r.d_v, scratch.data());
    if (weights) std::copy(s, s + nq * nk, weights);
    return Status::ok();
}

Status positional_encoding(size_t n_positions, size_t d, float* out) {
    if (n_positions == 0 || d == 0) return Status::invalid("positional_encoding needs n_positions > 0 and d > 0");
    size_t p;
    if (!checked_mul(n_positions, d, &p) || p > kMaxBufferFloats)
        return Status::oom(cat({"positional table of ", n_positions, " x ", d, " is too large"}));
    sinusoidal_positions(n_positions, d, out);
    return Status::ok();
}

}  // namespace simdformer
