// An architecture adapter: how one checkpoint format maps onto simdformer. read() turns its
// config.json (and, for the torch dialect, a config kept in the safetensors metadata) into its
// family's spec (arch/spec.h): the config in simdformer's terms and the tensor names of every
// layer, detecting the base-model prefix ("bert." in BertForMaskedLM files, none in BertModel
// files) and listing the tensors to accept and ignore.
//
// Adapters: torch (arch/torch.cpp), bert (arch/bert.cpp), roberta (arch/roberta.cpp), distilbert
// (arch/distilbert.cpp), gpt2 (arch/gpt2.cpp: Conv1D weights as WeightLayout::kInOut, c_attn as
// three parts), llama / qwen2 / mistral / ministral (arch/llama.cpp: one adapter over a table
// of the four dialects). The registry (arch/registry.cpp) says which adapter reads a config.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simdformer/arch/hf_config.h"
#include "simdformer/arch/spec.h"
#include "simdformer/io/checkpoint.h"

namespace simdformer {

struct AdapterInput {
    const std::string& config_text;  // config.json as given ("" = none)
    const nlohmann::json& config;    // parsed (null when none was given)
    const Checkpoint& checkpoint;    // tensor names and the safetensors metadata
};

class Adapter {
public:
    virtual ~Adapter() = default;
    virtual Result<RunnerSpec> read(const AdapterInput& input) const = 0;
};

// The Hugging Face text adapters: normalize() reads config.json into the one internal TextConfig,
// names() lists the tensors; read() is the two in turn.
class HfTextAdapter : public Adapter {
public:
    Result<RunnerSpec> read(const AdapterInput& input) const final;
    virtual Result<TextConfig> normalize(const HfConfig& config) const = 0;
    virtual Result<TextModelRef> names(const TextConfig& config, const WeightReader& checkpoint) const = 0;
};

const Adapter& torch_adapter();
const Adapter& bert_adapter();
const Adapter& roberta_adapter();
const Adapter& xlm_roberta_adapter();  // the roberta adapter under model_type xlm-roberta
const Adapter& distilbert_adapter();
const Adapter& gpt2_adapter();
const Adapter& llama_adapter();    // also qwen2_adapter, mistral_adapter (arch/llama.cpp)
const Adapter& qwen2_adapter();
const Adapter& mistral_adapter();
const Adapter& ministral_adapter();

// Shared by the adapters: a LayerNorm at `prefix` whether it is stored as weight/bias or, in
// checkpoints converted from TensorFlow, gamma/beta (Hugging Face renames those on load).
NormRef layer_norm_names(const WeightReader& checkpoint, const std::string& prefix);
// "" if `probe` (the name of a base-model tensor) is stored without a prefix, else `prefix`
// when `prefix + probe` is there; an error naming both when neither is.
Result<std::string> detect_prefix(const WeightReader& checkpoint, const std::string& prefix, const std::string& probe);
// The config's architectures[0] is a ...ForSequenceClassification class: the checkpoint's
// classifier tensors are that head (a ...ForTokenClassification's `classifier` has the same name
// and another meaning, so the tensors alone do not tell).
bool names_sequence_classifier(const TextConfig& config);
// ...ForTokenClassification (`classifier` on every token) and ...ForQuestionAnswering
// (`qa_outputs`): the same tensor names in BERT, RoBERTa and DistilBERT checkpoints, outside the
// base-model prefix. Fills ref->token_head when the config's class is one of them.
void token_head_names(const TextConfig& config, TextModelRef* ref);
// Adds `name` to ref->ignored when the checkpoint has it.
void ignore_if_present(const WeightReader& checkpoint, const std::string& name, TextModelRef* ref);

}  // namespace simdformer
