#include "simdformer/model/families.h"

#include "simdformer/model/causal_lm.h"
#include "simdformer/model/text_encoder.h"
#include "simdformer/model/torch_stack.h"

namespace simdformer::detail {
namespace {

struct FamilyRow {
    Family family;
    Result<std::unique_ptr<Runner>> (*load)(const RunnerSpec& spec, WeightReader& reader);
};

const FamilyRow kFamilies[] = {
    {Family::kTorchStack, TorchStack::load},
    {Family::kTextEncoder, TextEncoder::load},
    {Family::kCausalLm, CausalLm::load},
};

}  // namespace

Result<std::unique_ptr<Runner>> load_runner(Family family, const RunnerSpec& spec, WeightReader& reader) {
    for (const FamilyRow& row : kFamilies)
        if (row.family == family) return row.load(spec, reader);
    return Status::unsupported(cat({std::string("no runner for the family "), family_name(family)}));
}

}  // namespace simdformer::detail
