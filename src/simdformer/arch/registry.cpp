#include "simdformer/arch/registry.h"

namespace simdformer {
namespace {

using nlohmann::json;

bool is_torch_kind(const std::string& s) {
    for (const char* k : {"multihead_attention", "encoder_layer", "encoder", "decoder_layer", "decoder", "transformer"})
        if (s == k) return true;
    return false;
}

struct Family {
    const char* model_type;
    const char* class_prefix;  // of HF class names in `architectures` (BertForMaskedLM, ...)
    const Adapter& (*adapter)();
};

// The Hugging Face families with an adapter.
const Family kFamilies[] = {
    {"bert", "Bert", bert_adapter},
    {"roberta", "Roberta", roberta_adapter},
    {"distilbert", "DistilBert", distilbert_adapter},
    {"gpt2", "GPT2", gpt2_adapter},
};

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
    if (mt != config.end()) what = "model_type " + mt->dump();
    auto ar = config.find("architectures");
    if (ar != config.end()) what += std::string(what.empty() ? "" : ", ") + "architectures " + ar->dump();
    return what.empty() ? "a config without model_type or architectures" : what;
}

Status unsupported(const json& config) {
    return Status::unsupported(describe(config) + " is not supported; supported: " + supported_architectures());
}

}  // namespace

std::string supported_architectures() {
    std::string s;
    for (const Family& f : kFamilies) s += std::string(s.empty() ? "" : ", ") + f.model_type;
    return s + " (Hugging Face config.json), and simdformer's nn.Transformer dialect (model_type "
               "multihead_attention, encoder_layer, encoder, decoder_layer, decoder or transformer)";
}

Result<ArchitectureChoice> choose_architecture(const json& config) {
    if (!config.is_object()) return Status::invalid("config is not a JSON object");
    auto mt = config.find("model_type");
    auto ar = config.find("architectures");
    const bool hf_marks = ar != config.end() || config.contains("transformers_version") || config.contains("_name_or_path");
    if (mt != config.end() && !mt->is_string()) return Status::invalid("config \"model_type\" must be a string");
    const std::string model_type = mt != config.end() ? mt->get<std::string>() : std::string();
    if (!hf_marks && (model_type.empty() || is_torch_kind(model_type))) return ArchitectureChoice{};

    if (!model_type.empty()) {
        for (const Family& f : kFamilies)
            if (model_type == f.model_type) return ArchitectureChoice{f.adapter().architecture(), &f.adapter()};
        return unsupported(config);
    }
    // No model_type: the first class name in `architectures` decides (BertForMaskedLM -> bert).
    if (ar != config.end() && ar->is_array() && !ar->empty() && ar->front().is_string()) {
        const std::string cls = ar->front().get<std::string>();
        for (const Family& f : kFamilies) {
            const std::string prefix = f.class_prefix;
            // "Bert" must not claim "BertGeneration"-style relatives with their own model_type,
            // nor DistilBert claim Bert: the next character must start the head's name.
            if (cls.compare(0, prefix.size(), prefix) == 0 && starts_head_name(cls.substr(prefix.size())))
                return ArchitectureChoice{f.adapter().architecture(), &f.adapter()};
        }
    }
    return unsupported(config);
}

}  // namespace simdformer
