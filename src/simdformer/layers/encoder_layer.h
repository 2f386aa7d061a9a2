// nn.TransformerEncoderLayer: self-attention and feed-forward, each wrapped in Add & LayerNorm.
//   post-norm (default, original paper):  x = norm1(x + SA(x));  x = norm2(x + FF(x))
//   pre-norm  (norm_first):               x = x + SA(norm1(x));  x = x + FF(norm2(x))
// The pre-norm form is also GPT-2's block and, with RMSNorms, rotary attention and a gated
// feed-forward (all chosen by the tensor refs and the masks), Llama's decoder layer.
#pragma once

#include "simdformer/layers/feed_forward.h"
#include "simdformer/layers/layer_norm.h"
#include "simdformer/layers/layer_scratch.h"

namespace simdformer {

class EncoderLayer {
public:
    // Reads the tensors `ref` names; shapes, activation, eps and norm order from `config`.
    static Result<EncoderLayer> load(WeightReader& reader, const EncoderLayerRef& ref, const ModelConfig& config);

    // x [n_batch * n_seq, d_model] is transformed in place.
    void forward(size_t n_batch, size_t n_seq, float* x, const SequenceMasks& masks,
                 const AttentionOptions& options, const LayerScratch& scratch,
                 float* weights /* [n_batch, nhead, n_seq, n_seq] or null */) const;

    // The same layer over a key/value cache (decoder-only models such as GPT-2): the n_seq new
    // rows of each item, x [n_batch * n_seq, d_model] in place, attend to every cached position
    // and to themselves; their keys and values are appended to `kv` (layers/self_attention.h).
    // forward() is this call without a cache (KeyValues{}).
    void forward_cached(size_t n_batch, size_t n_seq, float* x, const KeyValues& kv, const SequenceMasks& masks,
                        const AttentionOptions& options, const LayerScratch& scratch,
                        float* weights /* [n_batch, nhead, n_seq, kv.position + n_seq] or null */) const;

private:
    bool norm_first_ = false;
    bool sliding_window_ = false;  // attends through masks.window_attn_mask
    size_t d_model_ = 0;
    MultiHeadAttention self_attn_;
    FeedForward feed_forward_;
    LayerNorm norm1_, norm2_;
};

}  // namespace simdformer
