// Model::load_checkpoint: config.json + safetensors shard(s) -> a Model. The registry picks the
// architecture's row from the config (arch/registry.h), its adapter reads the config and the
// tensor names into the family's spec, and the family's runner loads the layers from it.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#if defined(__EMSCRIPTEN__)
#include <emscripten/heap.h>
#endif

#include "simdformer/arch/registry.h"
#include "simdformer/io/checkpoint.h"
#include "simdformer/io/json_limits.h"
#include "simdformer/model/families.h"
#include "simdformer/model/model_state.h"

namespace simdformer {
namespace {

using nlohmann::json;

// "F32", "F16", ... when every floating-point tensor has that dtype, else "mixed".
std::string stored_dtype(const Checkpoint& c) {
    std::set<std::string> seen;
    for (const TensorInfo& t : c.tensors())
        if (dtype_is_float(t.dtype)) seen.insert(dtype_name(t.dtype));
    return seen.size() == 1 ? *seen.begin() : seen.empty() ? "none" : "mixed";
}

bool has_int8_tensors(const Checkpoint& c) {
    for (const TensorInfo& t : c.tensors())
        if (t.dtype == DType::kI8) return true;
    return false;
}

// The bytes the weights will be held in: float32, or with weights 'int8' one byte per element of
// every matrix (per-channel scales aside) and float32 for the vectors; plus the largest tensor as
// float32, which a load may stage while it converts. An estimate from below: packed panels pad
// their last columns.
uint64_t held_weight_bytes(const Checkpoint& c, WeightFormat weights) {
    uint64_t held = 0, largest = 0;
    for (const TensorInfo& t : c.tensors()) {
        if (!dtype_is_float(t.dtype) && t.dtype != DType::kI8) continue;
        const bool matrix = t.shape.size() == 2;
        const bool int8 = t.dtype == DType::kI8 || (weights == WeightFormat::kInt8 && matrix);
        held += int8 ? t.elements + 4 * t.rows() : 4 * t.elements;
        largest = std::max(largest, 4 * t.elements);
    }
    return held + largest;
}

// What this process can allocate at most: wasm's maximum heap (4 GiB for the shipped builds), or
// the address space of a 32-bit process; a 64-bit process is not limited here.
uint64_t address_space_bytes() {
#if defined(__EMSCRIPTEN__)
    return emscripten_get_heap_max();
#else
    return sizeof(size_t) < 8 ? uint64_t{SIZE_MAX} : UINT64_MAX;
#endif
}

std::string megabytes(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MB"; }

// A checkpoint that cannot fit is refused before its first tensor is read or allocated.
Status check_weights_fit(const Checkpoint& c, WeightFormat weights) {
    const uint64_t need = held_weight_bytes(c, weights), limit = address_space_bytes();
    const uint64_t in_use = Buffer::live_bytes();
    if (need <= limit && limit - need >= in_use) return Status::ok();
    std::string hint;
    if (weights == WeightFormat::kF32 && held_weight_bytes(c, WeightFormat::kInt8) + in_use <= limit)
        hint = "; with weights 'int8' it would take " + megabytes(held_weight_bytes(c, WeightFormat::kInt8));
    return Status::oom(cat({"the weights need at least ", megabytes(need), " as ",
                            (weights == WeightFormat::kInt8 ? "int8" : "f32"), ", and this engine can hold at most ",
                            megabytes(limit), " (", megabytes(in_use), " in use)", hint}));
}

}  // namespace

Result<Model> Model::load_checkpoint(const std::string& config_json, const std::vector<CheckpointShard>& shards,
                                     const std::string& index_json, const LoadOptions& options) {
    // The config first: an unsupported architecture is reported before any weight is touched.
    ParsedJson parsed_config;
    json& config = parsed_config.value;
    if (!config_json.empty()) {
        SF_RETURN_IF_ERROR(check_json_limits(config_json, "config"));
        parse_json(config_json, &parsed_config);
        if (config.is_discarded()) return Status::invalid("config is not valid JSON");
    }
    SF_ASSIGN_OR_RETURN(const ArchitectureRow* row, choose_architecture(config_json.empty() ? nullptr : &config));
    SF_ASSIGN_OR_RETURN(Checkpoint checkpoint, Checkpoint::open(shards, index_json, options));
    SF_ASSIGN_OR_RETURN(const RunnerSpec spec, row->adapter().read(AdapterInput{config_json, config, checkpoint}));
    SF_RETURN_IF_ERROR(check_weights_fit(checkpoint, options.weights));
    Model model;
    SF_ASSIGN_OR_RETURN(model.impl_->runner, detail::load_runner(row->family, spec, checkpoint));
    model.impl_->config_text = config_json;
    model.impl_->stored_dtype = stored_dtype(checkpoint);
    model.impl_->int8_weights = options.weights == WeightFormat::kInt8 || has_int8_tensors(checkpoint);
    SF_RETURN_IF_ERROR(checkpoint.report_done());
    return model;
}

Result<Model> Model::load(const uint8_t* data, size_t size, const std::string& config_json) {
    MemorySource source(data, data ? size : 0);
    return load_checkpoint(config_json, {{"model.safetensors", &source}}, "");
}

}  // namespace simdformer
