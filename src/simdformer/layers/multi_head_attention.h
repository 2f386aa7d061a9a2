// Multi-head attention with nn.MultiheadAttention semantics:
//   Q = X_q W_qᵀ + b_q,  K = X_kv W_kᵀ + b_k,  V = X_kv W_vᵀ + b_v   (packed in_proj_weight [3d, d])
//   per head h:  A_h = normalize(mask(score(Q_h, K_h)))  [n_seq_q, n_seq_k]
//                C_h = A_h V_h
//   out = concat_h(C_h) W_oᵀ + b_o   (+ residual, fused)
// With grouped-query attention (ModelConfig::n_kv_heads, Llama's num_key_value_heads) K and V
// have n_kv heads and query head h reads key/value head h / (nhead / n_kv), as Hugging Face's
// repeat_kv; the queries and the context are nhead * d_head wide, which need not be d_model
// (an explicit head_dim).
// The steps are separate methods so the decoder can cache projected K/V between tokens.
// Self-attention (queries, keys and values from the same rows) loads the three projections as
// one Linear [d_model -> q_width + 2 kv_width] and runs them as one GEMM (project_qkv: one pass
// over the rows, one fork-join, the biases in its epilogue); every output column gets the
// arithmetic of its own projection, so the results are the separate projections' bits.
// Cross-attention and nn.MultiheadAttention (keys and values may come from other rows) keep
// separate projections (project_q, project_kv).
#pragma once

#include "simdformer/config.h"
#include "simdformer/layers/linear.h"

namespace simdformer {

// Scratch memory for one attention call, carved out of a Workspace. It holds `slots` independent
// copies (copy i at each pointer + i * its stride) so that `slots` threads can run heads at once.
struct AttentionScratch {
    float* scores = nullptr;  // [slots][n_seq_q, n_seq_k]
    float* pack = nullptr;    // [slots][MultiHeadAttention::pack_floats(config, n_seq_k)]
    float* add_q = nullptr;   // [slots][n_seq_q, additive_dim]  (additive scores only)
    float* add_k = nullptr;   // [slots][n_seq_k, additive_dim]
    size_t slots = 1;
    size_t scores_stride = 0, pack_stride = 0, add_q_stride = 0, add_k_stride = 0;  // floats

    // Copy i alone (slots = 1).
    AttentionScratch slot(size_t i) const {
        AttentionScratch s;
        s.scores = scores + i * scores_stride;
        s.pack = pack + i * pack_stride;
        s.add_q = add_q ? add_q + i * add_q_stride : nullptr;
        s.add_k = add_k ? add_k + i * add_k_stride : nullptr;
        return s;
    }
};

// One attention computation over a batch. Row r of batch item b of the queries is at
// q + b*q_batch_stride + r*ld_q (likewise for keys/values and the context output).
struct AttendArgs {
    size_t n_batch = 1, n_seq_q = 0, n_seq_k = 0;
    const float* q = nullptr;  // [n_batch, n_seq_q, d_model]
    size_t ld_q = 0, q_batch_stride = 0;
    const float* k = nullptr;  // [n_batch, n_seq_k, d_model]
    const float* v = nullptr;  // [n_batch, n_seq_k, d_model]
    size_t ld_kv = 0, kv_batch_stride = 0;
    const uint8_t* key_padding = nullptr;  // [n_batch, key_padding_stride]; 1 = masked (ignored key)
    size_t key_padding_stride = 0;
    const float* key_bias = nullptr;   // [n_batch, key_bias_stride] added per key (HeadMasks::key_bias)
    size_t key_bias_stride = 0;
    const float* attn_mask = nullptr;  // [n_seq_q, n_seq_k] additive (-inf = masked), or null
    bool causal = false;               // key j is masked for query i when j > i + causal_offset
    size_t causal_offset = 0;
    bool combine_by_fill = false;      // HeadMasks::combine_by_fill
    AttentionOptions options;
    float* context = nullptr;  // [n_batch, n_seq_q, d_model] concatenated heads
    size_t ld_context = 0, context_batch_stride = 0;
    float* weights = nullptr;  // [n_batch, nhead, n_seq_q, n_seq_k] or null (not materialised)
};

// Arguments for batches stored contiguously: item b's rows start at b * n_seq * d_model and rows
// are d_model apart, for queries, keys/values and the context alike. Masks, options and the
// weights buffer are left for the caller to set.
AttendArgs contiguous_attend_args(size_t n_batch, size_t n_seq_q, size_t n_seq_k, size_t d_model, const float* q,
                                  const float* k, const float* v, float* context);

class MultiHeadAttention {
public:
    // Reads the projections of `ref` (q [q_width, d], k and v [kv_width, d], out [d, q_width], as
    // whole tensors or slices of a fused one) and, when config.additive_dim > 0, the additive weights q/k [nhead, d_a, d_head] and
    // v [nhead, d_a].
    // `self_attention`: q, k and v always project the same rows (packed as one, project_qkv);
    // otherwise separately (project_q, project_kv).
    static Result<MultiHeadAttention> load(WeightReader& reader, const AttentionRef& ref, const ModelConfig& config,
                                           bool self_attention);

    // Self-attention's projections: rows [rows, d_model] -> qkv [rows, qkv_width], each row
    // q [q_width] | k [kv_width] | v [kv_width].
    void project_qkv(size_t rows, const float* x, size_t ldx, float* qkv, size_t ld) const {
        project_q(rows, x, ldx, qkv, ld);  // in_proj_[0] is q | k | v
    }
    // The separate projections: rows [rows, d_model] -> q [rows, q_width], k / v [rows, kv_width]. Keys and values usually
    // come from the same rows (x_k == x_v); nn.MultiheadAttention allows them to differ.
    void project_q(size_t rows, const float* x, size_t ldx, float* q, size_t ldq) const;
    void project_kv(size_t rows, const float* x_k, const float* x_v, size_t ldx, float* k, float* v,
                    size_t ldkv) const;
    // Scores, masks, normalisation and the weighted sum of values, per batch item and head.
    void attend(const AttendArgs& args, const AttentionScratch& scratch) const;
    // out = context W_oᵀ + b_o (+ residual).
    void project_out(size_t rows, const float* context, size_t ldc, float* out, size_t ldo,
                     const float* residual, size_t ld_residual) const;

    size_t d_model() const { return d_model_; }
    size_t d_head() const { return d_head_; }
    size_t q_width() const { return nhead_ * d_head_; }
    size_t kv_width() const { return n_kv_heads_ * d_head_; }
    size_t kv_heads() const { return n_kv_heads_; }
    size_t qkv_width() const { return q_width() + 2 * kv_width(); }
    // Floats of AttentionScratch::pack needed for keys/values of up to n_seq_k positions.
    static size_t pack_floats(const ModelConfig& config, size_t n_seq_k);

private:
    void head_scores(const AttendArgs& args, const AttentionScratch& scratch, size_t b, size_t h,
                     float* scores) const;

    // Query heads per key/value head (1 without grouped-query attention), and the key/value head
    // query head h reads.
    size_t kv_group() const { return nhead_ / n_kv_heads_; }
    size_t kv_head_of(size_t h) const { return h / kv_group(); }

    size_t d_model_ = 0, nhead_ = 0, n_kv_heads_ = 0, d_head_ = 0, additive_dim_ = 0;
    // Self-attention: in_proj_[0] = q | k | v as one [d_model -> qkv_width]; the others: q, k, v.
    Linear in_proj_[3], out_proj_;
    Buffer add_q_packed_;  // per head: pack_b of W_qᵀ [d_head, d_a]
    Buffer add_k_packed_;  // per head: pack_b of W_kᵀ [d_head, d_a]
    Buffer add_v_;         // [nhead, d_a]
};

}  // namespace simdformer
