#include "simdformer/arch/hf_config.h"

#include <cmath>

namespace simdformer {
namespace {

using nlohmann::json;

std::string quoted(const char* name) { return std::string("config \"") + name + "\""; }

}  // namespace

Status HfConfig::size(std::initializer_list<const char*> names, size_t lo, size_t hi, size_t fallback,
                      size_t* out) const {
    const char* found = nullptr;
    for (const char* name : names) {
        auto it = j_.find(name);
        if (it == j_.end()) continue;
        if (!it->is_number_integer())
            return Status::invalid(quoted(name) + " must be an integer, not " + it->dump());
        const bool negative = it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0;
        const uint64_t v = negative ? 0 : it->get<uint64_t>();
        if (negative || v < lo || v > hi)
            return Status::invalid(quoted(name) + " = " + it->dump() + " is outside [" + std::to_string(lo) + ", " +
                                   std::to_string(hi) + "]");
        if (found && size_t(v) != *out)
            return Status::invalid(quoted(found) + " and " + quoted(name) + " disagree (" + std::to_string(*out) +
                                   " vs " + std::to_string(v) + ")");
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
    if (!it->is_number_integer()) return Status::invalid(quoted(name) + " must be an integer or null, not " + it->dump());
    const int64_t v = it->get<int64_t>();
    if (v < 0 || uint64_t(v) >= hi)
        return Status::invalid(quoted(name) + " = " + std::to_string(v) + " is outside the vocabulary [0, " +
                               std::to_string(hi) + ")");
    *out = v;
    return Status::ok();
}

Status HfConfig::positive_number(const char* name, double hi, float fallback, float* out) const {
    auto it = j_.find(name);
    if (it == j_.end()) {
        *out = fallback;
        return Status::ok();
    }
    if (!it->is_number()) return Status::invalid(quoted(name) + " must be a number, not " + it->dump());
    const double v = it->get<double>();
    if (!std::isfinite(v) || !(v > 0) || v > hi)
        return Status::invalid(quoted(name) + " = " + it->dump() + " must be a positive number <= " + std::to_string(hi));
    *out = float(v);
    return Status::ok();
}

Status HfConfig::string(const char* name, const std::string& fallback, std::string* out) const {
    auto it = j_.find(name);
    if (it == j_.end() || it->is_null()) {
        *out = fallback;
        return Status::ok();
    }
    if (!it->is_string()) return Status::invalid(quoted(name) + " must be a string, not " + it->dump());
    *out = it->get<std::string>();
    return Status::ok();
}

Status HfConfig::boolean(const char* name, bool fallback, bool* out) const {
    auto it = j_.find(name);
    if (it == j_.end()) {
        *out = fallback;
        return Status::ok();
    }
    if (!it->is_boolean()) return Status::invalid(quoted(name) + " must be true or false, not " + it->dump());
    *out = it->get<bool>();
    return Status::ok();
}

Status HfConfig::activation(std::initializer_list<const char*> names, const std::string& fallback, std::string* name,
                            Activation* out) const {
    const char* key = *names.begin();
    for (const char* n : names)
        if (j_.contains(n)) key = n;
    SF_RETURN_IF_ERROR(string(key, fallback, name));
    // Hugging Face's activations.py: "gelu" is the exact erf form; "gelu_new" and
    // "gelu_pytorch_tanh" are the tanh approximation.
    if (*name == "gelu") *out = Activation::kGeluErf;
    else if (*name == "gelu_new" || *name == "gelu_pytorch_tanh") *out = Activation::kGeluTanh;
    else if (*name == "relu") *out = Activation::kRelu;
    else
        return Status::unsupported(quoted(key) + " = \"" + *name +
                                   "\" is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)");
    return Status::ok();
}

Status HfConfig::require(const char* name, const nlohmann::json& expected, const std::string& what) const {
    auto it = j_.find(name);
    if (it == j_.end() || *it == expected) return Status::ok();
    return Status::unsupported(quoted(name) + " = " + it->dump() + ": " + what + " is not supported");
}

}  // namespace simdformer
