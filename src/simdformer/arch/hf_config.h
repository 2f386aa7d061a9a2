// Reading Hugging Face config.json values strictly. HF configs carry many keys simdformer does
// not need (architectures, _name_or_path, id2label, dropout probabilities, ...): those are
// accepted. The keys that shape the model are checked: an integer must be an exact JSON
// integer within its range (not 768.0, not "768"), and every message names the key and value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/arch/text_config.h"
#include "simdformer/status.h"

namespace simdformer {

class HfConfig {
public:
    explicit HfConfig(const nlohmann::json& j) : j_(j) {}
    const nlohmann::json& json() const { return j_; }

    // The first present key of `names` (HF attribute aliases such as dim / hidden_size), which
    // must be an integer in [lo, hi]; `fallback` (HF's default) when none is present. Aliases
    // present with different values are an error.
    Status size(std::initializer_list<const char*> names, size_t lo, size_t hi, size_t fallback, size_t* out) const;
    // An integer token id in [0, hi), or null / absent (-> -1 / fallback).
    Status token_id(const char* name, size_t hi, int64_t fallback, int64_t* out) const;
    // The id of a special token that only generation defaults and batch padding use, never the
    // forward pass: as Hugging Face does, any integer is accepted. One outside [0, hi) (GPT2Config's
    // default bos_token_id 50256 left in the config of a model trained on a 53-token vocabulary)
    // is none (-1) and is reported in *unused; it must still be an integer, null, or a list of
    // integers (then the first one in the vocabulary, as generation_token_ids).
    Status generation_token_id(const char* name, size_t hi, int64_t fallback, int64_t* out,
                               std::vector<std::pair<std::string, nlohmann::json>>* unused) const;
    // The same for a key that may also hold a list of ids (Llama 3's eos_token_id [128001,
    // 128008, 128009]: generation stops at any): *out the first one in the vocabulary, *all every
    // one there, the others reported in *unused as one entry holding the list of them.
    Status generation_token_ids(const char* name, size_t hi, int64_t fallback, int64_t* out, std::vector<int64_t>* all,
                                std::vector<std::pair<std::string, nlohmann::json>>* unused) const;
    // A finite number in (0, hi].
    Status positive_number(const char* name, double hi, float fallback, float* out) const;
    // A string; absent is `fallback`, and so is null when `fallback` is "" (else null is an error).
    Status string(const char* name, const std::string& fallback, std::string* out) const;
    // true / false; null is false (None, which HF's code tests for truth); absent is `fallback`.
    Status boolean(const char* name, bool fallback, bool* out) const;
    // hidden_act / activation: a name of Hugging Face's ACT2FN whose formula a kernel computes
    // (see kHfActivations in hf_config.cpp); any other is kUnsupported, naming it.
    Status activation(std::initializer_list<const char*> names, const std::string& fallback, std::string* name,
                      Activation* out) const;
    // architectures[0], id2label / num_labels and problem_type into t->head_class, num_labels,
    // labels and problem_type (see TextConfig).
    Status task_head(TextConfig* t) const;
    // A feature simdformer does not implement must be off: `name` absent or equal to `expected`
    // (or null where `expected` is false: None is off).
    Status require(const char* name, const nlohmann::json& expected, const std::string& what) const;

private:
    const nlohmann::json& j_;
};

}  // namespace simdformer
