#include "simdformer/io/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "simdformer/detail/validate.h"

namespace simdformer {
namespace {

using nlohmann::json;

// Elements of a shape; the caller knows it fits (validated against a byte range at parse time,
// or describing data that exists in memory).
size_t element_count(const Shape& shape) {
    size_t n = 1;
    for (size_t s : shape) n *= s;
    return n;
}

size_t dtype_size(DType t) {
    switch (t) {
        case DType::kF32: return 4;
        case DType::kF16: return 2;
        case DType::kBF16: return 2;
        case DType::kF64: return 8;
    }
    return 0;
}

bool parse_dtype(const std::string& s, DType* out) {
    if (s == "F32") *out = DType::kF32;
    else if (s == "F16") *out = DType::kF16;
    else if (s == "BF16") *out = DType::kBF16;
    else if (s == "F64") *out = DType::kF64;
    else return false;
    return true;
}

float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h >> 15) << 31;
    const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float mag;
    if (exp == 0) mag = std::ldexp(float(mant), -24);                       // zero / subnormal
    else if (exp == 31) mag = mant ? NAN : INFINITY;                          // inf / nan
    else mag = std::ldexp(float(mant | 0x400), int(exp) - 25);               // normal
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

// Reads a JSON array of non-negative integers that fit in size_t.
Status read_sizes(const json& j, const char* what, std::vector<size_t>* out) {
    const Status bad = Status::io(std::string("\"") + what + "\" is not an array of non-negative integers");
    if (!j.is_array()) return bad;
    for (const json& e : j) {
        if (!e.is_number_unsigned()) return bad;
        const uint64_t v = e.get<uint64_t>();
        if (v > SIZE_MAX) return Status::io(std::string("\"") + what + "\" value " + std::to_string(v) + " is too large");
        out->push_back(size_t(v));
    }
    return Status::ok();
}

Status parse_entry(const std::string& name, const json& e, size_t data_size, TensorInfo* t) {
    auto bad = [&](const std::string& what) { return Status::io("tensor '" + name + "': " + what); };
    if (!e.is_object()) return bad("header entry is not an object");
    auto dt = e.find("dtype");
    auto sh = e.find("shape");
    auto off = e.find("data_offsets");
    if (dt == e.end() || !dt->is_string()) return bad("missing or non-string \"dtype\"");
    if (sh == e.end()) return bad("missing \"shape\"");
    if (off == e.end()) return bad("missing \"data_offsets\"");
    t->name = name;
    const std::string dtype = dt->get<std::string>();
    if (!parse_dtype(dtype, &t->dtype))
        return Status::unsupported("tensor '" + name + "': dtype " + dtype + " is not supported (F32, F16, BF16, F64)");
    SF_RETURN_IF_ERROR(read_sizes(*sh, "shape", &t->shape).with_context("tensor '" + name + "'"));
    std::vector<size_t> offsets;
    SF_RETURN_IF_ERROR(read_sizes(*off, "data_offsets", &offsets).with_context("tensor '" + name + "'"));
    if (offsets.size() != 2) return bad("\"data_offsets\" is not [begin, end]");
    t->begin = offsets[0];
    t->end = offsets[1];
    if (t->begin > t->end) return bad("data_offsets begin " + std::to_string(t->begin) + " > end " + std::to_string(t->end));
    if (t->end > data_size)
        return bad("data_offsets end " + std::to_string(t->end) + " is beyond the data section (" +
                   std::to_string(data_size) + " bytes): the file is truncated or corrupt");
    size_t bytes = dtype_size(t->dtype);
    for (size_t s : t->shape)
        if (!checked_mul(bytes, s, &bytes)) return bad("shape " + shape_string(t->shape) + " overflows");
    if (bytes != t->end - t->begin)
        return bad("shape " + shape_string(t->shape) + " of " + dtype + " needs " + std::to_string(bytes) +
                   " bytes but data_offsets span " + std::to_string(t->end - t->begin));
    return Status::ok();
}

}  // namespace

const char* dtype_name(DType dtype) {
    switch (dtype) {
        case DType::kF32: return "F32";
        case DType::kF16: return "F16";
        case DType::kBF16: return "BF16";
        case DType::kF64: return "F64";
    }
    return "?";
}

Result<SafetensorsFile> SafetensorsFile::parse(const uint8_t* data, size_t size) {
    if (!data || size < 8)
        return Status::io("not a safetensors file: " + std::to_string(size) + " bytes is shorter than the 8-byte header length");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
    if (n > size - 8)
        return Status::io("not a safetensors file (or truncated): header length " + std::to_string(n) +
                          " exceeds the " + std::to_string(size - 8) + " bytes after it");
    if (n > kMaxHeaderBytes)
        return Status::io("safetensors header of " + std::to_string(n) + " bytes exceeds the " +
                          std::to_string(kMaxHeaderBytes) + "-byte limit");
    const char* header = reinterpret_cast<const char*>(data + 8);
    json j = json::parse(header, header + n, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::io("not a safetensors file: the header is not valid JSON");
    if (!j.is_object()) return Status::io("not a safetensors file: the header is not a JSON object");

    SafetensorsFile f;
    f.data_ = data + 8 + n;
    f.data_size_ = size - 8 - size_t(n);
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object()) return Status::io("__metadata__ is not an object");
            for (auto m = it->begin(); m != it->end(); ++m) {
                if (!m->is_string()) return Status::io("__metadata__ value '" + m.key() + "' is not a string");
                f.metadata_[m.key()] = m->get<std::string>();
            }
            continue;
        }
        TensorInfo t;
        SF_RETURN_IF_ERROR(parse_entry(it.key(), *it, f.data_size_, &t));
        f.tensors_.push_back(std::move(t));
    }
    // Byte ranges must not overlap (empty tensors occupy nothing).
    std::vector<const TensorInfo*> by_offset;
    for (const auto& t : f.tensors_)
        if (t.end > t.begin) by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        if (by_offset[i]->begin < by_offset[i - 1]->end)
            return Status::io("tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name +
                              "' have overlapping data_offsets");
    }
    std::sort(f.tensors_.begin(), f.tensors_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (size_t i = 0; i < f.tensors_.size(); ++i) f.index_[f.tensors_[i].name] = i;
    f.used_.assign(f.tensors_.size(), false);
    return f;
}

bool SafetensorsFile::has(const std::string& name) const { return index_.count(name) != 0; }

std::string SafetensorsFile::metadata(const std::string& key) const {
    auto it = metadata_.find(key);
    return it == metadata_.end() ? std::string() : it->second;
}

Result<Buffer> SafetensorsFile::take(const std::string& name, const Shape& shape) {
    auto it = index_.find(name);
    if (it == index_.end()) return Status::invalid("missing tensor '" + name + "' " + shape_string(shape));
    const TensorInfo& t = tensors_[it->second];
    if (t.shape != shape)
        return Status::shape("tensor '" + name + "' has shape " + shape_string(t.shape) + ", expected " + shape_string(shape));
    SF_ASSIGN_OR_RETURN(Buffer b, read(t));
    SF_RETURN_IF_ERROR(check_finite(b.data(), b.size(), ("tensor '" + name + "'").c_str()));
    used_[it->second] = true;
    elements_taken_ += b.size();
    return b;
}

Result<Buffer> SafetensorsFile::read(const TensorInfo& t) const {
    const size_t count = element_count(t.shape);
    SF_ASSIGN_OR_RETURN(Buffer b, Buffer::uninitialized(count, t.name.c_str()));
    const uint8_t* src = data_ + t.begin;
    float* dst = b.data();
    for (size_t i = 0; i < count; ++i) {
        switch (t.dtype) {
            case DType::kF32: std::memcpy(dst + i, src + 4 * i, 4); break;
            case DType::kF16: dst[i] = f16_to_f32(uint16_t(src[2 * i] | src[2 * i + 1] << 8)); break;
            case DType::kBF16: dst[i] = bf16_to_f32(uint16_t(src[2 * i] | src[2 * i + 1] << 8)); break;
            case DType::kF64: {
                double v;
                std::memcpy(&v, src + 8 * i, 8);
                dst[i] = float(v);
                break;
            }
        }
    }
    return b;
}

std::vector<std::string> SafetensorsFile::unused() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < tensors_.size(); ++i)
        if (!used_[i]) names.push_back(tensors_[i].name);
    return names;
}

Result<std::string> describe_safetensors(const uint8_t* data, size_t size) {
    SF_ASSIGN_OR_RETURN(SafetensorsFile f, SafetensorsFile::parse(data, size));
    json tensors = json::array();
    size_t parameters = 0;
    for (const TensorInfo& t : f.tensors()) {
        parameters += element_count(t.shape);
        tensors.push_back({{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}});
    }
    json out = {{"tensors", tensors}, {"metadata", f.all_metadata()}, {"parameters", parameters}};
    return out.dump();
}

std::vector<uint8_t> write_safetensors(const std::vector<std::pair<std::string, std::pair<Shape, const float*>>>& tensors,
                                       const std::map<std::string, std::string>& metadata) {
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    size_t offset = 0;
    for (const auto& [name, t] : tensors) {
        const size_t count = element_count(t.first);
        header[name] = {{"dtype", "F32"}, {"shape", t.first}, {"data_offsets", {offset, offset + 4 * count}}};
        offset += 4 * count;
    }
    const std::string text = header.dump();
    std::vector<uint8_t> out(8 + text.size() + offset);
    uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(n >> (8 * i));
    std::memcpy(out.data() + 8, text.data(), text.size());
    offset = 8 + text.size();
    for (const auto& [name, t] : tensors) {
        const size_t count = element_count(t.first);
        if (count) std::memcpy(out.data() + offset, t.second, 4 * count);
        offset += 4 * count;
    }
    return out;
}

}  // namespace simdformer
