#include "simdformer/layers/decoder_layer.h"

#include <cstring>

#include "simdformer/layers/self_attention.h"

namespace simdformer {

void DecoderLayer::project_memory(size_t rows, const float* memory, float* k, float* v) const {
    cross_attn_.project_kv(rows, memory, memory, d_model_, k, v, d_model_);
}

void DecoderLayer::cross_block(size_t n_batch, size_t n_seq_q, const float* in, float* out, const float* residual,
                               const CrossMemory& m, const AttentionOptions& options, const LayerScratch& s,
                               float* weights) const {
    const size_t d = d_model_, tokens = n_batch * n_seq_q;
    cross_attn_.project_q(tokens, in, d, s.q, d);
    AttendArgs a = contiguous_attend_args(n_batch, n_seq_q, m.n_seq_src, d, s.q, m.k, m.v, s.context);
    a.kv_batch_stride = m.batch_stride;
    a.key_padding = m.key_padding;
    a.key_padding_stride = m.key_padding_stride;
    a.options = options;
    a.weights = weights;
    cross_attn_.attend(a, s.attention);
    cross_attn_.project_out(tokens, s.context, d, out, d, residual, d);
}

template <class SelfBlock>
void DecoderLayer::run(size_t tokens, float* x, const SelfBlock& self_block, size_t n_batch, size_t n_seq_q,
                       const CrossMemory& memory, const AttentionOptions& options, const LayerScratch& s,
                       float* cross_weights) const {
    const size_t d = d_model_;
    if (!norm_first_) {
        self_block(x, s.s1, x);                                                           // s1 = x + SA(x)
        norm1_.forward(tokens, s.s1, d, x, d);
        cross_block(n_batch, n_seq_q, x, s.s1, x, memory, options, s, cross_weights);     // s1 = x + CA(x, mem)
        norm2_.forward(tokens, s.s1, d, x, d);
        feed_forward_.forward(tokens, x, d, s.hidden, s.s1, d, x, d);                     // s1 = x + FF(x)
        norm3_.forward(tokens, s.s1, d, x, d);
    } else {
        norm1_.forward(tokens, x, d, s.s1, d);
        self_block(s.s1, s.s2, x);                                                        // s2 = x + SA(norm1(x))
        norm2_.forward(tokens, s.s2, d, s.s1, d);
        cross_block(n_batch, n_seq_q, s.s1, x, s.s2, memory, options, s, cross_weights);  // x = s2 + CA(norm2(s2))
        norm3_.forward(tokens, x, d, s.s1, d);
        feed_forward_.forward(tokens, s.s1, d, s.hidden, s.s2, d, x, d);                  // s2 = x + FF(norm3(x))
        std::memcpy(x, s.s2, tokens * d * sizeof(float));
    }
}

void DecoderLayer::forward(size_t n_batch, size_t n_seq, float* x, const SequenceMasks& masks,
                           const CrossMemory& memory, const AttentionOptions& options, const LayerScratch& s,
                           float* self_weights, float* cross_weights) const {
    const KeyValues kv{};  // none: the new rows' own keys and values, where the projection wrote them
    auto self_block = [&](const float* in, float* out, const float* residual) {
        self_attention_block(self_attn_, n_batch, n_seq, in, out, residual, kv, masks, options, s, self_weights);
    };
    run(n_batch * n_seq, x, self_block, n_batch, n_seq, memory, options, s, cross_weights);
}

void DecoderLayer::forward_step(size_t n_batch, float* x, const KeyValues& cache, const CrossMemory& memory,
                                const AttentionOptions& options, const LayerScratch& s, float* self_weights,
                                float* cross_weights) const {
    // One new position per item over every earlier one: causal by construction, no masks.
    auto self_block = [&](const float* in, float* out, const float* residual) {
        self_attention_block(self_attn_, n_batch, 1, in, out, residual, cache, SequenceMasks{}, options, s,
                             self_weights);
    };
    run(n_batch, x, self_block, n_batch, 1, memory, options, s, cross_weights);
}

}  // namespace simdformer
