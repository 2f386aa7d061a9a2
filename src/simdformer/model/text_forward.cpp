// Model::forward_text: a Hugging Face text model on token ids, with HF's semantics.
// Encoders (bert, roberta, distilbert):
//   x = LayerNorm(word[id] + token_type[type] + position[pos])
//   each layer: x = LN1(x + SelfAttention(x, key bias)); x = LN2(x + FFN(x))   (post-norm)
//   pooler = tanh(x[token 0] W_p + b_p);  MLM logits = LN(act(x W_t + b_t)) Eᵀ + bias
// gpt2 (causal, pre-norm):
//   x = wte[id] + wpe[i] (i = 0 .. n-1, also for padded rows, as HF's forward)
//   each block: x = x + SelfAttention(ln_1(x), causal, key bias); x = x + MLP(ln_2(x))
//   last hidden state = ln_f(x);  LM logits = ln_f(x) wteᵀ
// Padding keys get float32's lowest value added to their scaled scores (not -inf: a query with
// no real key gets uniform weights, as in HF). Validates the whole request, then allocates nothing.
#include <cstring>
#include <limits>

#include "simdformer/model/model_impl.h"

namespace simdformer {
namespace {

std::string str(size_t v) { return std::to_string(v); }

// Every id of ids [n] in [0, limit): "<what> 7 at index 3 is outside [0, 5)".
Status check_ids(const int32_t* ids, size_t n, size_t limit, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || size_t(ids[i]) >= limit)
            return Status::invalid(std::string(what) + " " + std::to_string(ids[i]) + " at index " + str(i) +
                                   " is outside [0, " + str(limit) + ")");
    return Status::ok();
}

}  // namespace

void detail::fill_causal_mask(size_t n, float* mask) {
    const float lowest = std::numeric_limits<float>::lowest();
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) mask[i * n + j] = j > i ? lowest : 0.0f;
}

AttentionOptions ModelImpl::text_attention() const {
    AttentionOptions o;
    // GPT-2's scale_attn_weights: false drops the 1/sqrt(d_head).
    if (text && !text->scale_attention) o.score = ScoreKind::kDot;
    return o;
}

Status ModelImpl::check_text(const TextRequest& r, const WorkspaceImpl& ws) const {
    const TextConfig& t = *text;
    SF_RETURN_IF_ERROR(check_call(ws, r.n_batch, r.need_weights, AttentionOptions{}));
    if (r.n_seq == 0) return Status::invalid("n_seq must be at least 1");
    if (r.n_seq > t.max_positions)
        return Status::invalid("n_seq=" + str(r.n_seq) + " exceeds the model's " + str(t.max_positions) + " positions");
    if (r.n_seq > ws.max_src)
        return Status::invalid("n_seq=" + str(r.n_seq) + " exceeds the workspace's limit of " + str(ws.max_src));
    const size_t n = r.n_batch * r.n_seq;
    if (!r.tokens) return Status::invalid("tokens are required");
    SF_RETURN_IF_ERROR(check_ids(r.tokens, n, t.vocab_size, "token id"));
    if (r.token_types) {
        // DistilBERT has no token types: only zeros make sense there (HF takes none at all).
        SF_RETURN_IF_ERROR(check_ids(r.token_types, n, std::max<size_t>(t.type_vocab_size, 1), "token type"));
    }
    if (r.attention_mask) {
        for (size_t i = 0; i < n; ++i)
            if (r.attention_mask[i] > 1)
                return Status::invalid("attention_mask holds " + std::to_string(int(r.attention_mask[i])) + " at index " +
                                       str(i) + " (allowed: 1 = token, 0 = padding)");
    }
    if (r.need_pooler && !pooler) return Status::invalid("this checkpoint has no pooler (pooler.dense)");
    if (r.n_logits_rows > 0) {
        if (!mlm && !has_lm_head) return Status::invalid("this checkpoint has no masked-LM head, so it has no logits");
        if (!r.logits_rows) return Status::invalid("n_logits_rows=" + str(r.n_logits_rows) + " but no logits_rows given");
        if (r.n_logits_rows > ws.limits.max_logits_rows)
            return Status::invalid("n_logits_rows=" + str(r.n_logits_rows) + " exceeds the workspace's max_logits_rows=" +
                                   str(ws.limits.max_logits_rows));
        SF_RETURN_IF_ERROR(check_ids(r.logits_rows, r.n_logits_rows, n, "logits row"));
    }
    return Status::ok();
}

// Position ids, the padding bias of every key and the embeddings of every token.
void ModelImpl::embed_text(const TextRequest& r, WorkspaceImpl& ws) const {
    const TextConfig& t = *text;
    const size_t n = r.n_seq, d = config.d_model;
    for (size_t b = 0; b < r.n_batch; ++b) {
        const int32_t* tokens = r.tokens + b * n;
        int32_t* pos = ws.position_ids.data() + b * n;
        if (t.position_ids == PositionIds::kArange) {
            for (size_t i = 0; i < n; ++i) pos[i] = int32_t(i);
        } else {
            // RoBERTa: pad + (non-pad tokens so far) for tokens, pad for pads; decided by the
            // token ids, as HF's create_position_ids_from_input_ids does.
            const int32_t pad = int32_t(t.pad_token_id);
            int32_t count = 0;
            for (size_t i = 0; i < n; ++i) pos[i] = tokens[i] == pad ? pad : pad + ++count;
        }
        const int32_t* types = r.token_types ? r.token_types + b * n : nullptr;
        text_embeddings->embed(n, tokens, types, pos, ws.x.data() + b * n * d, d);
    }
    if (r.attention_mask) {
        const float lowest = std::numeric_limits<float>::lowest();  // torch.finfo(torch.float32).min
        for (size_t i = 0; i < r.n_batch * n; ++i) ws.key_bias.data()[i] = r.attention_mask[i] ? 0.0f : lowest;
    }
}

// Pooler and MLM head on the final hidden states.
void ModelImpl::text_heads(const TextRequest& r, WorkspaceImpl& ws) const {
    const size_t n = r.n_seq, d = config.d_model;
    const float* x = ws.x.data();  // [n_batch * n, d]
    if (r.need_pooler) {
        // Each item's first token: rows n apart.
        pooler->forward(r.n_batch, x, n * d, ws.pooled.data(), d, Activation::kTanh);
        ws.pooler_out = ws.pooled.data();
    }
    if (r.n_logits_rows > 0) {
        for (size_t i = 0; i < r.n_logits_rows; ++i)
            std::memcpy(ws.mlm_in.data() + i * d, x + size_t(r.logits_rows[i]) * d, d * sizeof(float));
        if (mlm) {
            mlm->forward(r.n_logits_rows, ws.mlm_in.data(), d, text_embeddings->word_table(), ws.mlm_hidden.data(),
                         ws.logits.data());
        } else {  // a causal LM head: x Eᵀ, the word table as a d -> vocab map (no bias)
            lm().forward(r.n_logits_rows, ws.mlm_in.data(), d, ws.logits.data(), text->vocab_size);
        }
        ws.logits_out = ws.logits.data();
        ws.logits_cols = text->vocab_size;
    }
}

Status Model::forward_text(const TextRequest& r, Workspace& workspace) const {
    const ModelImpl& m = *impl_;
    WorkspaceImpl& ws = *workspace.impl_;
    if (!m.text) return Status::invalid("forward_text needs a Hugging Face text model (bert, roberta, distilbert, gpt2)");
    SF_RETURN_IF_ERROR(m.check_text(r, ws));
    ws.clear_maps();
    ws.logits_out = nullptr;
    ws.logits_cols = 0;
    ws.pooler_out = nullptr;
    ws.generated_length = 0;

    m.embed_text(r, ws);
    SequenceMasks masks;
    masks.key_bias = r.attention_mask ? ws.key_bias.data() : nullptr;
    masks.key_bias_stride = r.n_seq;
    if (m.causal_text()) {
        fill_causal_mask(r.n_seq, ws.causal_mask.data());
        masks.attn_mask = ws.causal_mask.data();  // [n_seq, n_seq]
    }
    // run_encoder_layers ends with encoder_norm: GPT-2's ln_f.
    m.run_encoder_layers(r.n_batch, r.n_seq, masks, m.text_attention(), r.need_weights, ws, ws.x.data());
    ws.output = ws.x.data();
    ws.output_rows = r.n_batch * r.n_seq;
    m.text_heads(r, ws);
    return Status::ok();
}

}  // namespace simdformer
