// SequenceClassifier::load: the dense and output projections, once per load.
// Cold code, compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/sequence_classifier.h"

namespace simdformer {

Result<SequenceClassifier> SequenceClassifier::load(WeightReader& reader, const ClassifierRef& ref, size_t d,
                                                    size_t num_labels) {
    SequenceClassifier h;
    h.reads_pooler_ = ref.reads_pooler;
    h.activation_ = ref.activation;
    if (ref.has_dense) {
        SF_ASSIGN_OR_RETURN(Linear dense, Linear::load(reader, ref.dense, d, d));
        h.dense_ = std::move(dense);
    }
    SF_ASSIGN_OR_RETURN(h.out_, Linear::load(reader, ref.out, d, num_labels));
    return h;
}

}  // namespace simdformer
