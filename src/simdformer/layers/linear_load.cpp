// Linear::load and Linear::from_data: checks, then the weight streamed from the reader in chunks
// and packed (the packing and any int8 quantization are kernels, -O3). Cold code, once per load,
// compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/linear.h"

#include <algorithm>
#include <cstring>

#include "simdformer/layers/linear_int8.h"

namespace simdformer {
namespace {

// W [out_total, in] (nn.Linear), rows [row0, row0 + out) of it: chunks of whole panels of B = Wᵀ
// (one panel = gemm_panel_width() rows of W), each read and packed in place.
Status stream_out_in(WeightReader& r, const TensorInfo& w, size_t row0, size_t in, size_t out, float* packed) {
    const size_t panel = kernels::gemm_panel_width();
    const size_t rows = std::max(panel, r.chunk_floats() / std::max<size_t>(in, 1) / panel * panel);
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, out) * in, "weight staging"));
    for (size_t j = 0; j < out; j += rows) {
        const size_t n = std::min(rows, out - j);
        SF_RETURN_IF_ERROR(r.read_rows(w, row0 + j, n, staging.data()));
        // Wᵀ viewed as B [in, n]: element (p, jj) = W[j + jj, p] -> row stride 1, column stride in.
        kernels::pack_b_columns(in, j, n, staging.data(), 1, in, packed);
    }
    return Status::ok();
}

// W [in, out_total] (Conv1D), columns [col0, col0 + out) of it: chunks of input rows, each
// packed into the matching rows of every panel.
Status stream_in_out(WeightReader& r, const TensorInfo& w, size_t col0, size_t in, size_t out, float* packed) {
    const size_t row = size_t(w.row_elements());
    const size_t rows = std::max<size_t>(1, r.chunk_floats() / std::max<size_t>(row, 1));
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, in) * row, "weight staging"));
    for (size_t p = 0; p < in; p += rows) {
        const size_t n = std::min(rows, in - p);
        SF_RETURN_IF_ERROR(r.read_rows(w, p, n, staging.data()));
        kernels::pack_b_rows(in, out, p, n, staging.data() + col0, row, 1, packed);
    }
    return Status::ok();
}

}  // namespace

Result<Linear> Linear::from_data(const float* weight, const float* bias, size_t in_features,
                                 size_t out_features) {
    Linear l;
    l.in_ = in_features;
    l.out_ = out_features;
    SF_ASSIGN_OR_RETURN(l.packed_, Buffer::uninitialized(kernels::packed_b_size(in_features, out_features), "packed weight"));
    // Wᵀ viewed as B [in, out]: element (p, j) = W[j, p] -> row stride 1, column stride in.
    kernels::pack_b(in_features, out_features, weight, 1, in_features, l.packed_.data());
    if (bias) {
        SF_ASSIGN_OR_RETURN(l.bias_, Buffer::uninitialized(out_features, "bias"));
        std::memcpy(l.bias_.data(), bias, out_features * sizeof(float));
    }
    return l;
}

Result<Linear> Linear::load(WeightReader& r, const LinearRef& ref, size_t in, size_t out) {
    size_t total = 0;  // the stored output dimension: `parts` slices of `out`
    if (ref.parts == 0 || ref.part >= ref.parts || !checked_mul(out, ref.parts, &total))
        return Status::invalid(cat({"tensor '", ref.weight, "': bad slice ", ref.part, " of ",
                                    ref.parts}));
    const bool out_in = ref.layout == WeightLayout::kOutIn;
    const Shape shape = out_in ? Shape{total, in} : Shape{in, total};
    // Pre-quantized I8 weights load as int8 whatever the options say; float weights follow them.
    const TensorInfo* stored = r.find(ref.weight);
    const bool prequantized = stored && stored->dtype == DType::kI8;
    Linear l;
    l.in_ = in;
    l.out_ = out;
    l.int8_ = prequantized || r.linear_weights() == WeightFormat::kInt8;
    const TensorInfo* w = stored;
    if (prequantized) {
        if (stored->shape != shape)
            return Status::shape(cat({"tensor '", ref.weight, "' has shape ", shape_string(stored->shape), ", expected ",
                                      shape_string(shape)}));
    } else {
        SF_ASSIGN_OR_RETURN(w, r.expect(ref.weight, shape));
    }
    size_t n = 0;
    if (!checked_mul(in, out, &n) || n > kMaxBufferFloats)
        return Status::oom(cat({"tensor '", ref.weight, "' is too large"}));
    if (l.int8_ && in > kernels::kQd8MaxK)
        return Status::unsupported(cat({"tensor '", ref.weight, "': int8 weights need in_features <= ",
                                        kernels::kQd8MaxK, ", not ", in}));
    const size_t packed_floats = l.int8_ ? (kernels::packed_i8_size(in, out) + 3) / 4 : kernels::packed_b_size(in, out);
    SF_ASSIGN_OR_RETURN(l.packed_, Buffer::uninitialized(packed_floats, ref.weight.c_str()));
    const size_t first = ref.part * out;
    if (prequantized) {
        SF_RETURN_IF_ERROR(detail::load_prequantized(r, *w, out_in, first, in, out, l.packed_.data()));
    } else if (l.int8_) {
        SF_RETURN_IF_ERROR(detail::stream_quantized(r, *w, out_in, first, in, out, l.packed_.data()));
    } else if (out_in) {
        SF_RETURN_IF_ERROR(stream_out_in(r, *w, first, in, out, l.packed_.data()));
    } else {
        SF_RETURN_IF_ERROR(stream_in_out(r, *w, first, in, out, l.packed_.data()));
    }
    r.mark_used(*w, n);
    if (!ref.bias.empty()) {
        SF_ASSIGN_OR_RETURN(const TensorInfo* b, r.expect(ref.bias, {total}));
        SF_ASSIGN_OR_RETURN(l.bias_, Buffer::uninitialized(out, ref.bias.c_str()));
        SF_RETURN_IF_ERROR(r.read_rows(*b, first, out, l.bias_.data()));
        r.mark_used(*b, out);
    }
    return l;
}

}  // namespace simdformer
