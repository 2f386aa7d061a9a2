// The TorchStack runner's checks of a call (its forward pass: model/torch_stack.cpp). Split out
// so that wasm compiles them for size: they run once per call, before the forward pass, and
// hold most of its error messages.
#include "simdformer/detail/validate.h"
#include "simdformer/model/torch_stack.h"

namespace simdformer::detail {
namespace {

std::string str(size_t v) { return std::to_string(v); }

Status check_length(size_t n_seq, size_t max_len, const char* which) {
    if (n_seq == 0) return Status::invalid(cat({which, " sequence is empty"}));
    return check_workspace_limit(n_seq, max_len, which, " length ");
}

}  // namespace

Status TorchStack::check_call(const WorkspaceImpl& ws, size_t n_batch, bool need_weights,
                              const AttentionOptions& options) const {
    SF_RETURN_IF_ERROR(check_owner(ws));
    SF_RETURN_IF_ERROR(check_batch(ws, n_batch, need_weights));
    if (options.score == ScoreKind::kAdditive && shape_.additive_dim == 0)
        return Status::invalid("score 'additive' needs a model with additive-score weights (additive_dim > 0)");
    return Status::ok();
}

Status TorchStack::check_sequence(const SequenceInput& s, size_t n_batch, size_t max_len, const char* which,
                                  const std::optional<TokenEmbedding>& embedding) const {
    const ModelConfig& c = shape_;
    if (s.n_seq > c.max_len)
        return Status::invalid(cat({which, " length ", str(s.n_seq), " exceeds the model's max_len=",
                                    str(c.max_len)}));
    SF_RETURN_IF_ERROR(check_length(s.n_seq, max_len, which));
    const size_t tokens = n_batch * s.n_seq;
    if (embedding) {
        if (!s.tokens) return Status::invalid(cat({which, ": this model takes token ids, none given"}));
        SF_RETURN_IF_ERROR(check_ids(s.tokens, tokens, embedding->vocab_size(), which, " token", "the vocabulary "));
    } else {
        if (!s.embeddings)
            return Status::invalid(cat({which, ": this model takes vectors [n_seq, d_model], none given"}));
        SF_RETURN_IF_ERROR(check_finite(s.embeddings, tokens * c.d_model, which));
    }
    if (s.attn_mask) SF_RETURN_IF_ERROR(check_additive_mask(s.attn_mask, s.n_seq * s.n_seq, "attn_mask"));
    return Status::ok();
}

Status TorchStack::check_attention_inputs(const ForwardRequest& r, const TorchStackWorkspace& ws) const {
    const size_t d = shape_.d_model, B = r.n_batch, nq = r.src.n_seq;
    const size_t nk = r.key ? r.n_seq_k : nq;
    // The query's attn_mask is [nq, nk], not [nq, nq]: it is checked below, with its own shape.
    SequenceInput query = r.src;
    query.attn_mask = nullptr;
    SF_RETURN_IF_ERROR(check_sequence(query, B, ws.max_src, "query", std::nullopt));
    if (r.key || r.value) {
        if (!r.key || !r.value) return Status::invalid("give both key and value, or neither (self-attention)");
        SF_RETURN_IF_ERROR(check_length(nk, ws.max_tgt, "key"));
        SF_RETURN_IF_ERROR(check_finite(r.key, B * nk * d, "key"));
        SF_RETURN_IF_ERROR(check_finite(r.value, B * nk * d, "value"));
    } else if (nq > ws.max_tgt) {
        return Status::invalid(cat({"query length ", str(nq), " exceeds the workspace's key limit of ", str(ws.max_tgt)}));
    }
    if (r.src.attn_mask) SF_RETURN_IF_ERROR(check_additive_mask(r.src.attn_mask, nq * nk, "attn_mask"));
    return Status::ok();
}

Status TorchStack::check_decoder_inputs(const ForwardRequest& r, const TorchStackWorkspace& ws) const {
    SF_RETURN_IF_ERROR(check_sequence(r.tgt, r.n_batch, ws.max_tgt, "tgt", tgt_embedding_));
    if (!encoder_.empty()) return Status::ok();  // the memory is the encoder's output
    if (!r.memory) return Status::invalid("a decoder needs the encoder memory [n_batch, n_seq_memory, d_model]");
    SF_RETURN_IF_ERROR(check_length(r.n_seq_memory, ws.max_src, "memory"));
    return check_finite(r.memory, r.n_batch * r.n_seq_memory * shape_.d_model, "memory");
}

}  // namespace simdformer::detail
