// MultiHeadAttention::load: the projections and the additive-score weights, packed once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/multi_head_attention.h"

#include "simdformer/kernels/kernels.h"

namespace simdformer {

Result<MultiHeadAttention> MultiHeadAttention::load(WeightReader& reader, const AttentionRef& ref,
                                                    const ModelConfig& config, bool self_attention) {
    MultiHeadAttention m;
    const size_t d = config.d_model;
    m.d_model_ = d;
    m.nhead_ = config.nhead;
    m.n_kv_heads_ = config.kv_heads();
    m.d_head_ = config.d_head();
    m.additive_dim_ = config.additive_dim;
    if (m.n_kv_heads_ == 0 || m.nhead_ % m.n_kv_heads_ != 0)
        return Status::invalid(cat({"num_key_value_heads=", m.n_kv_heads_,
                                    " does not divide num_attention_heads=", m.nhead_}));
    const size_t qw = config.q_width(), kvw = config.kv_width();
    const LinearRef* parts[3] = {&ref.q, &ref.k, &ref.v};
    const size_t outs[3] = {qw, kvw, kvw};
    // Self-attention: one packed [d, q_width + 2 kv_width] weight, one GEMM reads the rows once.
    for (size_t i = 0; i < (self_attention ? 1 : 3); ++i) {
        SF_ASSIGN_OR_RETURN(m.in_proj_[i], Linear::load_concat(reader, parts + i, outs + i, self_attention ? 3 : 1, d));
    }
    SF_ASSIGN_OR_RETURN(m.out_proj_, Linear::load(reader, ref.out, qw, d));

    if (m.additive_dim_ > 0) {
        const size_t h = m.nhead_, da = m.additive_dim_, dh = m.d_head_;
        SF_ASSIGN_OR_RETURN(Buffer wq, reader.take(ref.additive.q_weight, {h, da, dh}));
        SF_ASSIGN_OR_RETURN(Buffer wk, reader.take(ref.additive.k_weight, {h, da, dh}));
        SF_ASSIGN_OR_RETURN(m.add_v_, reader.take(ref.additive.v_weight, {h, da}));
        const size_t per_head = kernels::packed_b_size(dh, da);
        SF_ASSIGN_OR_RETURN(m.add_q_packed_, Buffer::uninitialized(h * per_head, "additive.q_weight"));
        SF_ASSIGN_OR_RETURN(m.add_k_packed_, Buffer::uninitialized(h * per_head, "additive.k_weight"));
        for (size_t i = 0; i < h; ++i) {
            // W [d_a, d_head] used as Wᵀ: element (p, j) = W[j, p].
            kernels::pack_b(dh, da, wq.data() + i * da * dh, 1, dh, m.add_q_packed_.data() + i * per_head);
            kernels::pack_b(dh, da, wk.data() + i * da * dh, 1, dh, m.add_k_packed_.data() + i * per_head);
        }
    }
    return m;
}

}  // namespace simdformer
