#include "simdformer/arch/hf_config.h"

#include <cmath>

#include "simdformer/io/json_text.h"
#include "simdformer/io/number_text.h"

namespace simdformer {
namespace {

using nlohmann::json;

std::string quoted(const char* name) { return std::string("config \"") + name + "\""; }

constexpr size_t kMaxLabels = size_t{1} << 20;

// An id2label key as PretrainedConfig's int(key) reads it: Python's int() of a string, i.e.
// whitespace around it (ASCII's, as str.strip() drops it), an optional sign, decimal digits
// with single underscores between them (" 1", "+2", "007" and "1_0" are 1, 2, 7 and 10).
bool label_index(const std::string& key, int64_t* out) {
    const char* space = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
    const size_t first = key.find_first_not_of(space);
    if (first == std::string::npos) return false;
    const std::string s = key.substr(first, key.find_last_not_of(space) + 1 - first);
    size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    int64_t v = 0;
    size_t digits = 0;
    for (; i < s.size(); ++i) {
        const bool between_digits = s[i] == '_' && digits > 0 && i + 1 < s.size() && s[i - 1] != '_' && s[i + 1] != '_';
        if (between_digits) continue;
        if (s[i] < '0' || s[i] > '9' || ++digits > 18) return false;
        v = v * 10 + (s[i] - '0');
    }
    if (digits == 0) return false;
    *out = s[0] == '-' ? -v : v;
    return true;
}

// A label as the pipelines print it: a string as it is; another JSON value as Python's str() of
// what json.load gives (42, 1.5, True, None), a list or mapping as its JSON text.
std::string label_text(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
    if (value.is_null()) return "None";
    return json_text(value);
}

// id2label {"0": "NEGATIVE", "1": "POSITIVE"}: num_labels is its size; label i is the value of key
// i, or LABEL_<i> (HF's default name) where there is none.
Status read_id2label(const json& id2label, TextConfig* t) {
    if (!id2label.is_object()) return Status::invalid(cat({quoted("id2label"), " must be an object, not ", json_text(id2label)}));
    if (id2label.size() > kMaxLabels)
        return Status::invalid(cat({quoted("id2label"), " has ", id2label.size(), " labels (at most ",
                                    kMaxLabels, ")"}));
    std::vector<std::pair<int64_t, std::string>> named;
    // Keys are unique as strings, so only a key not written as its own number (" 1", "+1", "01")
    // can name a label twice: its number is looked up among the keys and the other such keys' numbers
    // (map lookups, n log n in all; comparing every pair took hours for a million labels).
    json respelled = json::object();
    for (const auto& item : id2label.items()) {
        const std::string& key = item.key();
        int64_t index = 0;
        if (!label_index(key, &index))
            return Status::invalid(cat({quoted("id2label"), " key \"", key, "\" is not an integer"}));
        const std::string number = std::to_string(index);
        if (number != key) {
            if (id2label.contains(number) || respelled.contains(number))
                return Status::invalid(cat({quoted("id2label"), " names label ", index, " twice"}));
            respelled[number] = nullptr;
        }
        named.push_back({index, label_text(item.value())});
    }
    t->num_labels = named.size();
    t->labels.clear();
    for (size_t i = 0; i < t->num_labels; ++i) t->labels.push_back("LABEL_" + std::to_string(i));
    for (const auto& [index, name] : named)
        if (index >= 0 && uint64_t(index) < t->num_labels) t->labels[size_t(index)] = name;
    return Status::ok();
}

// ACT2FN's names and the kernels computing their formulas (x is one float):
//  - "gelu" (nn.functional.gelu) and "gelu_python" (x * 0.5 * (1 + erf(x / sqrt 2))): the erf form;
//  - "gelu_new" and "gelu_accurate" (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))),
//    "gelu_pytorch_tanh" (GELU(approximate="tanh"), the same) and "gelu_fast"
//    (0.5 x (1 + tanh(x * 0.7978845608 * (1 + 0.044715 x^2)))): the tanh form. gelu_fast's
//    0.7978845608 is sqrt(2/pi) = 0.79788456080287 cut at 10 digits (2.9e-12 apart, 1/20000 of a
//    float ulp there) and x (1 + 0.044715 x^2) is x + 0.044715 x^3 factored: the same function;
//  - "relu"; "silu" and "swish" (nn.SiLU); "tanh" (nn.Tanh); "linear" (the identity);
//  - "quick_gelu" (x sigmoid(1.702 x)), "gelu_10" (ClippedGELUActivation(-10, 10) over the erf
//    form), "sigmoid", "relu6", "relu2" (relu(x)^2), "leaky_relu" (nn.LeakyReLU(), slope 0.01),
//    "mish" (nn.functional.mish) and "laplace" (LaplaceActivation's mu 0.707107, sigma 0.282095).
// "prelu" and "xielu" carry trained parameters of their own and are refused.
const std::pair<const char*, Activation> kHfActivations[] = {
    {"gelu", Activation::kGeluErf},          {"gelu_python", Activation::kGeluErf},
    {"gelu_new", Activation::kGeluTanh},     {"gelu_pytorch_tanh", Activation::kGeluTanh},
    {"gelu_fast", Activation::kGeluTanh},    {"gelu_accurate", Activation::kGeluTanh},
    {"relu", Activation::kRelu},             {"silu", Activation::kSilu},
    {"swish", Activation::kSilu},            {"tanh", Activation::kTanh},
    {"linear", Activation::kNone},           {"quick_gelu", Activation::kQuickGelu},
    {"gelu_10", Activation::kGeluClip10},    {"sigmoid", Activation::kSigmoid},
    {"relu6", Activation::kRelu6},           {"relu2", Activation::kRelu2},
    {"leaky_relu", Activation::kLeakyRelu},  {"mish", Activation::kMish},
    {"laplace", Activation::kLaplace}};

// A JSON number as Python's truth reads it where HF tests a flag (`if config.flag`): 0 / 0.0 false,
// any other number true.
bool python_truth(const json& number) { return number.get<double>() != 0.0; }

// An integer JSON value (is_number_integer) in [0, hi), however nlohmann stored it.
bool integer_below(const json& v, size_t hi) {
    return v.is_number_unsigned() ? v.get<uint64_t>() < hi : v.get<int64_t>() >= 0 && uint64_t(v.get<int64_t>()) < hi;
}

}  // namespace

Status HfConfig::size(std::initializer_list<const char*> names, size_t lo, size_t hi, size_t fallback,
                      size_t* out) const {
    const char* found = nullptr;
    for (const char* name : names) {
        auto it = j_.find(name);
        if (it == j_.end()) continue;
        if (!it->is_number_integer())
            return Status::invalid(cat({quoted(name), " must be an integer, not ", json_text(*it)}));
        const bool negative = it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0;
        const uint64_t v = negative ? 0 : it->get<uint64_t>();
        if (negative || v < lo || v > hi)
            return Status::invalid(cat({quoted(name), " = ", json_text(*it), " is outside [", lo, ", ",
                                        hi, "]"}));
        if (found && size_t(v) != *out)
            return Status::invalid(cat({quoted(found), " and ", quoted(name), " disagree (", *out,
                                        " vs ", v, ")"}));
        found = name;
        *out = size_t(v);
    }
    if (!found) *out = fallback;
    return Status::ok();
}

Status HfConfig::token_id(const char* name, size_t hi, int64_t fallback, int64_t* out) const {
    auto it = j_.find(name);
    if (it == j_.end()) {
        *out = fallback;
        return Status::ok();
    }
    if (it->is_null()) {
        *out = -1;
        return Status::ok();
    }
    if (!it->is_number_integer()) return Status::invalid(cat({quoted(name), " must be an integer or null, not ", json_text(*it)}));
    const int64_t v = it->get<int64_t>();
    if (v < 0 || uint64_t(v) >= hi)
        return Status::invalid(cat({quoted(name), " = ", v, " is outside the vocabulary [0, ",
                                    hi, ")"}));
    *out = v;
    return Status::ok();
}

Status HfConfig::generation_token_id(const char* name, size_t hi, int64_t fallback, int64_t* out,
                                     std::vector<std::pair<std::string, nlohmann::json>>* unused) const {
    auto it = j_.find(name);
    if (it != j_.end() && it->is_array()) {  // a list, as eos_token_id may be: its first id in the vocabulary
        std::vector<int64_t> all;
        return generation_token_ids(name, hi, fallback, out, &all, unused);
    }
    if (it == j_.end() || !it->is_number_integer()) return token_id(name, hi, fallback, out);  // absent, null or not an integer
    if (integer_below(*it, hi)) return token_id(name, hi, fallback, out);
    unused->push_back({name, *it});
    *out = -1;
    return Status::ok();
}

Status HfConfig::generation_token_ids(const char* name, size_t hi, int64_t fallback, int64_t* out,
                                      std::vector<int64_t>* all,
                                      std::vector<std::pair<std::string, nlohmann::json>>* unused) const {
    all->clear();
    auto it = j_.find(name);
    if (it == j_.end() || !it->is_array()) {
        SF_RETURN_IF_ERROR(generation_token_id(name, hi, fallback, out, unused));
        if (*out >= 0) all->push_back(*out);
        return Status::ok();
    }
    if (it->size() > 1024) return Status::invalid(cat({quoted(name), " lists ", it->size(), " ids (at most 1024)"}));
    // The ids outside the vocabulary are reported as one list under the key, in the config's
    // order ({"eos_token_id": [128256, 128257]}): a list stays a list, every one of its ids kept.
    nlohmann::json outside = nlohmann::json::array();
    for (const nlohmann::json& id : *it) {
        if (!id.is_number_integer()) return Status::invalid(cat({quoted(name), " must list integers, not ", json_text(id)}));
        if (integer_below(id, hi)) all->push_back(id.get<int64_t>());
        else outside.push_back(id);
    }
    if (!outside.empty()) unused->push_back({name, std::move(outside)});
    *out = all->empty() ? -1 : all->front();
    return Status::ok();
}

Status HfConfig::positive_number(const char* name, double hi, float fallback, float* out) const {
    auto it = j_.find(name);
    if (it == j_.end()) {
        *out = fallback;
        return Status::ok();
    }
    if (!it->is_number()) return Status::invalid(cat({quoted(name), " must be a number, not ", json_text(*it)}));
    const double v = it->get<double>();
    if (!std::isfinite(v) || !(v > 0) || v > hi)
        return Status::invalid(cat({quoted(name), " = ", json_text(*it), " must be a positive number <= ", number_text(hi)}));
    *out = float(v);
    return Status::ok();
}

Status HfConfig::string(const char* name, const std::string& fallback, std::string* out) const {
    auto it = j_.find(name);
    // null (None) is "" where that is the default (torch_dtype, problem_type); where a value is
    // needed it is an error: ACT2FN[None] refuses a null hidden_act, never the default's formula.
    if (it == j_.end() || (it->is_null() && fallback.empty())) {
        *out = fallback;
        return Status::ok();
    }
    if (!it->is_string()) return Status::invalid(cat({quoted(name), " must be a string, not ", json_text(*it)}));
    *out = it->get<std::string>();
    return Status::ok();
}

Status HfConfig::boolean(const char* name, bool fallback, bool* out) const {
    auto it = j_.find(name);
    if (it == j_.end()) {
        *out = fallback;
        return Status::ok();
    }
    // null: PretrainedConfig keeps None, and HF's code tests these flags for truth, so None is
    // false whatever the default: tie_weights()'s getattr(config, "tie_word_embeddings", True)
    // returns the None (the attribute exists), so nothing is tied; `if self.scale_attn_weights`
    // (GPT-2), Qwen2Config's `sliding_window if use_sliding_window else None`, and
    // nn.Linear(bias=config.attention_bias / mlp_bias) (`if bias`) all read None as false.
    if (it->is_null()) {
        *out = false;
        return Status::ok();
    }
    // A number: Python's truth, as HF's `if config.flag` reads it (0 / 0.0 false, any other
    // number true), so "tie_word_embeddings": 0 unties as it does in transformers. A string, list
    // or object is refused: Python would read "false" as true, which such a file never means.
    if (it->is_number()) {
        *out = python_truth(*it);
        return Status::ok();
    }
    if (!it->is_boolean()) return Status::invalid(cat({quoted(name), " must be true or false (or 0 / 1), not ", json_text(*it)}));
    *out = it->get<bool>();
    return Status::ok();
}

Status HfConfig::activation(std::initializer_list<const char*> names, const std::string& fallback, std::string* name,
                            Activation* out) const {
    const char* key = *names.begin();
    for (const char* n : names)
        if (j_.contains(n)) key = n;
    SF_RETURN_IF_ERROR(string(key, fallback, name));  // null: an error (see string())
    // Hugging Face's ACT2FN (activations.py), each name mapped to the kernel computing the same
    // formula; a name whose formula no kernel computes (prelu and xielu, with weights of their
    // own) is refused, never replaced.
    for (const auto& [hf_name, act] : kHfActivations)
        if (*name == hf_name) {
            *out = act;
            return Status::ok();
        }
    std::string supported;
    for (const auto& entry : kHfActivations) supported += std::string(supported.empty() ? "" : ", ") + entry.first;
    return Status::unsupported(cat({quoted(key), " = \"", *name, "\" is not supported (supported: ", supported, ")"}));
}

Status HfConfig::task_head(TextConfig* t) const {
    auto ar = j_.find("architectures");
    if (ar != j_.end() && ar->is_array() && !ar->empty() && ar->front().is_string())
        t->head_class = ar->front().get<std::string>();
    auto id2label = j_.find("id2label");
    if (id2label != j_.end() && !id2label->is_null()) {
        SF_RETURN_IF_ERROR(read_id2label(*id2label, t));
    } else {
        SF_RETURN_IF_ERROR(size({"num_labels"}, 0, kMaxLabels, 2, &t->num_labels));
        t->labels.clear();
        for (size_t i = 0; i < t->num_labels; ++i) t->labels.push_back("LABEL_" + std::to_string(i));
    }
    SF_RETURN_IF_ERROR(string("problem_type", "", &t->problem_type));
    for (const char* allowed : {"", "regression", "single_label_classification", "multi_label_classification"})
        if (t->problem_type == allowed) return Status::ok();
    return Status::invalid(cat({quoted("problem_type"), " = \"", t->problem_type,
                                "\" is not one of regression, single_label_classification, multi_label_classification"}));
}

Status HfConfig::require(const char* name, const nlohmann::json& expected, const std::string& what) const {
    auto it = j_.find(name);
    if (it == j_.end() || *it == expected) return Status::ok();
    // A flag whose supported value is false may be null: None, which HF's `if config.is_decoder`,
    // `if config.add_cross_attention`, `if self.scale_attn_by_inverse_layer_idx` read as false.
    if (it->is_null() && expected.is_boolean() && !expected.get<bool>()) return Status::ok();
    // A number where a flag is expected: Python's truth (0 is false, any other number true).
    if (it->is_number() && expected.is_boolean() && python_truth(*it) == expected.get<bool>()) return Status::ok();
    return Status::unsupported(cat({quoted(name), " = ", json_text(*it), ": ", what, " is not supported"}));
}

}  // namespace simdformer
