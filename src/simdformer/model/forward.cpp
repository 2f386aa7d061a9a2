// Model::forward: validates a request completely, then runs the configured module on the
// workspace without allocating.
#include <cmath>
#include <cstring>

#include "simdformer/model/model_impl.h"
#include "simdformer/detail/validate.h"

namespace simdformer {
namespace {

std::string str(size_t v) { return std::to_string(v); }

Status check_length(size_t n_seq, size_t max_len, const char* which) {
    if (n_seq == 0) return Status::invalid(std::string(which) + " sequence is empty");
    if (n_seq > max_len)
        return Status::invalid(std::string(which) + " length " + str(n_seq) + " exceeds the workspace's limit of " + str(max_len));
    return Status::ok();
}

}  // namespace

Status ModelImpl::check_call(const WorkspaceImpl& ws, size_t n_batch, bool need_weights,
                               const AttentionOptions& options) const {
    if (ws.d_model != config.d_model || ws.nhead != config.nhead) return Status::invalid("workspace was made for another model");
    if (n_batch == 0) return Status::invalid("n_batch must be at least 1");
    if (n_batch > ws.limits.max_batch)
        return Status::invalid("n_batch=" + str(n_batch) + " exceeds the workspace's max_batch=" + str(ws.limits.max_batch));
    if (need_weights && ws.attention.empty())
        return Status::invalid("attention weights requested, but the workspace was made with record_attention=false");
    if (options.score == ScoreKind::kAdditive && config.additive_dim == 0)
        return Status::invalid("score 'additive' needs a model with additive-score weights (additive_dim > 0)");
    return Status::ok();
}

Status ModelImpl::check_sequence(const SequenceInput& s, size_t n_batch, size_t max_len, const char* which,
                                   const std::optional<TokenEmbedding>& embedding) const {
    if (s.n_seq > config.max_len)
        return Status::invalid(std::string(which) + " length " + str(s.n_seq) + " exceeds the model's max_len=" +
                               str(config.max_len));
    SF_RETURN_IF_ERROR(check_length(s.n_seq, max_len, which));
    const size_t tokens = n_batch * s.n_seq;
    if (embedding) {
        if (!s.tokens) return Status::invalid(std::string(which) + ": this model takes token ids, none given");
        for (size_t i = 0; i < tokens; ++i)
            if (s.tokens[i] < 0 || size_t(s.tokens[i]) >= embedding->vocab_size())
                return Status::invalid(std::string(which) + " token " + std::to_string(s.tokens[i]) + " at index " +
                                       str(i) + " is outside the vocabulary [0, " + str(embedding->vocab_size()) + ")");
    } else {
        if (!s.embeddings)
            return Status::invalid(std::string(which) + ": this model takes vectors [n_seq, d_model], none given");
        SF_RETURN_IF_ERROR(check_finite(s.embeddings, tokens * config.d_model, which));
    }
    if (s.attn_mask) SF_RETURN_IF_ERROR(check_additive_mask(s.attn_mask, s.n_seq * s.n_seq, "attn_mask"));
    return Status::ok();
}

void ModelImpl::embed(const SequenceInput& s, size_t n_batch, const std::optional<TokenEmbedding>& embedding,
                        float* out) const {
    const size_t d = config.d_model;
    if (embedding) {
        for (size_t b = 0; b < n_batch; ++b)
            embedding->embed(s.n_seq, s.tokens + b * s.n_seq, 0, out + b * s.n_seq * d, d);
    } else {
        std::memcpy(out, s.embeddings, n_batch * s.n_seq * d * sizeof(float));
    }
}

void ModelImpl::run_encoder(size_t n_batch, const SequenceInput& src, const AttentionOptions& options,
                              bool need_weights, WorkspaceImpl& ws, float* x) const {
    const SequenceMasks masks{src.key_padding, src.n_seq, src.attn_mask, src.causal};
    run_encoder_layers(n_batch, src.n_seq, masks, options, need_weights, ws, x);
}

void ModelImpl::run_encoder_layers(size_t n_batch, size_t n, const SequenceMasks& masks, const AttentionOptions& options,
                                   bool need_weights, WorkspaceImpl& ws, float* x) const {
    const LayerScratch scratch = ws.scratch();
    for (size_t i = 0; i < encoder.size(); ++i) {
        float* w = ws.record(ws.encoder_maps, i, ws.encoder_slot_at(i), n_batch, n, n, need_weights);
        encoder[i].forward(n_batch, n, x, masks, options, scratch, w);
    }
    if (encoder_norm) encoder_norm->forward(n_batch * n, x, config.d_model, x, config.d_model);
}

void ModelImpl::run_decoder(size_t n_batch, const SequenceInput& tgt, const float* memory, size_t n_seq_memory,
                              const uint8_t* memory_padding, const AttentionOptions& options, bool need_weights,
                              WorkspaceImpl& ws, float* y) const {
    const size_t n = tgt.n_seq, d = config.d_model;
    SequenceMasks masks{tgt.key_padding, n, tgt.attn_mask, tgt.causal};
    const LayerScratch scratch = ws.scratch();
    for (size_t i = 0; i < decoder.size(); ++i) {
        decoder[i].project_memory(n_batch * n_seq_memory, memory, ws.cross_k[i].data(), ws.cross_v[i].data());
        CrossMemory cross{ws.cross_k[i].data(), ws.cross_v[i].data(), n_seq_memory, n_seq_memory * d, memory_padding,
                          n_seq_memory};
        float* sw = ws.record(ws.decoder_self_maps, i, ws.decoder_self_slot_at(i), n_batch, n, n, need_weights);
        float* cw = ws.record(ws.decoder_cross_maps, i, ws.decoder_cross_slot_at(i), n_batch, n, n_seq_memory, need_weights);
        decoder[i].forward(n_batch, n, y, masks, cross, options, scratch, sw, cw);
    }
    if (decoder_norm) decoder_norm->forward(n_batch * n, y, d, y, d);
}

Status ModelImpl::forward_mha(const ForwardRequest& r, WorkspaceImpl& ws) const {
    const size_t d = config.d_model, B = r.n_batch, nq = r.src.n_seq;
    const size_t nk = r.key ? r.n_seq_k : nq;
    SF_RETURN_IF_ERROR(check_sequence(r.src, B, ws.max_src, "query", std::nullopt));
    if (r.key || r.value) {
        if (!r.key || !r.value) return Status::invalid("give both key and value, or neither (self-attention)");
        SF_RETURN_IF_ERROR(check_length(nk, ws.max_tgt, "key"));
        SF_RETURN_IF_ERROR(check_finite(r.key, B * nk * d, "key"));
        SF_RETURN_IF_ERROR(check_finite(r.value, B * nk * d, "value"));
    } else if (nq > ws.max_tgt) {
        return Status::invalid("query length " + str(nq) + " exceeds the workspace's key limit of " + str(ws.max_tgt));
    }
    const float* xk = r.key ? r.key : r.src.embeddings;
    const float* xv = r.value ? r.value : r.src.embeddings;
    const uint8_t* padding = r.key ? r.key_padding_k : r.src.key_padding;
    if (r.src.attn_mask) SF_RETURN_IF_ERROR(check_additive_mask(r.src.attn_mask, nq * nk, "attn_mask"));

    const LayerScratch s = ws.scratch();
    mha->project_q(B * nq, r.src.embeddings, d, s.q, d);
    mha->project_kv(B * nk, xk, xv, d, s.k, s.v, d);
    AttendArgs a = contiguous_attend_args(B, nq, nk, d, s.q, s.k, s.v, s.context);
    a.key_padding = padding;
    a.key_padding_stride = nk;
    a.attn_mask = r.src.attn_mask;
    a.causal = r.src.causal;
    a.options = r.options;
    a.weights = ws.record(ws.encoder_maps, 0, ws.encoder_slot_at(0), B, nq, nk, r.need_weights);
    mha->attend(a, s.attention);
    mha->project_out(B * nq, s.context, d, ws.x.data(), d, nullptr, 0);
    ws.output = ws.x.data();
    ws.output_rows = B * nq;
    return Status::ok();
}

Status Model::forward(const ForwardRequest& r, Workspace& workspace) const {
    const ModelImpl& m = *impl_;
    WorkspaceImpl& ws = *workspace.impl_;
    const ModelConfig& c = m.config;
    SF_RETURN_IF_ERROR(m.check_call(ws, r.n_batch, r.need_weights, r.options));
    ws.clear_maps();
    ws.logits_out = nullptr;
    ws.logits_cols = 0;
    ws.pooler_out = nullptr;
    ws.generated_length = 0;

    if (m.text) return Status::invalid("this is a " + m.text->model_type + " text model: call forward_text");
    if (m.mha) return m.forward_mha(r, ws);

    const size_t B = r.n_batch, d = c.d_model;
    const float* memory = r.memory;
    size_t n_mem = r.n_seq_memory;
    const uint8_t* memory_padding = r.memory_key_padding;
    if (!m.encoder.empty()) {
        SF_RETURN_IF_ERROR(m.check_sequence(r.src, B, ws.max_src, "src", m.src_embedding));
        const bool with_decoder = !m.decoder.empty() && !r.encoder_only;
        if (with_decoder) SF_RETURN_IF_ERROR(m.check_sequence(r.tgt, B, ws.max_tgt, "tgt", m.tgt_embedding));
        m.embed(r.src, B, m.src_embedding, ws.x.data());
        m.run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
        ws.output = ws.x.data();
        ws.output_rows = B * r.src.n_seq;
        if (!with_decoder) return Status::ok();
        memory = ws.x.data();
        n_mem = r.src.n_seq;
        // Unless given separately, the memory is masked like the source (nn.Transformer usage).
        memory_padding = r.memory_key_padding ? r.memory_key_padding : r.src.key_padding;
    } else {
        SF_RETURN_IF_ERROR(m.check_sequence(r.tgt, B, ws.max_tgt, "tgt", m.tgt_embedding));
        if (!memory) return Status::invalid("a decoder needs the encoder memory [n_batch, n_seq_memory, d_model]");
        SF_RETURN_IF_ERROR(check_length(n_mem, ws.max_src, "memory"));
        SF_RETURN_IF_ERROR(check_finite(memory, B * n_mem * d, "memory"));
    }
    m.embed(r.tgt, B, m.tgt_embedding, ws.y.data());
    m.run_decoder(B, r.tgt, memory, n_mem, memory_padding, r.options, r.need_weights, ws, ws.y.data());
    ws.output = ws.y.data();
    ws.output_rows = B * r.tgt.n_seq;
    if (m.generator) {
        m.generator->forward(ws.output_rows, ws.y.data(), d, ws.logits.data(), m.generator->out_features());
        ws.logits_out = ws.logits.data();
        ws.logits_cols = m.generator->out_features();
    }
    return Status::ok();
}

}  // namespace simdformer
