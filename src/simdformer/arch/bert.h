// BERT and its BERT-shaped relatives (MiniLM, BGE, GTE, E5 ...), as Hugging Face's
// modeling_bert.py lays them out. RoBERTa shares the layout under another prefix (arch/roberta.cpp).
#pragma once

#include <string>

#include "simdformer/arch/adapter.h"

namespace simdformer {

// The config keys BERT and RoBERTa share, with BertConfig's defaults (RoBERTa passes its own).
struct BertDefaults {
    int64_t pad_token_id = 0, bos_token_id = -1, eos_token_id = -1;
};
Result<TextConfig> normalize_bert_family(const HfConfig& c, Architecture architecture, const BertDefaults& defaults);

// Embeddings and encoder layers under `base` ("bert." / "roberta." / ""): embeddings.*,
// encoder.layer.<i>.{attention.self.{query,key,value}, attention.output.{dense,LayerNorm},
// intermediate.dense, output.{dense,LayerNorm}}, pooler.dense when present.
void bert_family_body(const WeightReader& checkpoint, const TextConfig& config, const std::string& base,
                      TextModelRef* ref);

}  // namespace simdformer
