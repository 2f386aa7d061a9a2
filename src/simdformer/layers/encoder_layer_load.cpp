// EncoderLayer::load: attention, feed-forward and norms of one layer, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/encoder_layer.h"

namespace simdformer {

Result<EncoderLayer> EncoderLayer::load(WeightReader& reader, const EncoderLayerRef& ref, const ModelConfig& config) {
    EncoderLayer l;
    l.norm_first_ = config.norm_first;
    l.sliding_window_ = ref.sliding_window;
    l.d_model_ = config.d_model;
    SF_ASSIGN_OR_RETURN(l.self_attn_, MultiHeadAttention::load(reader, ref.attention, config, true));
    SF_ASSIGN_OR_RETURN(l.feed_forward_, FeedForward::load(reader, ref.feed_forward, config));
    SF_ASSIGN_OR_RETURN(l.norm1_, LayerNorm::load(reader, ref.norm1, config.d_model, config.layer_norm_eps));
    SF_ASSIGN_OR_RETURN(l.norm2_, LayerNorm::load(reader, ref.norm2, config.d_model, config.layer_norm_eps));
    return l;
}

}  // namespace simdformer
