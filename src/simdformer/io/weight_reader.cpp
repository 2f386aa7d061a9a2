#include "simdformer/io/weight_reader.h"

#include <cmath>
#include <cstring>

#include "simdformer/io/number_text.h"

namespace simdformer {

std::string shape_string(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

uint64_t TensorInfo::row_elements() const {
    uint64_t n = 1;
    for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];  // fits: the product of all fits
    return n;
}

Result<const TensorInfo*> WeightReader::expect(const std::string& name, const Shape& shape) const {
    const TensorInfo* t = find(name);
    if (!t) return Status::invalid(cat({"missing tensor '", name, "' ", shape_string(shape)}));
    if (t->shape != shape)
        return Status::shape(cat({"tensor '", name, "' has shape ", shape_string(t->shape), ", expected ",
                                  shape_string(shape)}));
    if (!dtype_is_float(t->dtype))
        return Status::unsupported(cat({"tensor '", name, "' has dtype ", dtype_name(t->dtype),
                                        "; weights must be F32, F16, BF16 or F64"}));
    return t;
}

Status WeightReader::read_rows(const TensorInfo& t, size_t row0, size_t n_rows, float* dst) {
    const uint64_t row = t.row_elements();
    const uint64_t first = uint64_t(row0) * row, count = uint64_t(n_rows) * row;
    if (row0 > t.rows() || n_rows > t.rows() - row0 || count > SIZE_MAX)
        return Status::invalid(cat({"tensor '", t.name, "': rows [", row0, ", +",
                                    n_rows, ") are outside its ", t.rows(), " rows"}));
    SF_RETURN_IF_ERROR(read_f32(t, first, size_t(count), dst));
    for (size_t i = 0; i < count; ++i)
        if (!std::isfinite(dst[i]))
            return Status::invalid(cat({"tensor '", t.name, "' holds a non-finite value (", nonfinite_text(dst[i]),
                                        ") at element ", first + i}));
    return Status::ok();
}

Result<Buffer> WeightReader::take(const std::string& name, const Shape& shape) {
    SF_ASSIGN_OR_RETURN(const TensorInfo* t, expect(name, shape));
    if (t->elements > kMaxBufferFloats)
        return Status::oom(cat({"tensor '", name, "' of ", t->elements, " elements is too large"}));
    SF_ASSIGN_OR_RETURN(Buffer b, Buffer::uninitialized(size_t(t->elements), name.c_str()));
    SF_RETURN_IF_ERROR(read_rows(*t, 0, size_t(t->rows()), b.data()));
    mark_used(*t, b.size());
    return b;
}

Status WeightReader::read_i8(const TensorInfo& t, uint64_t, size_t, int8_t*) {
    return Status::unsupported(cat({"tensor '", t.name, "': this reader has no int8 tensors"}));
}

void WeightReader::mark_used(const TensorInfo& t, size_t parameters) {
    used_.insert(t.name);
    elements_taken_ += parameters;
}

void WeightReader::ignore(const std::string& name) { used_.insert(name); }

std::vector<std::string> WeightReader::unused() const {
    std::vector<std::string> names;
    for (const TensorInfo* t : tensor_list())
        if (!used_.count(t->name)) names.push_back(t->name);
    return names;
}

void MapWeightReader::put(const std::string& name, Shape shape, std::vector<float> data) {
    Entry e;
    e.info.name = name;
    e.info.shape = std::move(shape);
    e.info.elements = data.size();
    e.info.bytes = data.size() * sizeof(float);
    e.data = std::move(data);
    tensors_[name] = std::move(e);
}

void MapWeightReader::put_i8(const std::string& name, Shape shape, std::vector<int8_t> data) {
    Entry e;
    e.info.name = name;
    e.info.dtype = DType::kI8;
    e.info.shape = std::move(shape);
    e.info.elements = data.size();
    e.info.bytes = data.size();
    e.i8 = std::move(data);
    tensors_[name] = std::move(e);
}

const TensorInfo* MapWeightReader::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second.info;
}

std::vector<const TensorInfo*> MapWeightReader::tensor_list() const {
    std::vector<const TensorInfo*> all;
    for (const auto& [name, e] : tensors_) all.push_back(&e.info);
    return all;
}

Status MapWeightReader::read_f32(const TensorInfo& t, uint64_t first, size_t n, float* dst) {
    auto it = tensors_.find(t.name);
    if (it == tensors_.end() || first > it->second.data.size() || n > it->second.data.size() - first)
        return Status::invalid(cat({"tensor '", t.name, "': elements out of range"}));
    if (n) std::memcpy(dst, it->second.data.data() + first, n * sizeof(float));
    return Status::ok();
}

Status MapWeightReader::read_i8(const TensorInfo& t, uint64_t first, size_t n, int8_t* dst) {
    auto it = tensors_.find(t.name);
    if (it == tensors_.end() || first > it->second.i8.size() || n > it->second.i8.size() - first)
        return Status::invalid(cat({"tensor '", t.name, "': int8 elements out of range"}));
    if (n) std::memcpy(dst, it->second.i8.data() + first, n);
    return Status::ok();
}

}  // namespace simdformer
