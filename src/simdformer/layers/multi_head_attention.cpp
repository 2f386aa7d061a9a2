#include "simdformer/layers/multi_head_attention.h"

#include <algorithm>

#include "simdformer/kernels/kernels.h"
#include "simdformer/layers/attention_head.h"
#include "simdformer/runtime/parallel_gemm.h"
#include "simdformer/runtime/thread_pool.h"

namespace simdformer {

AttendArgs contiguous_attend_args(size_t n_batch, size_t n_seq_q, size_t n_seq_k, size_t d_model, const float* q,
                                  const float* k, const float* v, float* context) {
    AttendArgs a;
    a.n_batch = n_batch;
    a.n_seq_q = n_seq_q;
    a.n_seq_k = n_seq_k;
    a.q = q;
    a.ld_q = d_model;
    a.q_batch_stride = n_seq_q * d_model;
    a.k = k;
    a.v = v;
    a.ld_kv = d_model;
    a.kv_batch_stride = n_seq_k * d_model;
    a.context = context;
    a.ld_context = d_model;
    a.context_batch_stride = n_seq_q * d_model;
    return a;
}

size_t MultiHeadAttention::pack_floats(const ModelConfig& config, size_t n_seq_k) {
    const size_t dh = config.d_head();
    return std::max(kernels::packed_b_size(dh, n_seq_k),    // K_hᵀ [d_head, n_seq_k]
                    kernels::packed_b_size(n_seq_k, dh));   // V_h  [n_seq_k, d_head]
}

void MultiHeadAttention::project_q(size_t rows, const float* x, size_t ldx, float* q, size_t ldq) const {
    in_proj_[0].forward(rows, x, ldx, q, ldq);
}

void MultiHeadAttention::project_kv(size_t rows, const float* x_k, const float* x_v, size_t ldx, float* k,
                                    float* v, size_t ldkv) const {
    in_proj_[1].forward(rows, x_k, ldx, k, ldkv);
    in_proj_[2].forward(rows, x_v, ldx, v, ldkv);
}

void MultiHeadAttention::project_out(size_t rows, const float* context, size_t ldc, float* out, size_t ldo,
                                     const float* residual, size_t ld_residual) const {
    out_proj_.forward(rows, context, ldc, out, ldo, Activation::kNone, residual, ld_residual);
}

// Raw scores [n_seq_q, n_seq_k] of batch item b, head h.
void MultiHeadAttention::head_scores(const AttendArgs& a, const AttentionScratch& s, size_t b, size_t h,
                                     float* scores) const {
    const size_t nq = a.n_seq_q, nk = a.n_seq_k, dh = d_head_;
    const float* q = a.q + b * a.q_batch_stride + h * dh;
    const float* k = a.k + b * a.kv_batch_stride + kv_head_of(h) * dh;
    if (a.options.score != ScoreKind::kAdditive) {
        head_dot_scores(nq, nk, dh, q, a.ld_q, k, a.ld_kv, a.options.score, scores, s.pack);
        return;
    }
    const size_t da = additive_dim_, per_head = kernels::packed_b_size(dh, da);
    kernels::gemm_f32_packed(nq, da, dh, q, a.ld_q, add_q_packed_.data() + h * per_head, s.add_q, da);
    kernels::gemm_f32_packed(nk, da, dh, k, a.ld_kv, add_k_packed_.data() + h * per_head, s.add_k, da);
    kernels::additive_scores_f32(nq, nk, da, s.add_q, da, s.add_k, da, add_v_.data() + h * da, scores, nk);
}

void MultiHeadAttention::attend(const AttendArgs& a, const AttentionScratch& s) const {
    const size_t nq = a.n_seq_q, nk = a.n_seq_k, dh = d_head_;
    const auto masks_of = [&](size_t b) {
        HeadMasks masks;
        masks.key_padding = a.key_padding ? a.key_padding + b * a.key_padding_stride : nullptr;
        masks.key_bias = a.key_bias ? a.key_bias + b * a.key_bias_stride : nullptr;
        masks.attn_mask = a.attn_mask;
        masks.causal = a.causal;
        masks.causal_offset = a.causal_offset;
        masks.combine_by_fill = a.combine_by_fill;
        return masks;
    };
    // One head of one batch item: raw scores, masks, normalisation, weighted values. Heads only
    // write their own context columns (and weights), so they may run on any thread, in any order.
    const auto run_head = [&](size_t bh, const AttentionScratch& scratch) {
        const size_t b = bh / nhead_, h = bh % nhead_;
        // When the caller asked for weights, they are computed in place in its buffer and used
        // from there; otherwise they live only in the reused scratch matrix.
        float* scores = a.weights ? a.weights + ((b * nhead_ + h) * nq) * nk : scratch.scores;
        const size_t kv_at = b * a.kv_batch_stride + kv_head_of(h) * dh;
        head_scores(a, scratch, b, h, scores);
        head_attend(nq, nk, dh, scores, masks_of(b), a.options.normalize, a.v + kv_at, a.ld_kv,
                    a.context + b * a.context_batch_stride + h * dh, a.ld_context, scratch.pack);
    };
    // A decoding step: the heads [bh, end) of one query (as many of one batch item as the weights'
    // room holds: the caller's buffer, or a scratch copy) against K and V where they lie (cache or
    // memory), every stored row read once for them all. Returns the next head.
    const bool one_query = nq == 1 && a.options.score != ScoreKind::kAdditive;
    const size_t room = a.weights ? nhead_ : std::max<size_t>(1, s.scores_stride / std::max<size_t>(nk, 1));
    const auto run_query_heads = [&](size_t bh, size_t end, const AttentionScratch& scratch) {
        const size_t b = bh / nhead_, h = bh % nhead_;
        kernels::HeadSpan span;
        span.heads = std::min({end - bh, nhead_ - h, room});
        span.d = dh;
        span.first = h;
        span.group = kv_group();
        float* weights = a.weights ? a.weights + (b * nhead_ + h) * nk : scratch.scores;
        const size_t kv_at = b * a.kv_batch_stride + kv_head_of(h) * dh;
        heads_attend_query(nk, span, a.q + b * a.q_batch_stride + h * dh, a.k + kv_at, a.ld_kv, a.v + kv_at,
                           a.ld_kv, a.options.score, masks_of(b), a.options.normalize, weights,
                           a.context + b * a.context_batch_stride + h * dh);
        return bh + span.heads;
    };
    // Threads over batch x heads: part p takes a contiguous run of heads and scratch copy p.
    // Small attentions (one decoding step, tiny models) stay on the calling thread.
    const size_t n_heads = a.n_batch * nhead_;
    const double macs = 2.0 * static_cast<double>(n_heads) * static_cast<double>(nq) * static_cast<double>(nk) *
                        static_cast<double>(dh);
    size_t parts = std::min({runtime::threads(), s.slots, n_heads});
    if (macs < runtime::parallel_min_macs() || runtime::in_parallel_task()) parts = 1;
    runtime::parallel_for(parts, [&](size_t p0, size_t p1) {
        for (size_t p = p0; p < p1; ++p) {
            const AttentionScratch scratch = s.slot(p);
            const runtime::TaskRange heads = runtime::static_range(n_heads, p, parts);
            for (size_t bh = heads.begin; bh < heads.end;) {
                if (one_query) {
                    bh = run_query_heads(bh, heads.end, scratch);
                } else {
                    run_head(bh++, scratch);
                }
            }
        }
    }, macs);
}

}  // namespace simdformer
