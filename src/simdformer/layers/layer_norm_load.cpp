// LayerNorm::load: gamma (and beta), once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/layer_norm.h"

namespace simdformer {

Result<LayerNorm> LayerNorm::load(WeightReader& reader, const NormRef& ref, size_t d, float eps) {
    LayerNorm n;
    n.d_ = d;
    n.eps_ = eps;
    n.rms_ = ref.rms;
    SF_ASSIGN_OR_RETURN(n.gamma_, reader.take(ref.weight, {d}));
    if (!n.rms_) {
        SF_ASSIGN_OR_RETURN(n.beta_, reader.take(ref.bias, {d}));
    }
    return n;
}

}  // namespace simdformer
