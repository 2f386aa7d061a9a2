#include "simdformer/arch/registry.h"

#include "simdformer/io/json_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

// Every architecture: adding one is a row here and its adapter (and a runner only for a new
// family). The torch row comes first: it is the one chosen when there is no config.json.
const ArchitectureRow kArchitectures[] = {
    {Architecture::kTorch, "torch", nullptr, Family::kTorchStack, torch_adapter},
    {Architecture::kBert, "bert", "Bert", Family::kTextEncoder, bert_adapter},
    {Architecture::kRoberta, "roberta", "Roberta", Family::kTextEncoder, roberta_adapter},
    // modeling_xlm_roberta.py is RoBERTa's code under XLMRoberta* names: the same adapter.
    {Architecture::kXlmRoberta, "xlm-roberta", "XLMRoberta", Family::kTextEncoder, xlm_roberta_adapter},
    {Architecture::kDistilBert, "distilbert", "DistilBert", Family::kTextEncoder, distilbert_adapter},
    {Architecture::kGpt2, "gpt2", "GPT2", Family::kCausalLm, gpt2_adapter},
    {Architecture::kLlama, "llama", "Llama", Family::kCausalLm, llama_adapter},
    {Architecture::kQwen2, "qwen2", "Qwen2", Family::kCausalLm, qwen2_adapter},
    {Architecture::kMistral, "mistral", "Mistral", Family::kCausalLm, mistral_adapter},
    {Architecture::kMinistral, "ministral", "Ministral", Family::kCausalLm, ministral_adapter},
};
const ArchitectureRow& kTorchRow = kArchitectures[0];

bool is_torch_kind(const std::string& s) {
    for (const char* k : {"multihead_attention", "encoder_layer", "encoder", "decoder_layer", "decoder", "transformer"})
        if (s == k) return true;
    return false;
}

// The rest of a Hugging Face class name after the family's prefix starts a head's name:
// BertModel, BertForMaskedLM, GPT2LMHeadModel, GPT2DoubleHeadsModel (not BertGeneration...).
bool starts_head_name(const std::string& rest) {
    for (const char* head : {"For", "Model", "LMHead", "DoubleHeads"})
        if (rest.compare(0, std::char_traits<char>::length(head), head) == 0) return true;
    return rest.empty();
}

std::string describe(const json& config) {
    std::string what;
    auto mt = config.find("model_type");
    if (mt != config.end()) what = "model_type " + json_text(*mt);
    auto ar = config.find("architectures");
    if (ar != config.end()) what += std::string(what.empty() ? "" : ", ") + "architectures " + json_text(*ar);
    return what.empty() ? "a config without model_type or architectures" : what;
}

Status unsupported(const json& config) {
    return Status::unsupported(cat({describe(config), " is not supported; supported: ", supported_architectures()}));
}

// No model_type: the first class name in `architectures` decides (BertForMaskedLM -> bert).
// "Bert" must not claim "BertGeneration"-style relatives with their own model_type, nor
// DistilBert claim Bert: the next character must start the head's name.
const ArchitectureRow* row_of_class(const json& architectures) {
    if (!architectures.is_array() || architectures.empty() || !architectures.front().is_string()) return nullptr;
    const std::string cls = architectures.front().get<std::string>();
    for (const ArchitectureRow& row : kArchitectures) {
        if (!row.class_prefix) continue;
        const std::string prefix = row.class_prefix;
        if (cls.compare(0, prefix.size(), prefix) == 0 && starts_head_name(cls.substr(prefix.size()))) return &row;
    }
    return nullptr;
}

}  // namespace

const char* architecture_name(Architecture a) {
    for (const ArchitectureRow& row : kArchitectures)
        if (row.architecture == a) return row.name;
    return "?";
}

const char* family_name(Family f) {
    switch (f) {
        case Family::kTorchStack: return "torch_stack";
        case Family::kTextEncoder: return "text_encoder";
        case Family::kCausalLm: return "causal_lm";
    }
    return "?";
}

std::string supported_architectures() {
    std::string s;
    for (const ArchitectureRow& row : kArchitectures)
        if (row.class_prefix) s += std::string(s.empty() ? "" : ", ") + row.name;
    return s + " (Hugging Face config.json), and simdformer's nn.Transformer dialect (model_type "
               "multihead_attention, encoder_layer, encoder, decoder_layer, decoder or transformer)";
}

Result<const ArchitectureRow*> choose_architecture(const json* given) {
    if (!given) return &kTorchRow;
    const json& config = *given;
    if (!config.is_object()) return Status::invalid("config is not a JSON object");
    auto mt = config.find("model_type");
    auto ar = config.find("architectures");
    const bool hf_marks = ar != config.end() || config.contains("transformers_version") || config.contains("_name_or_path");
    if (mt != config.end() && !mt->is_string()) return Status::invalid("config \"model_type\" must be a string");
    const std::string model_type = mt != config.end() ? mt->get<std::string>() : std::string();
    if (!hf_marks && (model_type.empty() || is_torch_kind(model_type))) return &kTorchRow;
    if (!model_type.empty()) {
        for (const ArchitectureRow& row : kArchitectures)
            if (row.class_prefix && model_type == row.name) return &row;
        return unsupported(config);
    }
    if (ar != config.end())
        if (const ArchitectureRow* row = row_of_class(*ar)) return row;
    return unsupported(config);
}

}  // namespace simdformer
