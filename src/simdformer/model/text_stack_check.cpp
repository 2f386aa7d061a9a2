// The text stack's checks of a request (its forward pass: model/text_stack.cpp). Split out so
// that wasm compiles them for size: they run once per call, before the forward pass, and hold
// most of its error messages.
#include <algorithm>

#include "simdformer/detail/validate.h"
#include "simdformer/model/text_stack.h"

namespace simdformer::detail {
namespace {

std::string str(size_t v) { return std::to_string(v); }

}  // namespace

Status check_attention_mask(const uint8_t* mask, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (mask[i] > 1)
            return Status::invalid(cat({"attention_mask holds ", int(mask[i]), " at index ", str(i),
                                        " (allowed: 1 = token, 0 = padding)"}));
    return Status::ok();
}

Status TextStack::check_request(const Runner& owner, const TextRequest& r, const TextWorkspace& ws) const {
    SF_RETURN_IF_ERROR(owner.check_owner(ws));
    SF_RETURN_IF_ERROR(check_batch(ws, r.n_batch, r.need_weights));
    const TextConfig& t = config;
    if (r.n_seq == 0) return Status::invalid("n_seq must be at least 1");
    if (r.n_seq > t.max_positions)
        return Status::invalid(cat({"n_seq=", str(r.n_seq), " exceeds the model's ", str(t.max_positions), " positions"}));
    SF_RETURN_IF_ERROR(check_workspace_limit(r.n_seq, ws.max_len, "n_seq", "="));
    const size_t n = r.n_batch * r.n_seq;
    if (!r.tokens) return Status::invalid("tokens are required");
    SF_RETURN_IF_ERROR(check_ids(r.tokens, n, t.vocab_size, "token id"));
    // DistilBERT has no token types: only zeros make sense there (HF takes none at all).
    if (r.token_types)
        SF_RETURN_IF_ERROR(check_ids(r.token_types, n, std::max<size_t>(t.type_vocab_size, 1), "token type"));
    if (r.attention_mask) SF_RETURN_IF_ERROR(check_attention_mask(r.attention_mask, n));
    return Status::ok();
}

Status TextStack::check_logits_rows(const TextRequest& r, const TextWorkspace& ws, bool has_head) const {
    if (r.n_logits_rows == 0) return Status::ok();
    if (!has_head) return Status::invalid("this checkpoint has no masked-LM head, so it has no logits");
    if (!r.logits_rows) return Status::invalid(cat({"n_logits_rows=", str(r.n_logits_rows), " but no logits_rows given"}));
    if (r.n_logits_rows > ws.limits.max_logits_rows)
        return Status::invalid(cat({"n_logits_rows=", str(r.n_logits_rows), " exceeds the workspace's max_logits_rows=",
                                    str(ws.limits.max_logits_rows)}));
    return check_ids(r.logits_rows, r.n_logits_rows, r.n_batch * r.n_seq, "logits row");
}

Status TextStack::check_probe(const TextRequest& r) const {
    if (r.probe_out && r.probe_layer >= layers.size())
        return Status::invalid(cat({"probe_layer=", str(r.probe_layer), " but the model has ", str(layers.size()),
                                    " layers"}));
    return Status::ok();
}

}  // namespace simdformer::detail
