// Model::load_checkpoint: config.json + safetensors shard(s) -> a Model. The registry picks the
// architecture's row from the config (arch/registry.h), its adapter reads the config and the
// tensor names into the family's spec, and the family's runner loads the layers from it.
#include <nlohmann/json.hpp>
#include <set>

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
