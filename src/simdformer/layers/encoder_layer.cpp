#include "simdformer/layers/encoder_layer.h"

#include "simdformer/layers/self_attention.h"

namespace simdformer {

void EncoderLayer::forward(size_t n_batch, size_t n_seq, float* x, const SequenceMasks& masks,
                           const AttentionOptions& options, const LayerScratch& s, float* weights) const {
    forward_cached(n_batch, n_seq, x, KeyValues{}, masks, options, s, weights);
}

void EncoderLayer::forward_cached(size_t n_batch, size_t n_seq, float* x, const KeyValues& kv,
                                  const SequenceMasks& layer_masks, const AttentionOptions& options,
                                  const LayerScratch& s, float* weights) const {
    const size_t tokens = n_batch * n_seq, d = d_model_;
    SequenceMasks masks = layer_masks;
    if (sliding_window_) masks.attn_mask = masks.window_attn_mask;
    if (!norm_first_) {
        // s1 = x + SA(x);  x = norm1(s1);  s1 = x + FF(x);  x = norm2(s1)
        self_attention_block(self_attn_, n_batch, n_seq, x, s.s1, x, kv, masks, options, s, weights);
        norm1_.forward(tokens, s.s1, d, x, d);
        feed_forward_.forward(tokens, x, d, s.hidden, s.s1, d, x, d);
        norm2_.forward(tokens, s.s1, d, x, d);
    } else {
        // s1 = norm1(x);  s2 = x + SA(s1);  s1 = norm2(s2);  x = s2 + FF(s1)   (GPT-2's block:
        // x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)))
        norm1_.forward(tokens, x, d, s.s1, d);
        self_attention_block(self_attn_, n_batch, n_seq, s.s1, s.s2, x, kv, masks, options, s, weights);
        norm2_.forward(tokens, s.s2, d, s.s1, d);
        feed_forward_.forward(tokens, s.s1, d, s.hidden, x, d, s.s2, d);
    }
}

}  // namespace simdformer
