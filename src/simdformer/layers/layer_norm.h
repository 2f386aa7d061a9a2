// LayerNorm over the last dimension with learned gain and bias (nn.LayerNorm), or, for a
// NormRef with rms set, RMSNorm with a gain only (Hugging Face's LlamaRMSNorm: float32
// statistics, x / sqrt(mean(x²) + eps) * weight).
#pragma once

#include "simdformer/layers/tensor_refs.h"
#include "simdformer/buffer.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

class LayerNorm {
public:
    // Reads the gain and bias of `ref`, both [d] (RMSNorm: the gain).
    static Result<LayerNorm> load(WeightReader& reader, const NormRef& ref, size_t d, float eps);
    void forward(size_t rows, const float* x, size_t ldx, float* y, size_t ldy) const;  // y may equal x

private:
    size_t d_ = 0;
    float eps_ = 1e-5f;
    bool rms_ = false;
    Buffer gamma_, beta_;
};

}  // namespace simdformer
