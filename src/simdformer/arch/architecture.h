// The two words for what a checkpoint is. An architecture is one row of the registry
// (arch/registry.cpp): a checkpoint format with its adapter (bert, roberta, xlm-roberta (roberta's
// adapter), distilbert, gpt2, and simdformer's own nn.Transformer dialect, "torch"). A family is
// the category of architectures one runner computes (model/runner.h): several architectures share
// a family, and a new architecture of a known family is one row and one adapter.
#pragma once

namespace simdformer {

enum class Architecture { kTorch, kBert, kRoberta, kXlmRoberta, kDistilBert, kGpt2, kLlama, kQwen2, kMistral, kMinistral };
const char* architecture_name(Architecture a);  // the row's name: "torch", "bert", "roberta", ...

enum class Family {
    kTorchStack,   // nn.MultiheadAttention / encoder / decoder / nn.Transformer (model/torch_stack.h)
    kTextEncoder,  // Hugging Face encoders: BERT, RoBERTa, DistilBERT (model/text_encoder.h)
    kCausalLm,     // Hugging Face decoder-only language models: GPT-2, Llama, Qwen2, Mistral, Ministral (model/causal_lm.h)
};
const char* family_name(Family f);  // "torch_stack", "text_encoder", "causal_lm"

}  // namespace simdformer
