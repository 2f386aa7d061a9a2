// The text encoder's check of the heads a request asks for (its forward pass:
// model/text_encoder.cpp), compiled for size in wasm like the other checks.
#include "simdformer/model/text_encoder.h"

namespace simdformer::detail {

Status TextEncoder::check_heads(const TextRequest& r) const {
    if (r.need_pooler && !pooler_) return Status::invalid("this checkpoint has no pooler (pooler.dense)");
    if (r.need_classifier && !classifier_)
        return Status::unsupported(cat({"this checkpoint has no sequence-classification head (its config.json ",
                                        std::string(stack_.config.head_class.empty()
                                                        ? "names no architectures"
                                                        : "says " + stack_.config.head_class), ")"}));
    if (r.need_token_logits && !token_head_)
        return Status::unsupported(cat({"this checkpoint has no token-classification or question-answering head (its "
                                        "config.json ", std::string(stack_.config.head_class.empty()
                                                                         ? "names no architectures"
                                                                         : "says " + stack_.config.head_class), ")"}));
    return Status::ok();
}

}  // namespace simdformer::detail
