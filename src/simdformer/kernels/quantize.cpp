// Quantization: int8 weights into the packed pair panels (at load, streamed chunk by chunk), and
// the dynamic per-row quantization of activations used by the int8 x int8 GEMM.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "simdformer/kernels/gemm_i8_internal.h"
#include "simdformer/kernels/kernels.h"
#include "simdformer/simd/simd_i8.h"

namespace simdformer::kernels {
namespace {

using i8detail::byte_index;

// Visits the block's elements (p, j) in the order that reads `b` contiguously.
template <class F>
void for_each_in_block(size_t rows, size_t cols, size_t row_stride, size_t col_stride, F f) {
    if (row_stride < col_stride) {  // columns are contiguous runs (nn.Linear rows)
        for (size_t j = 0; j < cols; ++j)
            for (size_t p = 0; p < rows; ++p) f(p, j, p * row_stride + j * col_stride);
    } else {
        for (size_t p = 0; p < rows; ++p)
            for (size_t j = 0; j < cols; ++j) f(p, j, p * row_stride + j * col_stride);
    }
}

// round-half-even(w / scale) clamped to [-127, 127]; a zero scale (zero channel) gives 0.
inline int8_t quantize_weight(float w, float scale) {
    if (!(scale > 0.0f)) return 0;
    float q = std::nearbyint(w / scale);
    q = std::min(127.0f, std::max(-127.0f, q));
    return q == q ? static_cast<int8_t>(q) : int8_t{0};
}

int32_t* colsums(size_t k, size_t n, void* packed) {
    return reinterpret_cast<int32_t*>(static_cast<uint8_t*>(packed) + i8detail::colsums_offset(k, n));
}

}  // namespace

// ---- weights ---------------------------------------------------------------------------------

size_t packed_i8_size(size_t k, size_t n) {
    return i8detail::colsums_offset(k, n) + i8detail::panels(n) * i8detail::kNr * sizeof(int32_t);
}

float* packed_i8_scales(size_t k, size_t n, void* packed) {
    return reinterpret_cast<float*>(static_cast<uint8_t*>(packed) + i8detail::scales_offset(k, n));
}

const float* packed_i8_scales(size_t k, size_t n, const void* packed) {
    return reinterpret_cast<const float*>(static_cast<const uint8_t*>(packed) + i8detail::scales_offset(k, n));
}

const int32_t* packed_i8_colsums(size_t k, size_t n, const void* packed) {
    return reinterpret_cast<const int32_t*>(static_cast<const uint8_t*>(packed) + i8detail::colsums_offset(k, n));
}

void packed_i8_init(size_t k, size_t n, void* packed) {
    auto* bytes = static_cast<int8_t*>(packed);
    const size_t np = i8detail::panels(n), pb = i8detail::panel_bytes(k);
    if (np == 0) return;
    // The last panel holds the padding columns; an odd k leaves the odd half of the last pair.
    if (n % i8detail::kNr) std::memset(bytes + (np - 1) * pb, 0, pb);
    if (k % 2)
        for (size_t jp = 0; jp < np; ++jp)
            for (size_t c = 0; c < i8detail::kNr; ++c) bytes[byte_index(k, k, jp * i8detail::kNr + c)] = 0;
    std::memset(packed_i8_scales(k, n, packed), 0, np * i8detail::kNr * (sizeof(float) + sizeof(int32_t)));
}

void absmax_cols_update(size_t rows, size_t cols, const float* b, size_t row_stride, size_t col_stride,
                        float* absmax) {
    for_each_in_block(rows, cols, row_stride, col_stride,
                      [&](size_t, size_t j, size_t at) { absmax[j] = std::max(absmax[j], std::fabs(b[at])); });
}

void scales_from_absmax(size_t n, float* s) {
    for (size_t j = 0; j < n; ++j) s[j] = s[j] / 127.0f;
}

void pack_i8_quantize(size_t k, size_t n, size_t p0, size_t rows, size_t j0, size_t cols, const float* b,
                      size_t row_stride, size_t col_stride, void* packed) {
    auto* bytes = static_cast<int8_t*>(packed);
    const float* scales = packed_i8_scales(k, n, packed);
    int32_t* sums = colsums(k, n, packed);
    for_each_in_block(rows, cols, row_stride, col_stride, [&](size_t p, size_t j, size_t at) {
        const int8_t q = quantize_weight(b[at], scales[j0 + j]);
        bytes[byte_index(k, p0 + p, j0 + j)] = q;
        sums[j0 + j] += q;
    });
}

void pack_i8_copy(size_t k, size_t n, size_t p0, size_t rows, size_t j0, size_t cols, const int8_t* q,
                  size_t row_stride, size_t col_stride, void* packed) {
    auto* bytes = static_cast<int8_t*>(packed);
    int32_t* sums = colsums(k, n, packed);
    for_each_in_block(rows, cols, row_stride, col_stride, [&](size_t p, size_t j, size_t at) {
        bytes[byte_index(k, p0 + p, j0 + j)] = q[at];
        sums[j0 + j] += q[at];
    });
}

void pack_i8(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, void* packed) {
    packed_i8_init(k, n, packed);
    float* scales = packed_i8_scales(k, n, packed);
    absmax_cols_update(k, n, b, row_stride, col_stride, scales);
    scales_from_absmax(n, scales);
    pack_i8_quantize(k, n, 0, k, 0, n, b, row_stride, col_stride, packed);
}

void packed_i8_column(size_t k, size_t n, const void* packed, size_t j, float* out) {
    const auto* bytes = static_cast<const int8_t*>(packed);
    const float scale = packed_i8_scales(k, n, packed)[j];
    for (size_t p = 0; p < k; ++p) out[p] = scale * float(bytes[byte_index(k, p, j)]);
}

// ---- activations -----------------------------------------------------------------------------

// The three row quantizers are not inlined: each has two callers (a thread's own blocks and the
// shared QuantizedA), and a call per row costs nothing beside the loop over k.
__attribute__((noinline)) Qd8Row qd8_row_params(size_t k, const float* x, int levels) {
    float lo = 0.0f, hi = 0.0f;  // the range always contains 0, so 0 quantizes exactly
    size_t p = 0;
#if SIMDFORMER_I8_SIMD
    namespace v = simd::i8;
    v::vf lo0 = v::zero_f(), hi0 = v::zero_f(), lo1 = v::zero_f(), hi1 = v::zero_f();
    for (; p + 8 <= k; p += 8) {  // two independent chains
        const v::vf x0 = v::load_f(x + p), x1 = v::load_f(x + p + 4);
        lo0 = v::min_f(lo0, x0);
        hi0 = v::max_f(hi0, x0);
        lo1 = v::min_f(lo1, x1);
        hi1 = v::max_f(hi1, x1);
    }
    lo = v::lane0_f(v::hmin_f(v::min_f(lo0, lo1)));
    hi = v::lane0_f(v::hmax_f(v::max_f(hi0, hi1)));
#endif
    for (; p < k; ++p) {
        lo = std::min(lo, x[p]);
        hi = std::max(hi, x[p]);
    }
    Qd8Row row;
    const float range = hi - lo;
    if (!(range > 0.0f)) return row;  // all zeros: scale 0, every q - zero = 0
    const float top = float(levels);
    row.scale = range / top;
    row.inv_scale = top / range;
    const float z = std::nearbyint(-lo * row.inv_scale);
    row.zero = static_cast<int32_t>(std::min(top, std::max(0.0f, z)));
    return row;
}

__attribute__((noinline)) void quantize_row_qd8(size_t k, const float* x, const Qd8Row& row, int16_t* q,
                                                size_t pair_stride) {
    // q - zero = clamp(round(x * inv_scale), -zero, 255 - zero); the pad of an odd k is x = 0.
    // |x * inv_scale| <= 255 when `row` comes from qd8_row_params(x), as the SIMD rounding needs.
    const size_t np = (k + 1) / 2;
    const int16_t lo = static_cast<int16_t>(-row.zero), hi = static_cast<int16_t>(255 - row.zero);
    size_t p = 0;  // pairs done
#if SIMDFORMER_I8_SIMD
    namespace v = simd::i8;
    const v::vf inv = v::splat_f(row.inv_scale);
    const v::vi vlo = v::splat_i16(lo), vhi = v::splat_i16(hi);
    for (; 2 * p + 8 <= k; p += 4) {  // 8 values = 4 pairs per step
        const v::vi r0 = v::round_i32(v::mul_f(v::load_f(x + 2 * p), inv));
        const v::vi r1 = v::round_i32(v::mul_f(v::load_f(x + 2 * p + 4), inv));
        const v::vi q8 = v::max_i16(v::min_i16(v::narrow_i16(r0, r1), vhi), vlo);
        if (pair_stride == 1) {
            v::store_i(q + 2 * p, q8);
        } else {
            int16_t tmp[8];
            v::store_i(tmp, q8);
            for (size_t i = 0; i < 4; ++i) std::memcpy(q + 2 * (p + i) * pair_stride, tmp + 2 * i, 4);
        }
    }
#endif
    for (; p < np; ++p) {
        for (size_t e = 0; e < 2; ++e) {
            const size_t i = 2 * p + e;
            float r = i < k ? std::nearbyint(x[i] * row.inv_scale) : 0.0f;
            if (!(r >= float(lo))) r = float(lo);  // NaN too
            if (r > float(hi)) r = float(hi);
            q[2 * p * pair_stride + e] = static_cast<int16_t>(r);
        }
    }
}

__attribute__((noinline)) void quantize_row_quads(size_t k, const float* x, const Qd8Row& row, int levels,
                                                   bool signed_bytes, uint8_t* q, size_t quad_stride) {
    // The same rounding as quantize_row_qd8 (|x * inv_scale| <= levels for a row inside the
    // range), then the zero point added and the result clamped to [0, levels] as bytes: for 255
    // levels the bytes are quantize_row_qd8's values plus the zero point. q - 128 as an int8 is q
    // with its top bit flipped.
    const uint8_t flip = signed_bytes ? 0x80 : 0;
    const size_t quads = (k + 3) / 4, step = 4 * quad_stride;
    size_t i = 0;  // values done, a multiple of 4
#if SIMDFORMER_I8_SIMD
    namespace v = simd::i8;
    const v::vf inv = v::splat_f(row.inv_scale);
    const v::vi zero = v::splat_i16(static_cast<int16_t>(row.zero)),
               top = v::splat_i8(static_cast<int8_t>(levels)), vflip = v::splat_i8(static_cast<int8_t>(flip));
    for (; i + 16 <= k; i += 16) {
        const v::vi r0 = v::round_i32(v::mul_f(v::load_f(x + i), inv));
        const v::vi r1 = v::round_i32(v::mul_f(v::load_f(x + i + 4), inv));
        const v::vi r2 = v::round_i32(v::mul_f(v::load_f(x + i + 8), inv));
        const v::vi r3 = v::round_i32(v::mul_f(v::load_f(x + i + 12), inv));
        const v::vi lo = v::add_sat_i16(v::narrow_i16(r0, r1), zero), hi = v::add_sat_i16(v::narrow_i16(r2, r3), zero);
        uint8_t bytes[16];
        v::store_i(bytes, v::xor_i(v::min_u8(v::narrow_u8(lo, hi), top), vflip));
        for (size_t e = 0; e < 16; e += 4) std::memcpy(q + (i + e) / 4 * step, bytes + e, 4);
    }
#endif
    for (; i < 4 * quads; ++i) {
        float r = i < k ? std::nearbyint(x[i] * row.inv_scale) + float(row.zero) : 0.0f;
        if (!(r >= 0.0f)) r = 0.0f;  // NaN too
        if (r > float(levels)) r = float(levels);
        q[i / 4 * step + i % 4] = static_cast<uint8_t>(static_cast<uint8_t>(r) ^ flip);
    }
}

}  // namespace simdformer::kernels
