#include "options.h"

#include <utility>

namespace simdformer::entry {
namespace {

constexpr std::pair<const char*, ScoreKind> kScoreNames[] = {
    {"scaled-dot", ScoreKind::kScaledDot}, {"dot", ScoreKind::kDot}, {"additive", ScoreKind::kAdditive}};
constexpr std::pair<const char*, NormalizeKind> kNormalizeNames[] = {
    {"softmax", NormalizeKind::kSoftmax}, {"relu", NormalizeKind::kRelu}};

template <class Kind, size_t N>
Status parse_name(const char* option, const TextArg& arg, const std::pair<const char*, Kind> (&names)[N], Kind* out) {
    std::string_view name;
    SF_RETURN_IF_ERROR(text(arg, option, 64, &name));
    std::string expected;
    for (const auto& [known, kind] : names) {
        if (name == known) {
            *out = kind;
            return Status::ok();
        }
        expected += (expected.empty() ? "" : ", ") + std::string(known);
    }
    return Status::invalid(cat({std::string("unknown "), option, " ", quoted(name), " (expected ", expected, ")"}));
}

}  // namespace

Status attention_options(const TextArg& score, const TextArg& normalize, AttentionOptions* out) {
    SF_RETURN_IF_ERROR(parse_name("score", score, kScoreNames, &out->score));
    return parse_name("normalize", normalize, kNormalizeNames, &out->normalize);
}

}  // namespace simdformer::entry
