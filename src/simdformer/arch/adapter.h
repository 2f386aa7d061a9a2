// An architecture adapter: how one checkpoint family (Hugging Face model_type) maps onto
// simdformer. normalize() reads its config.json into the one internal TextConfig; names() lists
// the tensors of each slot (detecting the base-model prefix, e.g. "bert." in BertForMaskedLM
// files and none in BertModel files) and the tensors to accept and ignore.
//
// Adapters: bert (arch/bert.cpp), roberta (arch/roberta.cpp), distilbert (arch/distilbert.cpp),
// gpt2 (arch/gpt2.cpp: decoder-only, Conv1D weights as WeightLayout::kInOut, c_attn as three
// parts). The torch dialect (arch/torch.h) predates this interface and keeps its own entry points.
#pragma once

#include <string>
#include <vector>

#include "simdformer/arch/hf_config.h"
#include "simdformer/arch/tensor_refs.h"
#include "simdformer/arch/text_config.h"
#include "simdformer/io/weight_reader.h"

namespace simdformer {

class Adapter {
public:
    virtual ~Adapter() = default;
    virtual Architecture architecture() const = 0;
    virtual Result<TextConfig> normalize(const HfConfig& config) const = 0;
    virtual Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const = 0;
};

const Adapter& bert_adapter();
const Adapter& roberta_adapter();
const Adapter& distilbert_adapter();
const Adapter& gpt2_adapter();

// Shared by the adapters: a LayerNorm at `prefix` whether it is stored as weight/bias or, in
// checkpoints converted from TensorFlow, gamma/beta (Hugging Face renames those on load).
NormRef layer_norm_names(const WeightReader& checkpoint, const std::string& prefix);
// "" if `probe` (the name of a base-model tensor) is stored without a prefix, else `prefix`
// when `prefix + probe` is there; an error naming both when neither is.
Result<std::string> detect_prefix(const WeightReader& checkpoint, const std::string& prefix, const std::string& probe);
// Adds `name` to ref->ignored when the checkpoint has it.
void ignore_if_present(const WeightReader& checkpoint, const std::string& name, TextModelRef* ref);

}  // namespace simdformer
