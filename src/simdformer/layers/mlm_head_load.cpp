// MlmHead::load: the transform, its norm, the bias and an untied decoder, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/mlm_head.h"

namespace simdformer {

Result<MlmHead> MlmHead::load(WeightReader& reader, const MlmHeadRef& ref, size_t d, size_t vocab, float eps) {
    MlmHead h;
    h.activation_ = ref.activation;
    SF_ASSIGN_OR_RETURN(h.transform_, Linear::load(reader, ref.transform, d, d));
    SF_ASSIGN_OR_RETURN(h.norm_, LayerNorm::load(reader, ref.norm, d, eps));
    SF_ASSIGN_OR_RETURN(h.bias_, reader.take(ref.bias, {vocab}));
    if (!ref.decoder_weight.empty()) {
        SF_ASSIGN_OR_RETURN(Linear decoder, Linear::load(reader, LinearRef{ref.decoder_weight, ""}, d, vocab));
        h.decoder_ = std::move(decoder);
    }
    return h;
}

}  // namespace simdformer
