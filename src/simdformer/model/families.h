// The family table: which runner computes each family (arch/architecture.h). A new architecture
// of a known family is a row of the registry (arch/registry.cpp) and an adapter; only a new
// family adds a runner and a row here.
#pragma once

#include <memory>

#include "simdformer/model/runner.h"

namespace simdformer::detail {

// The runner of `family`, built from the spec its architecture's adapter read.
Result<std::unique_ptr<Runner>> load_runner(Family family, const RunnerSpec& spec, WeightReader& reader);

}  // namespace simdformer::detail
