// DecoderLayer::load: self- and cross-attention, feed-forward and norms, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/decoder_layer.h"

namespace simdformer {

Result<DecoderLayer> DecoderLayer::load(WeightReader& reader, const DecoderLayerRef& ref, const ModelConfig& config) {
    DecoderLayer l;
    l.norm_first_ = config.norm_first;
    l.d_model_ = config.d_model;
    const size_t d = config.d_model;
    const float eps = config.layer_norm_eps;
    SF_ASSIGN_OR_RETURN(l.self_attn_, MultiHeadAttention::load(reader, ref.self_attention, config, true));
    SF_ASSIGN_OR_RETURN(l.cross_attn_, MultiHeadAttention::load(reader, ref.cross_attention, config, false));
    SF_ASSIGN_OR_RETURN(l.feed_forward_, FeedForward::load(reader, ref.feed_forward, config));
    SF_ASSIGN_OR_RETURN(l.norm1_, LayerNorm::load(reader, ref.norm1, d, eps));
    SF_ASSIGN_OR_RETURN(l.norm2_, LayerNorm::load(reader, ref.norm2, d, eps));
    SF_ASSIGN_OR_RETURN(l.norm3_, LayerNorm::load(reader, ref.norm3, d, eps));
    return l;
}

}  // namespace simdformer
