// Incremental decoding of an encoder-decoder transformer. generate_begin encodes the source once
// and projects each decoder layer's cross-attention keys/values once; every decode_step then
// consumes one target token per item, appends its self-attention key and value to a per-layer
// cache, and reads the cache and the cross keys/values where they lie (the one-query attention
// path: nothing is repacked per step), so a step costs O(n) attention work instead of O(n^2).
// generate() runs the steps itself; callers that want to stop early or stream call the steps.
#include <cstring>

#include "simdformer/model/model_impl.h"

namespace simdformer {
namespace {

// Rows were written with room for `capacity` rows per item; pack them to `used` rows per item.
// Destinations never pass their sources, so moving front to back in place is safe.
void compact(float* p, size_t items, size_t capacity, size_t used, size_t row) {
    for (size_t i = 0; i < items; ++i)
        std::memmove(p + i * used * row, p + i * capacity * row, used * row * sizeof(float));
}

// What one generate call decides before decoding starts.
struct Decoding {
    size_t max_length = 0, vocab = 0;
    int64_t bos = -1, eos = -1;
};

// Checks the request and resolves its defaults (bos/eos from the config, max_length from the
// workspace).
Result<Decoding> plan_decoding(const ModelImpl& m, const GenerateRequest& r, const WorkspaceImpl& ws) {
    const ModelConfig& c = m.config;
    if (c.kind != ModelKind::kTransformer || !m.src_embedding || !m.tgt_embedding || !m.generator)
        return Status::invalid("generate needs a transformer with token embeddings and a generator");
    SF_RETURN_IF_ERROR(m.check_call(ws, r.n_batch, r.need_weights, r.options));
    Decoding d;
    d.bos = r.bos >= 0 ? r.bos : c.bos_token;
    d.eos = r.eos >= 0 ? r.eos : c.eos_token;
    d.vocab = m.generator->out_features();
    if (d.bos < 0 || size_t(d.bos) >= d.vocab)
        return Status::invalid("bos token " + std::to_string(d.bos) + " is not in the target vocabulary [0, " +
                               std::to_string(d.vocab) + ")");
    if (d.eos >= int64_t(d.vocab))
        return Status::invalid("eos token " + std::to_string(d.eos) + " is not in the target vocabulary");
    d.max_length = r.max_length ? r.max_length : ws.max_tgt;
    if (d.max_length < 2 || d.max_length > ws.max_tgt || d.max_length > c.max_len)
        return Status::invalid("max_length=" + std::to_string(d.max_length) + " must be in [2, " +
                               std::to_string(std::min(ws.max_tgt, c.max_len)) + "]");
    SF_RETURN_IF_ERROR(m.check_sequence(r.src, r.n_batch, ws.max_src, "src", m.src_embedding));
    SF_RETURN_IF_ERROR(check_sampler(r.sampler, d.vocab));
    return d;
}

}  // namespace

// 1. Encodes the source once and projects every decoder layer's cross-attention keys/values.
void ModelImpl::encode_memory(const GenerateRequest& r, WorkspaceImpl& ws) const {
    const size_t B = r.n_batch, S = r.src.n_seq, d = config.d_model;
    embed(r.src, B, src_embedding, ws.x.data());
    run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
    // The padding outlives this call (steps come later): the workspace keeps a copy.
    const uint8_t* padding = nullptr;
    if (r.src.key_padding) {
        std::memcpy(ws.memory_padding.data(), r.src.key_padding, B * S);
        padding = ws.memory_padding.data();
    }
    for (size_t i = 0; i < decoder.size(); ++i) {
        decoder[i].project_memory(B * S, ws.x.data(), ws.cross_k[i].data(), ws.cross_v[i].data());
        ws.cross[i] = CrossMemory{ws.cross_k[i].data(), ws.cross_v[i].data(), S, S * d, padding, S};
    }
}

// 2. Position t of every item: consumes token t, appends to the caches and writes the logits of
// token t + 1 at row b * max_tgt + t. Recorded maps are written as [B, h, Lt, Lt] / [B, h, Lt, S].
void ModelImpl::seq2seq_forward(size_t t, WorkspaceImpl& ws) const {
    const DecodeState& st = ws.decode;
    const size_t B = st.n_batch, d = config.d_model, h = config.nhead, S = st.n_seq_src;
    const size_t Lt = ws.max_tgt, vocab = generator->out_features();
    const LayerScratch scratch = ws.scratch();
    float* y = ws.y.data();  // [B, d]: one position per item
    for (size_t b = 0; b < B; ++b) ws.step_tokens[b] = ws.generated[b * Lt + t];
    // Each batch item is at position t (embed() would advance the position per row).
    for (size_t b = 0; b < B; ++b) tgt_embedding->embed(1, &ws.step_tokens[b], t, y + b * d, d);
    for (size_t i = 0; i < decoder.size(); ++i) {
        SelfCache cache{ws.cache_k[i].data(), ws.cache_v[i].data(), Lt * d, t};
        float* sw = st.need_weights ? ws.step_self.data() : nullptr;
        float* cw = st.need_weights ? ws.step_cross.data() : nullptr;
        decoder[i].forward_step(B, y, cache, ws.cross[i], st.options, scratch, sw, cw);
        if (!st.need_weights) continue;
        float* self_map = ws.decoder_self_slot_at(i);
        float* cross_map = ws.decoder_cross_slot_at(i);
        for (size_t bh = 0; bh < B * h; ++bh) {
            std::memcpy(self_map + (bh * Lt + t) * Lt, sw + bh * (t + 1), (t + 1) * sizeof(float));
            std::memcpy(cross_map + (bh * Lt + t) * S, cw + bh * S, S * sizeof(float));
        }
    }
    if (decoder_norm) decoder_norm->forward(B, y, d, y, d);
    generator->forward(B, y, d, ws.logits.data() + t * vocab, Lt * vocab);  // [B, Lt, vocab]
}

// One decode_step: position t = steps done; the chosen tokens land at t + 1.
void ModelImpl::seq2seq_step(WorkspaceImpl& ws) const {
    const size_t t = ws.decode.steps, Lt = ws.max_tgt, vocab = ws.decode.vocab;
    seq2seq_forward(t, ws);
    choose_tokens(ws.logits.data() + t * vocab, Lt * vocab, ws);
    for (size_t b = 0; b < ws.decode.n_batch; ++b) ws.generated[b * Lt + t + 1] = ws.step_tokens[b];
}

// 3. Packs the results densely: tokens [B, length], logits [B, steps, vocab], maps per layer.
void ModelImpl::pack_generated(size_t length, WorkspaceImpl& ws) const {
    const DecodeState& st = ws.decode;
    const size_t B = st.n_batch, h = config.nhead, S = st.n_seq_src, Lt = ws.max_tgt;
    const size_t vocab = generator->out_features(), steps = length - 1;
    int32_t* out = ws.generated.data();
    for (size_t b = 0; b < B; ++b) std::memmove(out + b * length, out + b * Lt, length * sizeof(int32_t));
    compact(ws.logits.data(), B, Lt, steps, vocab);
    ws.generated_length = length;
    ws.logits_out = ws.logits.data();
    ws.logits_cols = vocab;
    ws.pooler_out = nullptr;
    ws.output = nullptr;
    ws.output_rows = B * steps;
    if (!st.need_weights) return;
    for (size_t i = 0; i < decoder.size(); ++i) {
        float* sm = ws.decoder_self_slot_at(i);
        float* cm = ws.decoder_cross_slot_at(i);
        for (size_t bh = 0; bh < B * h; ++bh)  // rows: Lt -> steps, columns: Lt -> steps
            for (size_t q = 0; q < steps; ++q)
                std::memmove(sm + (bh * steps + q) * steps, sm + (bh * Lt + q) * Lt, steps * sizeof(float));
        compact(cm, B * h, Lt, steps, S);
        ws.decoder_self_maps[i] = AttentionMap{sm, B, h, steps, steps};
        ws.decoder_cross_maps[i] = AttentionMap{cm, B, h, steps, S};
    }
}

Status Model::generate_begin(const GenerateRequest& r, Workspace& workspace) const {
    const ModelImpl& m = *impl_;
    WorkspaceImpl& ws = *workspace.impl_;
    SF_ASSIGN_OR_RETURN(const Decoding plan, plan_decoding(m, r, ws));
    ws.decode = DecodeState{};
    ws.clear_maps();
    ws.output = nullptr;
    ws.logits_out = nullptr;
    m.encode_memory(r, ws);
    if (r.need_weights)
        for (size_t i = 0; i < m.decoder.size(); ++i) {
            std::memset(ws.decoder_self_slot_at(i), 0, ws.decoder_self_slot * sizeof(float));
            std::memset(ws.decoder_cross_slot_at(i), 0, ws.decoder_cross_slot * sizeof(float));
        }
    // Position t consumes token t and predicts token t + 1; an item stops after its eos.
    const size_t B = r.n_batch, Lt = ws.max_tgt;
    for (size_t b = 0; b < B; ++b) {
        ws.generated[b * Lt] = int32_t(plan.bos);
        ws.finished[b] = 0;
    }
    DecodeState& st = ws.decode;
    st.active = true;
    st.seq2seq = true;
    st.n_batch = B;
    st.max_steps = plan.max_length - 1;
    st.vocab = plan.vocab;
    st.n_seq_src = r.src.n_seq;
    st.options = r.options;
    st.need_weights = r.need_weights;
    if (plan.eos >= 0) st.stop[st.n_stop++] = int32_t(plan.eos);
    st.pad = plan.eos >= 0 ? int32_t(plan.eos) : 0;  // positions after an item's eos hold eos
    st.sampler = Sampler(r.sampler);
    ws.generated_length = 0;  // set by generate_finish
    return Status::ok();
}

Status Model::generate_finish(Workspace& workspace) const {
    WorkspaceImpl& ws = *workspace.impl_;
    if (!ws.decode.active || !ws.decode.seq2seq) return Status::invalid("generate_finish: no generate_begin in progress");
    if (ws.decode.steps == 0) return Status::invalid("generate_finish: no step was decoded");
    impl_->pack_generated(ws.decode.steps + 1, ws);
    ws.decode.active = false;
    return Status::ok();
}

Status Model::generate(const GenerateRequest& r, Workspace& workspace) const {
    SF_RETURN_IF_ERROR(generate_begin(r, workspace));
    const DecodeState& st = workspace.impl_->decode;
    while (!st.done) {
        SF_RETURN_IF_ERROR(decode_step(workspace));
        if (r.on_step) r.on_step(r.on_step_user, st.steps, st.max_steps);
    }
    return generate_finish(workspace);
}

}  // namespace simdformer
