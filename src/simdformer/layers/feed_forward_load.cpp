// FeedForward::load: the two (or, gated, three) projections, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/feed_forward.h"

namespace simdformer {

Result<FeedForward> FeedForward::load(WeightReader& reader, const FeedForwardRef& ref, const ModelConfig& config) {
    FeedForward f;
    f.activation_ = config.activation;
    SF_ASSIGN_OR_RETURN(f.linear1_, Linear::load(reader, ref.in, config.d_model, config.dim_feedforward));
    SF_ASSIGN_OR_RETURN(f.linear2_, Linear::load(reader, ref.out, config.dim_feedforward, config.d_model));
    if (!ref.gate.weight.empty()) {
        SF_ASSIGN_OR_RETURN(Linear gate, Linear::load(reader, ref.gate, config.d_model, config.dim_feedforward));
        f.gate_ = std::move(gate);
    }
    return f;
}

}  // namespace simdformer
