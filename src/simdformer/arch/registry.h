// The architecture registry: one table (arch/registry.cpp) whose rows are every checkpoint
// format simdformer reads, each with its family (the runner that computes it) and its adapter.
// choose_architecture() picks the row a config.json names (Hugging Face `model_type`, else
// `architectures`; simdformer's own nn.Transformer dialect by its `model_type`, or when there is
// no config.json at all). Anything else is `unsupported`, naming what was found and listing what
// is supported.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simdformer/arch/adapter.h"
#include "simdformer/arch/architecture.h"

namespace simdformer {

struct ArchitectureRow {
    Architecture architecture;
    const char* name;          // info "architecture"; the Hugging Face model_type of HF rows
    const char* class_prefix;  // of Hugging Face class names in `architectures` (BertForMaskedLM ...); null: none
    Family family;
    const Adapter& (*adapter)();
};

// config: the parsed config.json, or nullptr when none was given (the torch dialect's config may
// live in the safetensors metadata).
Result<const ArchitectureRow*> choose_architecture(const nlohmann::json* config);

// "bert, roberta, distilbert, gpt2 (Hugging Face config.json) and simdformer's nn.Transformer dialect (...)"
std::string supported_architectures();

}  // namespace simdformer
