#include "simdformer/layers/linear_int8.h"

#include <algorithm>

#include "simdformer/io/number_text.h"
#include "simdformer/kernels/kernels.h"

namespace simdformer::detail {
namespace {

// Rows of `row_elements` each that fit one staging chunk of the reader (at least one).
size_t chunk_rows(const WeightReader& r, uint64_t row_elements) {
    return std::max<size_t>(1, r.chunk_floats() / size_t(std::max<uint64_t>(row_elements, 1)));
}

}  // namespace

Status stream_quantized(WeightReader& r, const TensorInfo& w, bool out_in, size_t first, size_t in, size_t out,
                        size_t col, size_t n_total, void* packed) {
    float* scales = kernels::packed_i8_scales(in, n_total, packed) + col;  // absmax first, then scales
    const size_t row = size_t(w.row_elements());
    const size_t rows = chunk_rows(r, row);
    if (out_in) {
        // Chunks of output rows hold whole channels: absmax, scales and quantization per chunk.
        // Wᵀ viewed as B [in, n]: element (p, jj) = W[j + jj, p] -> row stride 1, column stride in.
        SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, out) * in, "weight staging"));
        for (size_t j = 0; j < out; j += rows) {
            const size_t n = std::min(rows, out - j);
            SF_RETURN_IF_ERROR(r.read_rows(w, first + j, n, staging.data()));
            kernels::absmax_cols_update(in, n, staging.data(), 1, in, scales + j);
            kernels::scales_from_absmax(n, scales + j);
            kernels::pack_i8_quantize(in, n_total, 0, in, col + j, n, staging.data(), 1, in, packed);
        }
        return Status::ok();
    }
    // Chunks of input rows each hold a piece of every channel: one pass for the channels'
    // absmax, a second one to quantize (reading the tensor twice instead of holding it whole).
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, in) * row, "weight staging"));
    for (size_t pass = 0; pass < 2; ++pass) {
        if (pass == 1) kernels::scales_from_absmax(out, scales);
        for (size_t p = 0; p < in; p += rows) {
            const size_t n = std::min(rows, in - p);
            SF_RETURN_IF_ERROR(r.read_rows(w, p, n, staging.data()));
            const float* cols = staging.data() + first;  // B [n, out] with row stride `row`
            if (pass == 0) kernels::absmax_cols_update(n, out, cols, row, 1, scales);
            else kernels::pack_i8_quantize(in, n_total, p, n, col, out, cols, row, 1, packed);
        }
    }
    return Status::ok();
}

Status load_prequantized(WeightReader& r, const TensorInfo& w, bool out_in, size_t first, size_t in, size_t out,
                         size_t col, size_t n_total, void* packed) {
    const size_t total = size_t(out_in ? w.shape[0] : w.shape[1]);
    const std::string scale_name = int8_scale_name(w.name);
    SF_ASSIGN_OR_RETURN(const TensorInfo* s, r.expect(scale_name, {total}));
    float* scales = kernels::packed_i8_scales(in, n_total, packed) + col;
    SF_RETURN_IF_ERROR(r.read_rows(*s, first, out, scales));
    for (size_t j = 0; j < out; ++j)
        if (!(scales[j] >= 0.0f))
            return Status::invalid(cat({"tensor '", scale_name, "': scale ", float_text(scales[j]), " of channel ",
                                        first + j, " is negative"}));
    r.mark_used(*s, 0);  // scales are not parameters of their own
    const size_t row = size_t(w.row_elements());
    const size_t rows = chunk_rows(r, (row + 3) / 4);  // int8 rows: four per float of staging
    const size_t count = out_in ? std::min(rows, out) : std::min(rows, in);
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized((count * row + 3) / 4, "weight staging"));
    auto* q = reinterpret_cast<int8_t*>(staging.data());
    if (out_in) {
        for (size_t j = 0; j < out; j += rows) {
            const size_t n = std::min(rows, out - j);
            SF_RETURN_IF_ERROR(r.read_i8(w, uint64_t(first + j) * row, n * row, q));
            kernels::pack_i8_copy(in, n_total, 0, in, col + j, n, q, 1, in, packed);
        }
    } else {
        for (size_t p = 0; p < in; p += rows) {
            const size_t n = std::min(rows, in - p);
            SF_RETURN_IF_ERROR(r.read_i8(w, uint64_t(p) * row, n * row, q));
            kernels::pack_i8_copy(in, n_total, p, n, col, out, q + first, row, 1, packed);
        }
    }
    return Status::ok();
}

}  // namespace simdformer::detail
