// Element types of safetensors files and their conversion to float32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace simdformer {

// The floating-point types convert to float32. The integer types are known so that buffers a
// checkpoint carries (BERT's I64 `embeddings.position_ids`) can be recognised and ignored; I8
// holds pre-quantized linear weights (read as they are by Linear, with `<name>_scale` F32).
enum class DType { kF32, kF16, kBF16, kF64, kI64, kI32, kI8 };

const char* dtype_name(DType dtype);          // "F32", ... as safetensors writes it
size_t dtype_size(DType dtype);               // bytes per element
bool dtype_is_float(DType dtype);             // convertible to float32
bool parse_dtype(const std::string& name, DType* out);
// The names parse_dtype accepts, for error messages: "F32, F16, BF16, F64, I64, I32".
const char* supported_dtype_names();

// dst[i] = float32(src element i) for n elements stored little-endian (floating dtypes only).
// F16 subnormals, infinities and NaNs convert exactly; F64 rounds to nearest.
void convert_to_f32(DType dtype, const uint8_t* src, size_t n, float* dst);

}  // namespace simdformer
