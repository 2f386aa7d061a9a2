// Files: safetensors description and writing. (Loading a model from them is Model::load.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/status.h"

namespace simdformer {

// A tensor shape, outermost dimension first.
using Shape = std::vector<size_t>;

// "[2, 3]"
std::string shape_string(const Shape& shape);

// A JSON description of a safetensors file: {"tensors": [{"name", "dtype", "shape"}...],
// "metadata": {...}, "parameters": N}, or the parse error.
Result<std::string> describe_safetensors(const uint8_t* data, size_t size);

// Serialises float32 tensors as a safetensors file (tests, tools, models built in code).
std::vector<uint8_t> write_safetensors(const std::vector<std::pair<std::string, std::pair<Shape, const float*>>>& tensors,
                                       const std::map<std::string, std::string>& metadata = {});

}  // namespace simdformer
