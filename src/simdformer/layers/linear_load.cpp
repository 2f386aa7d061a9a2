// Linear::load and Linear::from_data: checks, then the weight streamed from the reader in chunks
// and packed (the packing and any int8 quantization are kernels, -O3). Cold code, once per load,
// compiled for size in wasm (src/CMakeLists.txt); the forward pass stays -O3.
#include "simdformer/layers/linear.h"

#include <algorithm>
#include <cstring>

#include "simdformer/layers/linear_int8.h"

namespace simdformer {
namespace {

// The output columns [col, col + out) of a Linear, stored as [first, first + out) of the output
// dimension (`total` long) of one checkpoint tensor.
struct Part {
    const LinearRef* ref = nullptr;
    const TensorInfo* w = nullptr;
    size_t first = 0, out = 0, total = 0, col = 0;
    bool prequantized = false;
};

// nn.Linear weights [total, in]: chunks of whole panels of B = Wᵀ [in, n] (one panel =
// gemm_panel_width() output rows), each chunk's rows read from the parts it spans and packed in
// place.
Status stream_out_in(WeightReader& r, const Part* parts, size_t n_parts, size_t in, size_t n_total, float* packed) {
    const size_t panel = kernels::gemm_panel_width();
    const size_t rows = std::max(panel, r.chunk_floats() / std::max<size_t>(in, 1) / panel * panel);
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, n_total) * in, "weight staging"));
    for (size_t j = 0; j < n_total; j += rows) {
        const size_t n = std::min(rows, n_total - j);
        for (size_t i = 0; i < n_parts; ++i) {
            const Part& p = parts[i];
            const size_t lo = std::max(j, p.col), hi = std::min(j + n, p.col + p.out);
            if (lo < hi) SF_RETURN_IF_ERROR(r.read_rows(*p.w, p.first + (lo - p.col), hi - lo, staging.data() + (lo - j) * in));
        }
        // Wᵀ viewed as B [in, n]: element (p, jj) = W[j + jj, p] -> row stride 1, column stride in.
        kernels::pack_b_columns(in, j, n, staging.data(), 1, in, packed);
    }
    return Status::ok();
}

// Conv1D weights [in, total] (one part): chunks of input rows, each packed into the matching rows
// of every panel.
Status stream_in_out(WeightReader& r, const Part& p, size_t in, float* packed) {
    const size_t row = size_t(p.w->row_elements());
    const size_t rows = std::max<size_t>(1, r.chunk_floats() / std::max<size_t>(row, 1));
    SF_ASSIGN_OR_RETURN(Buffer staging, Buffer::uninitialized(std::min(rows, in) * row, "weight staging"));
    for (size_t p0 = 0; p0 < in; p0 += rows) {
        const size_t n = std::min(rows, in - p0);
        SF_RETURN_IF_ERROR(r.read_rows(*p.w, p0, n, staging.data()));
        kernels::pack_b_rows(in, p.out, p0, n, staging.data() + p.first, row, 1, packed);
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
    const LinearRef* refs = &ref;
    return load_concat(r, &refs, &out, 1, in);
}

Result<Linear> Linear::load_concat(WeightReader& r, const LinearRef* const* refs, const size_t* outs, size_t n_refs,
                                   size_t in) {
    Part parts[3];
    size_t n_parts = 0, n_total = 0;
    for (size_t i = 0; i < n_refs && i < 3; ++i) {
        const LinearRef& ref = *refs[i];
        size_t total = 0;  // the stored output dimension: `parts` slices of outs[i]
        if (ref.parts == 0 || ref.part >= ref.parts || !checked_mul(outs[i], ref.parts, &total) ||
            n_total + outs[i] < n_total)
            return Status::invalid(cat({"tensor '", ref.weight, "': bad slice ", ref.part, " of ", ref.parts}));
        const size_t first = ref.part * outs[i];
        Part* last = n_parts ? &parts[n_parts - 1] : nullptr;
        if (last && last->ref->weight == ref.weight && last->first + last->out == first)
            last->out += outs[i];  // the next slice of the same fused tensor
        else
            parts[n_parts++] = Part{&ref, nullptr, first, outs[i], total, n_total};
        n_total += outs[i];
    }
    const bool out_in = refs[0]->layout == WeightLayout::kOutIn;
    Linear l;
    l.in_ = in;
    l.out_ = n_total;
    const LinearRef* with_bias = nullptr;  // names the joined bias buffer
    for (size_t i = 0; i < n_parts; ++i) {
        Part& p = parts[i];
        const LinearRef& ref = *p.ref;
        // Separate tensors are joined row by row: nn.Linear's [out, in] only (GPT-2's c_attn is one part).
        if (n_parts > 1 && ref.layout != WeightLayout::kOutIn) return Status::unsupported("joined Conv1D weights");
        const Shape shape = out_in ? Shape{p.total, in} : Shape{in, p.total};
        // Pre-quantized I8 weights load as int8 whatever the options say; float weights follow them.
        const TensorInfo* stored = r.find(ref.weight);
        p.prequantized = stored && stored->dtype == DType::kI8;
        if (p.prequantized) {
            if (stored->shape != shape)
                return Status::shape(cat({"tensor '", ref.weight, "' has shape ", shape_string(stored->shape),
                                          ", expected ", shape_string(shape)}));
            p.w = stored;
        } else {
            SF_ASSIGN_OR_RETURN(p.w, r.expect(ref.weight, shape));
        }
        l.int8_ = l.int8_ || p.prequantized;
        if (!with_bias && !ref.bias.empty()) with_bias = &ref;
    }
    l.int8_ = l.int8_ || r.linear_weights() == WeightFormat::kInt8;
    const std::string& name = refs[0]->weight;
    size_t n = 0;
    if (!checked_mul(in, n_total, &n) || n > kMaxBufferFloats) return Status::oom(cat({"tensor '", name, "' is too large"}));
    if (l.int8_ && in > kernels::kQd8MaxK)
        return Status::unsupported(cat({"tensor '", name, "': int8 weights need in_features <= ", kernels::kQd8MaxK,
                                        ", not ", in}));
    const size_t packed_floats =
        l.int8_ ? (kernels::packed_i8_size(in, n_total) + 3) / 4 : kernels::packed_b_size(in, n_total);
    SF_ASSIGN_OR_RETURN(l.packed_, Buffer::uninitialized(packed_floats, name.c_str()));
    float* packed = l.packed_.data();
    if (l.int8_) {
        kernels::packed_i8_init(in, n_total, packed);
        for (size_t i = 0; i < n_parts; ++i) {
            const Part& p = parts[i];
            SF_RETURN_IF_ERROR(p.prequantized
                                   ? detail::load_prequantized(r, *p.w, out_in, p.first, in, p.out, p.col, n_total, packed)
                                   : detail::stream_quantized(r, *p.w, out_in, p.first, in, p.out, p.col, n_total, packed));
        }
    } else if (out_in) {
        SF_RETURN_IF_ERROR(stream_out_in(r, parts, n_parts, in, n_total, packed));
    } else {
        SF_RETURN_IF_ERROR(stream_in_out(r, parts[0], in, packed));
    }
    if (with_bias) {
        SF_ASSIGN_OR_RETURN(l.bias_, Buffer::zeros(n_total, with_bias->bias.c_str()));
    }
    for (size_t i = 0; i < n_parts; ++i) {
        const Part& p = parts[i];
        r.mark_used(*p.w, in * p.out);
        if (p.ref->bias.empty()) continue;
        SF_ASSIGN_OR_RETURN(const TensorInfo* b, r.expect(p.ref->bias, {p.total}));
        SF_RETURN_IF_ERROR(r.read_rows(*b, p.first, p.out, l.bias_.data() + p.col));
        r.mark_used(*b, p.out);
    }
    return l;
}

}  // namespace simdformer
