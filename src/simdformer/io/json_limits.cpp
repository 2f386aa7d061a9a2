#include "simdformer/io/json_limits.h"

#include <string>

namespace simdformer {

Status check_json_limits(std::string_view text, const char* what) {
    if (text.size() > kMaxJsonBytes)
        return Status::invalid(cat({what, ": ", text.size(), " bytes of JSON exceed the ",
                                    kMaxJsonBytes, "-byte limit"}));
    // One pass: brackets count outside strings only (a string may hold '[' or an escaped quote).
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return Status::invalid(cat({what, ": JSON nested deeper than ", kMaxJsonDepth,
                                            " levels"}));
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return Status::ok();
}

void release_json(nlohmann::json& j) noexcept {
    if (j.is_array()) {
        auto& items = j.get_ref<nlohmann::json::array_t&>();
        for (nlohmann::json& item : items) release_json(item);
        items.clear();
    } else if (j.is_object()) {
        auto& members = j.get_ref<nlohmann::json::object_t&>();
        for (auto& member : members) release_json(member.second);
        members.clear();
    }
}

namespace {

// nlohmann's DOM builder (the one json::parse uses), which can also note the first top-level key
// given twice, or a field given twice in a tensor entry: the safetensors header's check, done in
// the same pass so that only one SAX parser is instantiated in the whole library. A duplicate does
// not stop the pass (the text must still be valid JSON for the caller to say which error it is);
// the builder keeps the last value.
class DomBuilder {
public:
    using json = nlohmann::json;
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    DomBuilder(json& root, std::string* duplicate) : dom_(root, /*allow_exceptions_=*/false), root_(root),
                                                     duplicate_(duplicate) {}
    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(number_float_t v, const string_t& s) { return dom_.number_float(v, s); }
    bool string(string_t& v) { return dom_.string(v); }
    bool binary(binary_t& v) { return dom_.binary(v); }
    bool start_object(std::size_t n) { return ++depth_, dom_.start_object(n); }
    bool key(string_t& k) {
        if (duplicate_ && depth_ == 1) {
            if (duplicate_->empty() && root_.find(k) != root_.end()) *duplicate_ = k;
            top_key_ = k;
        } else if (duplicate_ && depth_ == 2 && duplicate_->empty() && top_key_ != "__metadata__") {
            // A field of a tensor entry given twice ({"dtype": "F16", "dtype": "F32"}): safetensors'
            // own reader refuses it, a DOM keeps one of the two silently.
            const auto entry = root_.find(top_key_);
            if (entry != root_.end() && entry->contains(k)) *duplicate_ = top_key_;
        }
        return dom_.key(k);
    }
    bool end_object() { return --depth_, dom_.end_object(); }
    bool start_array(std::size_t n) { return ++depth_, dom_.start_array(n); }
    bool end_array() { return --depth_, dom_.end_array(); }
    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
        return dom_.parse_error(position, token, e);
    }

private:
    nlohmann::detail::json_sax_dom_parser<json> dom_;
    json& root_;
    std::string* duplicate_;
    std::string top_key_;  // the top-level key whose value is being built
    size_t depth_ = 0;
};

}  // namespace

void parse_json(std::string_view text, ParsedJson* out, std::string* duplicate) {
    release_json(out->value);
    out->value = nlohmann::json();
    // Writing into *out: json::parse keeps its result in a local that an exception would destroy
    // with nlohmann's allocating destructor.
    DomBuilder builder(out->value, duplicate);
    if (!sax_parse_json(text, &builder)) {
        release_json(out->value);
        out->value = nlohmann::json(nlohmann::json::value_t::discarded);
    }
}

}  // namespace simdformer
