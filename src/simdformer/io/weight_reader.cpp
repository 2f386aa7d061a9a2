#include "simdformer/io/weight_reader.h"

#include <cstring>

namespace simdformer {

std::string shape_string(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

void MapWeightReader::put(const std::string& name, Shape shape, std::vector<float> data) {
    tensors_[name] = Entry{std::move(shape), std::move(data), false};
}

bool MapWeightReader::has(const std::string& name) const { return tensors_.count(name) != 0; }

Result<Buffer> MapWeightReader::take(const std::string& name, const Shape& shape) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) return Status::invalid("missing tensor '" + name + "' " + shape_string(shape));
    if (it->second.shape != shape) {
        return Status::shape("tensor '" + name + "' has shape " + shape_string(it->second.shape) +
                             ", expected " + shape_string(shape));
    }
    it->second.used = true;
    elements_taken_ += it->second.data.size();
    SF_ASSIGN_OR_RETURN(Buffer b, Buffer::uninitialized(it->second.data.size(), name.c_str()));
    if (!it->second.data.empty()) std::memcpy(b.data(), it->second.data.data(), it->second.data.size() * sizeof(float));
    return b;
}

std::vector<std::string> MapWeightReader::unused() const {
    std::vector<std::string> names;
    for (const auto& [name, e] : tensors_)
        if (!e.used) names.push_back(name);
    return names;
}

}  // namespace simdformer
