// safetensors: 8-byte little-endian header length N, N bytes of JSON header, then the tensor
// data. The header maps each name to {dtype, shape, data_offsets [begin, end)} relative to the
// data section, plus an optional "__metadata__" object of strings.
//
// Only the 8 bytes and the header are read here (from any ByteSource); the header is validated
// whole before anything else happens: length bounded, JSON object, no duplicate names, dtypes
// known, byte size = product(shape) * dtype size, ranges inside the source and not overlapping.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "simdformer/io.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

// Largest JSON header accepted, so a hostile length cannot make the parser allocate GBs.
constexpr uint64_t kMaxSafetensorsHeaderBytes = 16u << 20;

struct SafetensorsHeader {
    std::vector<TensorInfo> tensors;  // sorted by name; offsets absolute in the source
    std::map<std::string, std::string> metadata;
};

// Reads and validates the header of the safetensors file in `source`; its tensors get `shard`.
Result<SafetensorsHeader> read_safetensors_header(ByteSource& source, size_t shard);

// Sorts tensors by name: one copy of std::sort's code for a header's list and for a checkpoint's
// list merged from its shards (two lambdas would be two instantiations, 673 B of wasm each).
void sort_by_name(std::vector<TensorInfo>& tensors);

}  // namespace simdformer
