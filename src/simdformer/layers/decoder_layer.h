// nn.TransformerDecoderLayer: masked self-attention, cross-attention to the encoder memory and
// feed-forward, each wrapped in Add & LayerNorm (post-norm by default, pre-norm with norm_first).
// The same layer runs a whole target sequence at once, or one new position per call against a
// key/value cache (incremental decoding: O(n) per new token instead of O(n^2)).
#pragma once

#include "simdformer/layers/feed_forward.h"
#include "simdformer/layers/layer_norm.h"
#include "simdformer/layers/layer_scratch.h"

namespace simdformer {

// Keys and values projected from the encoder memory for one decoder layer.
struct CrossMemory {
    const float* k = nullptr;  // [n_batch, n_seq_src, d_model] at batch_stride
    const float* v = nullptr;
    size_t n_seq_src = 0;
    size_t batch_stride = 0;
    const uint8_t* key_padding = nullptr;  // [n_batch, key_padding_stride]; 1 = padding
    size_t key_padding_stride = 0;
};

class DecoderLayer {
public:
    // Reads the tensors `ref` names; shapes, activation, eps and norm order from `config`.
    static Result<DecoderLayer> load(WeightReader& reader, const DecoderLayerRef& ref, const ModelConfig& config);

    // Projects the memory [rows, d_model] into this layer's cross-attention keys and values.
    void project_memory(size_t rows, const float* memory, float* k, float* v) const;

    // Whole sequences: x [n_batch * n_seq, d_model] in place.
    void forward(size_t n_batch, size_t n_seq, float* x, const SequenceMasks& tgt_masks,
                 const CrossMemory& memory, const AttentionOptions& options, const LayerScratch& scratch,
                 float* self_weights,    // [n_batch, nhead, n_seq, n_seq] or null
                 float* cross_weights    // [n_batch, nhead, n_seq, n_seq_src] or null
    ) const;

    // One position per batch item: x [n_batch, d_model] in place; appends K/V to the cache.
    void forward_step(size_t n_batch, float* x, const KeyValues& cache, const CrossMemory& memory,
                      const AttentionOptions& options, const LayerScratch& scratch,
                      float* self_weights,   // [n_batch, nhead, 1, position + 1] or null
                      float* cross_weights   // [n_batch, nhead, 1, n_seq_src] or null
    ) const;

private:
    // The three sub-blocks in the layer's norm order; `self_block` runs masked self-attention.
    template <class SelfBlock>
    void run(size_t tokens, float* x, const SelfBlock& self_block, size_t n_batch, size_t n_seq_q,
             const CrossMemory& memory, const AttentionOptions& options, const LayerScratch& s,
             float* cross_weights) const;
    void cross_block(size_t n_batch, size_t n_seq_q, const float* in, float* out, const float* residual,
                     const CrossMemory& memory, const AttentionOptions& options, const LayerScratch& s,
                     float* weights) const;

    bool norm_first_ = false;
    size_t d_model_ = 0;
    MultiHeadAttention self_attn_, cross_attn_;
    FeedForward feed_forward_;
    LayerNorm norm1_, norm2_, norm3_;
};

}  // namespace simdformer
