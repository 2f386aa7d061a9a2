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

void MlmHead::forward(size_t rows, const float* x, size_t ldx, const Linear& tied, float* hidden,
                      float* logits) const {
    const size_t d = transform_.out_features();
    transform_.forward(rows, x, ldx, hidden, d, activation_);
    norm_.forward(rows, hidden, d, hidden, d);
    const Linear& decoder = decoder_ ? *decoder_ : tied;
    decoder.forward_with_bias(rows, hidden, d, logits, decoder.out_features(), bias_.data());
}

}  // namespace simdformer
