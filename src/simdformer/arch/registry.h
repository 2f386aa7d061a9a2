// Which adapter reads a checkpoint: chosen from its config.json (Hugging Face `model_type`, else
// `architectures`), or simdformer's own nn.Transformer dialect. Anything else is `unsupported`,
// naming what was found and listing what is supported.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simdformer/arch/adapter.h"

namespace simdformer {

struct ArchitectureChoice {
    Architecture architecture = Architecture::kTorch;
    const Adapter* adapter = nullptr;  // null for the torch dialect (arch/torch.h)
};

Result<ArchitectureChoice> choose_architecture(const nlohmann::json& config);

// "bert, roberta, distilbert (Hugging Face config.json) and simdformer's nn.Transformer dialect (...)"
std::string supported_architectures();

}  // namespace simdformer
