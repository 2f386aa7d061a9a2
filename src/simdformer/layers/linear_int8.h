// Loading a linear weight as int8 (per output channel, the int8 GEMM's pair panels): quantized
// as float chunks arrive, or copied from a pre-quantized I8 tensor and its scales. Internal to
// Linear::load.
//
// Pre-quantized checkpoints (scripts/quantize.py) store, for a weight tensor `<name>`:
//   <name>        I8  as the float weight was stored: [out, in] (nn.Linear) or [in, out] (Conv1D)
//   <name>_scale  F32 [out]: the per-output-channel scale, weight ~ scale * int8
// e.g. `bert.encoder.layer.0.attention.self.query.weight` + `..._scale`; a fused q|k|v tensor has
// one scale per output row of the fused tensor, sliced like its bias.
#pragma once

#include <string>

#include "simdformer/layers/tensor_refs.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer::detail {

// The name of the scales of the I8 tensor `weight`.
inline std::string int8_scale_name(const std::string& weight) { return weight + "_scale"; }

// Output channels [first, first + out) of the float tensor `w` ([total, in] when out_in, else
// [in, total]), quantized into columns [col, col + out) of `packed`, a packed [in, n] operand
// (kernels::packed_i8_size(in, n) bytes, kernels::packed_i8_init'ed by the caller): a Linear of
// several tensors side by side (self-attention's q | k | v) fills one such range per tensor.
Status stream_quantized(WeightReader& r, const TensorInfo& w, bool out_in, size_t first, size_t in, size_t out,
                        size_t col, size_t n, void* packed);

// The same channels of the pre-quantized I8 tensor `w` and its scales, copied into `packed`.
Status load_prequantized(WeightReader& r, const TensorInfo& w, bool out_in, size_t first, size_t in, size_t out,
                         size_t col, size_t n, void* packed);

}  // namespace simdformer::detail
