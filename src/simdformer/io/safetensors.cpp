#include "simdformer/io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "simdformer/io/json_limits.h"
#include "simdformer/io/json_object.h"
#include "simdformer/io/json_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

// Reads a JSON array of non-negative integers that fit in 64 bits.
Status read_sizes(const json& j, const char* what, std::vector<uint64_t>* out) {
    const Status bad = Status::io(cat({std::string("\""), what, "\" is not an array of non-negative integers"}));
    if (!j.is_array()) return bad;
    for (const json& e : j) {
        if (!e.is_number_unsigned()) return bad;
        out->push_back(e.get<uint64_t>());
    }
    return Status::ok();
}

// a * b, or false on 64-bit overflow.
bool mul_u64(uint64_t a, uint64_t b, uint64_t* out) {
    if (a != 0 && b > UINT64_MAX / a) return false;
    *out = a * b;
    return true;
}

Status parse_entry(const std::string& name, const json& e, uint64_t data_offset, uint64_t data_size, TensorInfo* t) {
    auto bad = [&](const std::string& what) { return Status::io(cat({"tensor '", name, "': ", what})); };
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
        return Status::unsupported(cat({"tensor '", name, "': dtype ", dtype, " is not supported (",
                                        supported_dtype_names(), ")"}));
    std::vector<uint64_t> shape, offsets;
    SF_RETURN_IF_ERROR(read_sizes(*sh, "shape", &shape).with_context(cat({"tensor '", name, "'"})));
    SF_RETURN_IF_ERROR(read_sizes(*off, "data_offsets", &offsets).with_context(cat({"tensor '", name, "'"})));
    if (offsets.size() != 2) return bad("\"data_offsets\" is not [begin, end]");
    const uint64_t begin = offsets[0], end = offsets[1];
    if (begin > end) return bad("data_offsets begin " + std::to_string(begin) + " > end " + std::to_string(end));
    if (end > data_size)
        return bad("data_offsets end " + std::to_string(end) + " is beyond the data section (" +
                   std::to_string(data_size) + " bytes): the file is truncated or corrupt");
    // A dimension is at most wasm32's SIZE_MAX (2^32 - 1) on every platform, so the native addon
    // refuses the same files with the same message as the wasm module.
    constexpr uint64_t kMaxDimension = UINT32_MAX;
    uint64_t elements = 1;
    for (uint64_t s : shape) {
        if (s > kMaxDimension || !mul_u64(elements, s, &elements)) {
            std::string text = "[";
            for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
            return bad("shape " + text + "] overflows");
        }
        t->shape.push_back(size_t(s));
    }
    uint64_t bytes = 0;
    if (!mul_u64(elements, dtype_size(t->dtype), &bytes)) return bad("shape " + shape_string(t->shape) + " overflows");
    if (bytes != end - begin)
        return bad("shape " + shape_string(t->shape) + " of " + dtype + " needs " + std::to_string(bytes) +
                   " bytes but data_offsets span " + std::to_string(end - begin));
    t->elements = elements;
    t->offset = data_offset + begin;
    t->bytes = bytes;
    return Status::ok();
}

Status parse_metadata(const json& m, std::map<std::string, std::string>* out) {
    if (!m.is_object()) return Status::io("__metadata__ is not an object");
    for (auto it = m.begin(); it != m.end(); ++it) {
        if (!it->is_string()) return Status::io(cat({"__metadata__ value '", it.key(), "' is not a string"}));
        (*out)[it.key()] = it->get<std::string>();
    }
    return Status::ok();
}

// Parses the header text into *out; a name given twice is an error (JSON parsers keep one silently).
Status parse_header_json(const char* text, size_t n, ParsedJson* out) {
    SF_RETURN_IF_ERROR(check_json_limits(std::string_view(text, n), "safetensors header"));
    // The names given twice are found in the same pass (a parser callback would do it in O(n^2):
    // nlohmann's callback parser scans the whole parent object at every object end, which makes a
    // 16 MiB header of 200,000 tensors take hours).
    std::string duplicate;
    parse_json(std::string_view(text, n), out, &duplicate);
    const json& j = out->value;
    if (j.is_discarded()) return Status::io("not a safetensors file: the header is not valid JSON");
    if (!j.is_object()) return Status::io("not a safetensors file: the header is not a JSON object");
    if (!duplicate.empty())
        return Status::io(cat({"the header names tensor '", duplicate, "' more than once or gives a field of it twice"}));
    return Status::ok();
}

}  // namespace

Result<SafetensorsHeader> read_safetensors_header(ByteSource& source, size_t shard) {
    const uint64_t size = source.size();
    if (size < 8)
        return Status::io(cat({"not a safetensors file: ", size,
                               " bytes is shorter than the 8-byte header length"}));
    uint8_t len[8];
    SF_RETURN_IF_ERROR(source.read(0, 8, len));
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
    if (n > size - 8)
        return Status::io(cat({"not a safetensors file (or truncated): header length ", n,
                               " exceeds the ", size - 8, " bytes after it"}));
    if (n > kMaxSafetensorsHeaderBytes)
        return Status::io(cat({"safetensors header of ", n, " bytes exceeds the ",
                               kMaxSafetensorsHeaderBytes, "-byte limit"}));
    std::string text(size_t(n), '\0');
    SF_RETURN_IF_ERROR(source.read(8, size_t(n), reinterpret_cast<uint8_t*>(text.data())));
    ParsedJson parsed;
    SF_RETURN_IF_ERROR(parse_header_json(text.data(), text.size(), &parsed));
    const json& j = parsed.value;

    SafetensorsHeader h;
    const uint64_t data_offset = 8 + n, data_size = size - data_offset;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "__metadata__") {
            SF_RETURN_IF_ERROR(parse_metadata(*it, &h.metadata));
            continue;
        }
        TensorInfo t;
        t.shard = shard;
        SF_RETURN_IF_ERROR(parse_entry(it.key(), *it, data_offset, data_size, &t));
        h.tensors.push_back(std::move(t));
    }
    // Byte ranges must not overlap (empty tensors occupy nothing).
    std::vector<const TensorInfo*> by_offset;
    for (const auto& t : h.tensors)
        if (t.bytes > 0) by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->bytes)
            return Status::io(cat({"tensors '", by_offset[i - 1]->name, "' and '", by_offset[i]->name,
                                   "' have overlapping data_offsets"}));
    }
    sort_by_name(h.tensors);
    return h;
}

void sort_by_name(std::vector<TensorInfo>& tensors) {
    std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
}

Result<std::string> describe_safetensors(const uint8_t* data, size_t size) {
    MemorySource source(data, size);
    SF_ASSIGN_OR_RETURN(SafetensorsHeader h, read_safetensors_header(source, 0));
    // Built in place, with no temporary holding a copy of the list: if an allocation fails, the
    // partial value is released bottom-up (ParsedJson) instead of by a destructor that allocates.
    ParsedJson out;
    out.value = json::object();
    json& tensors = out.value["tensors"] = json::array();
    uint64_t parameters = 0;
    for (const TensorInfo& t : h.tensors) {
        parameters += t.elements;
        json& entry = tensors.emplace_back(json::object());
        entry["name"] = t.name;
        entry["dtype"] = dtype_name(t.dtype);
        entry["shape"] = t.shape;
    }
    out.value["metadata"] = h.metadata;
    out.value["parameters"] = parameters;
    return json_text(out.value);
}

std::vector<uint8_t> write_safetensors(const std::vector<std::pair<std::string, std::pair<Shape, const float*>>>& tensors,
                                       const std::map<std::string, std::string>& metadata) {
    auto count_of = [](const Shape& shape) {
        size_t n = 1;
        for (size_t s : shape) n *= s;  // describes data the caller holds in memory
        return n;
    };
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    size_t offset = 0;
    for (const auto& [name, t] : tensors) {
        const size_t count = count_of(t.first);
        header[name] = json_object({{"dtype", "F32"}, {"shape", t.first}, {"data_offsets", {offset, offset + 4 * count}}});
        offset += 4 * count;
    }
    const std::string text = json_text(header);
    std::vector<uint8_t> out(8 + text.size() + offset);
    uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(n >> (8 * i));
    std::memcpy(out.data() + 8, text.data(), text.size());
    offset = 8 + text.size();
    for (const auto& [name, t] : tensors) {
        const size_t count = count_of(t.first);
        if (count) std::memcpy(out.data() + offset, t.second, 4 * count);
        offset += 4 * count;
    }
    return out;
}

}  // namespace simdformer
