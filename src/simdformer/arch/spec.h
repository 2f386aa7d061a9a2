// What an adapter hands a runner (model/runner.h): the model's config in simdformer's terms and
// the checkpoint name of every tensor each layer loads. Runners build layers from a spec and
// never see the checkpoint's naming scheme.
#pragma once

#include <string>
#include <variant>

#include "simdformer/arch/text_config.h"
#include "simdformer/config.h"
#include "simdformer/layers/tensor_refs.h"

namespace simdformer {

// The TorchStack family: the module kind and shapes (config.h), the tensors of each part.
struct TorchSpec {
    ModelConfig config;
    TorchStackRef names;
    std::string config_text;  // the config as it was given (file or safetensors metadata)
};

// The Hugging Face text families (TextEncoder, CausalLm).
struct TextSpec {
    TextConfig config;
    TextModelRef names;
};

using RunnerSpec = std::variant<TorchSpec, TextSpec>;

}  // namespace simdformer
