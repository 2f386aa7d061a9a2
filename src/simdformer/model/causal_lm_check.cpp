// The checks of decode_begin's request (the decoding itself: model/causal_lm_decode.cpp).
// Split out so that wasm compiles them for size: they run once per generation and hold its error
// messages.
#include "simdformer/detail/validate.h"
#include "simdformer/model/causal_lm.h"

namespace simdformer::detail {
namespace {

// Every prompt ends with a real token: padding goes on the left for decoding.
Status check_prompt_mask(const DecodeRequest& r) {
    if (!r.attention_mask) return Status::ok();
    SF_RETURN_IF_ERROR(check_attention_mask(r.attention_mask, r.n_batch * r.n_seq));
    for (size_t b = 0; b < r.n_batch; ++b)
        if (!r.attention_mask[b * r.n_seq + r.n_seq - 1])
            return Status::invalid(cat({"attention_mask: prompt ", b,
                                        " ends with padding; pad prompts on the left for decoding (as Hugging Face "
                                        "does for decoder-only models)"}));
    return Status::ok();
}

}  // namespace

Status CausalLm::check_stop_tokens(const DecodeRequest& r) const {
    const size_t vocab = stack_.config.vocab_size;
    if (r.n_stop_tokens > kMaxStopTokens)
        return Status::invalid(cat({"n_stop_tokens=", r.n_stop_tokens, " exceeds ", kMaxStopTokens}));
    if (r.n_stop_tokens > 0 && !r.stop_tokens) return Status::invalid("n_stop_tokens > 0 but no stop_tokens given");
    for (size_t i = 0; i < r.n_stop_tokens; ++i)
        if (r.stop_tokens[i] < 0 || size_t(r.stop_tokens[i]) >= vocab)
            return Status::invalid(cat({"stop token ", r.stop_tokens[i], " is outside [0, ", vocab, ")"}));
    if (r.pad_token >= int64_t(vocab) || r.pad_token < -1)
        return Status::invalid(cat({"pad_token ", r.pad_token, " is outside [0, ", vocab, ")"}));
    return Status::ok();
}

Status CausalLm::check_decode(const DecodeRequest& r, const CausalLmWorkspace& ws) const {
    const TextConfig& t = stack_.config;
    SF_RETURN_IF_ERROR(check_owner(ws));
    if (!has_lm_head_)
        return Status::unsupported(cat({"this checkpoint has no LM head (lm_head.weight) to generate with: load a ",
                                        t.model_type, " ...ForCausalLM checkpoint"}));
    SF_RETURN_IF_ERROR(check_batch(ws, r.n_batch, false));
    if (r.n_seq == 0) return Status::invalid("decode_begin: the prompt is empty (n_seq=0)");
    if (r.n_seq > ws.max_len)
        return Status::invalid(cat({"decode_begin: n_seq=", r.n_seq, " exceeds the workspace's limit of ", ws.max_len}));
    if (r.max_new_tokens == 0) return Status::invalid("decode_begin: max_new_tokens must be at least 1");
    if (r.max_new_tokens > t.max_positions || r.n_seq + r.max_new_tokens > t.max_positions)
        return Status::invalid(cat({"decode_begin: n_seq=", r.n_seq, " + max_new_tokens=", r.max_new_tokens,
                                    " exceeds the model's ", t.max_positions, " positions"}));
    if (r.n_seq + r.max_new_tokens > ws.max_context)
        return Status::invalid(cat({"decode_begin: n_seq=", r.n_seq, " + max_new_tokens=", r.max_new_tokens,
                                    " exceeds the workspace's max_context=", ws.max_context}));
    if (!r.tokens) return Status::invalid("decode_begin: tokens are required");
    SF_RETURN_IF_ERROR(check_ids(r.tokens, r.n_batch * r.n_seq, t.vocab_size, "token id"));
    SF_RETURN_IF_ERROR(check_prompt_mask(r));
    SF_RETURN_IF_ERROR(check_sampler(r.sampler, t.vocab_size));
    return check_stop_tokens(r);
}

}  // namespace simdformer::detail
