#include "simdformer/model/text_encoder.h"


namespace simdformer::detail {

Status TextEncoder::forward(const ForwardRequest&, WorkspaceImpl&) const {
    return Status::invalid(cat({"this is a ", stack_.config.model_type, " text model: call forward_text"}));
}

void TextEncoder::fill_positions(const TextRequest& r, TextWorkspace& ws) const {
    const size_t n = r.n_seq;
    for (size_t b = 0; b < r.n_batch; ++b) {
        const int32_t* tokens = r.tokens + b * n;
        int32_t* pos = ws.position_ids.data() + b * n;
        if (stack_.config.position_ids == PositionIds::kArange) {
            for (size_t i = 0; i < n; ++i) pos[i] = int32_t(i);
            continue;
        }
        // RoBERTa: pad + (non-pad tokens so far) for tokens, pad for pads; decided by the token
        // ids, as HF's create_position_ids_from_input_ids does.
        const int32_t pad = int32_t(stack_.config.pad_token_id);
        int32_t count = 0;
        for (size_t i = 0; i < n; ++i) pos[i] = tokens[i] == pad ? pad : pad + ++count;
    }
}

// The classifier on each item's first token (rows n apart), or on the pooler's output.
void TextEncoder::run_classifier(const TextRequest& r, TextWorkspace& ws) const {
    const size_t n = r.n_seq, d = shape_.d_model;
    const bool pooled = classifier_->reads_pooler();
    classifier_->forward(r.n_batch, pooled ? ws.pooled.data() : ws.x.data(), pooled ? d : n * d,
                         ws.classifier_hidden.data(), ws.classifier_logits.data());
    ws.classifier_out = ws.classifier_logits.data();
}

// The token head on every row of the batch (padding rows too: the caller reads the real ones).
void TextEncoder::run_token_head(const TextRequest& r, TextWorkspace& ws) const {
    const size_t d = shape_.d_model, cols = token_head_->out_features();
    token_head_->forward(r.n_batch * r.n_seq, ws.x.data(), d, ws.token_logits.data(), cols);
    ws.token_logits_out = ws.token_logits.data();
}

// Pooler, classifier, token head and MLM head on the final hidden states.
void TextEncoder::run_heads(const TextRequest& r, TextWorkspace& ws) const {
    const size_t n = r.n_seq, d = shape_.d_model;
    // BERT's classifier reads the pooler: it runs whenever the classifier does.
    if (r.need_pooler || (r.need_classifier && classifier_->reads_pooler())) {
        // Each item's first token: rows n apart.
        pooler_->forward(r.n_batch, ws.x.data(), n * d, ws.pooled.data(), d, Activation::kTanh);
        if (r.need_pooler) ws.pooler_out = ws.pooled.data();
    }
    if (r.need_classifier) run_classifier(r, ws);
    if (r.need_token_logits) run_token_head(r, ws);
    if (r.n_logits_rows > 0) {
        stack_.gather_rows(r, ws);
        mlm_->forward(r.n_logits_rows, ws.head_in.data(), d, stack_.embeddings.word_table(), ws.head_hidden.data(),
                      ws.logits.data());
        ws.logits_out = ws.logits.data();
        ws.logits_cols = stack_.config.vocab_size;
    }
}

Status TextEncoder::forward_text(const TextRequest& r, WorkspaceImpl& any) const {
    SF_RETURN_IF_ERROR(check_owner(any));
    auto& ws = static_cast<TextWorkspace&>(any);
    SF_RETURN_IF_ERROR(stack_.check_request(*this, r, ws));
    SF_RETURN_IF_ERROR(check_heads(r));
    SF_RETURN_IF_ERROR(stack_.check_logits_rows(r, ws, mlm_.has_value()));
    SF_RETURN_IF_ERROR(stack_.check_probe(r));
    ws.start_call();
    fill_positions(r, ws);
    stack_.embed(r, ws);
    SequenceMasks masks;
    masks.key_bias = r.attention_mask ? ws.key_bias.data() : nullptr;
    masks.key_bias_stride = r.n_seq;
    const LayerProbe probe{r.probe_layer, r.probe_out, &shape_};
    stack_.run(r.n_batch, r.n_seq, masks, r.need_weights, ws, r.probe_out ? &probe : nullptr);
    ws.output = ws.x.data();
    ws.output_rows = r.n_batch * r.n_seq;
    run_heads(r, ws);
    return Status::ok();
}

}  // namespace simdformer::detail
