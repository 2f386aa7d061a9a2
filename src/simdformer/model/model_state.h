// What a Model holds: its runner (the family that computes it, model/runner.h) and what
// info_json() reports beyond the runner's own keys.
#pragma once

#include <memory>
#include <string>

#include "simdformer/model/runner.h"

namespace simdformer::detail {

struct ModelImpl {
    std::unique_ptr<Runner> runner;
    std::string config_text;   // the config as given (Hugging Face families; TorchStack keeps its own)
    std::string stored_dtype;  // dtype of the checkpoint's weights ("F32", "F16", "mixed")
    bool int8_weights = false;  // linear weights held as int8 (info "weights")
};

}  // namespace simdformer::detail
