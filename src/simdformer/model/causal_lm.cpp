#include "simdformer/model/causal_lm.h"

#include <limits>

namespace simdformer::detail {

void fill_causal_mask(size_t n_q, size_t n_k, size_t window, float* mask) {
    const float lowest = std::numeric_limits<float>::lowest();
    for (size_t i = 0; i < n_q; ++i) {
        const size_t q = n_k - n_q + i;
        for (size_t j = 0; j < n_k; ++j) {
            const bool hidden = j > q || (window > 0 && j + window <= q);
            mask[i * n_k + j] = hidden ? lowest : 0.0f;
        }
    }
}

void CausalLm::window_masks(size_t n_q, size_t n_k, CausalLmWorkspace& ws, SequenceMasks* masks) const {
    const size_t window = stack_.config.sliding_window;
    if (window == 0) return;
    fill_causal_mask(n_q, n_k, window, ws.window_mask.data());
    masks->window_attn_mask = ws.window_mask.data();
}

Status CausalLm::forward(const ForwardRequest&, WorkspaceImpl&) const {
    return Status::invalid("this is a " + stack_.config.model_type + " text model: call forward_text");
}

// Position ids arange(n) even for padded rows, as HF's forward (generation counts real tokens:
// model/causal_lm_decode.cpp).
Status CausalLm::forward_text(const TextRequest& r, WorkspaceImpl& any) const {
    SF_RETURN_IF_ERROR(check_owner(any));
    auto& ws = static_cast<CausalLmWorkspace&>(any);
    SF_RETURN_IF_ERROR(stack_.check_request(*this, r, ws));
    if (r.need_pooler) return Status::invalid("this checkpoint has no pooler (pooler.dense)");
    if (r.need_classifier) return Status::unsupported("this causal language model has no sequence-classification head");
    if (r.need_token_logits)
        return Status::unsupported("this causal language model has no token-classification or question-answering head");
    if (r.n_logits_rows > 0 && !has_lm_head_)
        return Status::invalid("this checkpoint has no LM head (lm_head.weight), so it has no logits: it is a bare " +
                               stack_.config.model_type + " model");
    SF_RETURN_IF_ERROR(stack_.check_logits_rows(r, ws, true));
    SF_RETURN_IF_ERROR(stack_.check_probe(r));
    ws.start_call();
    for (size_t b = 0; b < r.n_batch; ++b)
        for (size_t i = 0; i < r.n_seq; ++i) ws.position_ids[b * r.n_seq + i] = int32_t(i);
    stack_.embed(r, ws);
    SequenceMasks masks;
    masks.key_bias = r.attention_mask ? ws.key_bias.data() : nullptr;
    masks.key_bias_stride = r.n_seq;
    masks.combine_by_fill = stack_.config.masks_by_fill;
    fill_causal_mask(r.n_seq, r.n_seq, 0, ws.causal_mask.data());
    masks.attn_mask = ws.causal_mask.data();  // [n_seq, n_seq]
    window_masks(r.n_seq, r.n_seq, ws, &masks);
    const int32_t* pos = ws.position_ids.data();
    stack_.rotary_rows(r.n_batch, r.n_seq, pos, r.n_seq, longest_sequence(r.n_batch, r.n_seq, pos, r.n_seq), ws, &masks);
    const LayerProbe probe{r.probe_layer, r.probe_out, &shape_};
    stack_.run(r.n_batch, r.n_seq, masks, r.need_weights, ws, r.probe_out ? &probe : nullptr);  // ends with ln_f
    ws.output = ws.x.data();
    ws.output_rows = r.n_batch * r.n_seq;
    if (r.n_logits_rows > 0) {  // x Eᵀ: the word table as a d -> vocab map (no bias)
        stack_.gather_rows(r, ws);
        lm().forward(r.n_logits_rows, ws.head_in.data(), shape_.d_model, ws.logits.data(), stack_.config.vocab_size);
        ws.logits_out = ws.logits.data();
        ws.logits_cols = stack_.config.vocab_size;
    }
    return Status::ok();
}

}  // namespace simdformer::detail
