#include "simdformer/io/dtype.h"

#include <cmath>
#include <cstring>

// Safetensors stores little-endian data, and F32 tensors are copied as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "simdformer reads little-endian data directly");

namespace simdformer {
namespace {

float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h >> 15) << 31;
    const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float mag;
    if (exp == 0) mag = std::ldexp(float(mant), -24);                 // zero / subnormal
    else if (exp == 31) mag = mant ? NAN : INFINITY;                    // inf / nan
    else mag = std::ldexp(float(mant | 0x400), int(exp) - 25);         // normal
    uint32_t bits;
    std::memcpy(&bits, &mag, 4);
    bits |= sign;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

float bf16_to_f32(uint16_t h) {
    const uint32_t bits = uint32_t(h) << 16;  // bfloat16 is the top half of a float32
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t load_u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

}  // namespace

const char* dtype_name(DType dtype) {
    switch (dtype) {
        case DType::kF32: return "F32";
        case DType::kF16: return "F16";
        case DType::kBF16: return "BF16";
        case DType::kF64: return "F64";
        case DType::kI64: return "I64";
        case DType::kI32: return "I32";
        case DType::kI8: return "I8";
    }
    return "?";
}

size_t dtype_size(DType dtype) {
    switch (dtype) {
        case DType::kF32: return 4;
        case DType::kF16: return 2;
        case DType::kBF16: return 2;
        case DType::kF64: return 8;
        case DType::kI64: return 8;
        case DType::kI32: return 4;
        case DType::kI8: return 1;
    }
    return 0;
}

bool dtype_is_float(DType dtype) {
    return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF64;
}

bool parse_dtype(const std::string& name, DType* out) {
    static const DType all[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI64, DType::kI32, DType::kI8};
    for (DType d : all)
        if (name == dtype_name(d)) {
            *out = d;
            return true;
        }
    return false;
}

const char* supported_dtype_names() { return "F32, F16, BF16, F64, I64, I32, I8"; }

void convert_to_f32(DType dtype, const uint8_t* src, size_t n, float* dst) {
    switch (dtype) {
        case DType::kF32:
            std::memcpy(dst, src, n * 4);  // every target simdformer builds for is little-endian
            return;
        case DType::kF16:
            for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(load_u16(src + 2 * i));
            return;
        case DType::kBF16:
            for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(load_u16(src + 2 * i));
            return;
        case DType::kF64:
            for (size_t i = 0; i < n; ++i) {
                double v;
                std::memcpy(&v, src + 8 * i, 8);
                dst[i] = float(v);
            }
            return;
        case DType::kI64:
        case DType::kI32:
        case DType::kI8:
            return;  // not float data: callers check dtype_is_float first
    }
}

}  // namespace simdformer
