// Incremental decoding. The source is encoded once; each decoder layer's cross-attention
// keys/values are projected once; each new target position appends its self-attention key and
// value to a per-layer cache, so a step costs O(n) attention work instead of re-running O(n^2).
// The Sampler picks each next token from the step's logits.
#include <cstring>

#include "simdformer/model/model_impl.h"
#include "simdformer/model/sampler.h"

namespace simdformer {
namespace {

// Rows were written with room for `capacity` rows per item; pack them to `used` rows per item.
// Destinations never pass their sources, so moving front to back in place is safe.
void compact(float* p, size_t items, size_t capacity, size_t used, size_t row) {
    for (size_t i = 0; i < items; ++i)
        std::memmove(p + i * used * row, p + i * capacity * row, used * row * sizeof(float));
}

// What one generate() call decides before decoding starts.
struct Decoding {
    size_t n_batch = 0, n_seq_src = 0, max_length = 0, vocab = 0;
    int64_t bos = -1, eos = -1;
    bool need_weights = false;
};

// Checks the request and resolves its defaults (bos/eos from the config, max_length from the
// workspace).
Result<Decoding> plan_decoding(const ModelImpl& m, const GenerateRequest& r, const WorkspaceImpl& ws) {
    const ModelConfig& c = m.config;
    if (c.kind != ModelKind::kTransformer || !m.src_embedding || !m.tgt_embedding || !m.generator)
        return Status::invalid("generate needs a transformer with token embeddings and a generator");
    SF_RETURN_IF_ERROR(m.check_call(ws, r.n_batch, r.need_weights, r.options));
    Decoding d;
    d.n_batch = r.n_batch;
    d.n_seq_src = r.src.n_seq;
    d.need_weights = r.need_weights;
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
    return d;
}

}  // namespace

// 1. Encodes the source once and projects every decoder layer's cross-attention keys/values.
void ModelImpl::encode_memory(const GenerateRequest& r, WorkspaceImpl& ws) const {
    const size_t B = r.n_batch, S = r.src.n_seq, d = config.d_model;
    embed(r.src, B, src_embedding, ws.x.data());
    run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
    for (size_t i = 0; i < decoder.size(); ++i) {
        decoder[i].project_memory(B * S, ws.x.data(), ws.cross_k[i].data(), ws.cross_v[i].data());
        ws.cross[i] = CrossMemory{ws.cross_k[i].data(), ws.cross_v[i].data(), S, S * d, r.src.key_padding, S};
    }
}

// 2. Position t of every item: consumes token t, appends to the caches and writes the logits of
// token t + 1 at row b * max_tgt + t. Recorded maps are written as [B, h, Lt, Lt] / [B, h, Lt, S].
void ModelImpl::decode_step(size_t t, const GenerateRequest& r, WorkspaceImpl& ws) const {
    const size_t B = r.n_batch, d = config.d_model, h = config.nhead, S = r.src.n_seq;
    const size_t Lt = ws.max_tgt, vocab = generator->out_features();
    const LayerScratch scratch = ws.scratch();
    float* y = ws.y.data();  // [B, d]: one position per item
    for (size_t b = 0; b < B; ++b) ws.step_tokens[b] = ws.generated[b * Lt + t];
    // Each batch item is at position t (embed() would advance the position per row).
    for (size_t b = 0; b < B; ++b) tgt_embedding->embed(1, &ws.step_tokens[b], t, y + b * d, d);
    for (size_t i = 0; i < decoder.size(); ++i) {
        SelfCache cache{ws.cache_k[i].data(), ws.cache_v[i].data(), Lt * d, t};
        float* sw = r.need_weights ? ws.step_self.data() : nullptr;
        float* cw = r.need_weights ? ws.step_cross.data() : nullptr;
        decoder[i].forward_step(B, y, cache, ws.cross[i], r.options, scratch, sw, cw);
        if (!r.need_weights) continue;
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

// 3. Packs the results densely: tokens [B, length], logits [B, steps, vocab], maps per layer.
void ModelImpl::pack_generated(size_t length, const GenerateRequest& r, WorkspaceImpl& ws) const {
    const size_t B = r.n_batch, h = config.nhead, S = r.src.n_seq, Lt = ws.max_tgt;
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
    if (!r.need_weights) return;
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

Status Model::generate(const GenerateRequest& r, Workspace& workspace) const {
    const ModelImpl& m = *impl_;
    WorkspaceImpl& ws = *workspace.impl_;
    SF_ASSIGN_OR_RETURN(const Decoding plan, plan_decoding(m, r, ws));
    ws.clear_maps();
    m.encode_memory(r, ws);
    if (r.need_weights)
        for (size_t i = 0; i < m.decoder.size(); ++i) {
            std::memset(ws.decoder_self_slot_at(i), 0, ws.decoder_self_slot * sizeof(float));
            std::memset(ws.decoder_cross_slot_at(i), 0, ws.decoder_cross_slot * sizeof(float));
        }

    // Position t consumes token t and predicts token t + 1; an item stops after its eos.
    const size_t B = plan.n_batch, Lt = ws.max_tgt;
    int32_t* out = ws.generated.data();  // [B, Lt] while decoding
    for (size_t b = 0; b < B; ++b) {
        out[b * Lt] = int32_t(plan.bos);
        ws.finished[b] = 0;
    }
    Sampler sampler;
    size_t length = 1;
    for (size_t t = 0; t + 1 < plan.max_length; ++t) {
        m.decode_step(t, r, ws);
        bool all_done = true;
        for (size_t b = 0; b < B; ++b) {
            int32_t next = sampler.sample(ws.logits.data() + (b * Lt + t) * plan.vocab, plan.vocab);
            if (ws.finished[b]) next = int32_t(plan.eos);
            if (plan.eos >= 0 && next == plan.eos) ws.finished[b] = 1;
            out[b * Lt + t + 1] = next;
            all_done = all_done && ws.finished[b];
        }
        length = t + 2;
        if (r.on_step) r.on_step(r.on_step_user, t + 1, plan.max_length - 1);
        if (all_done) break;
    }
    m.pack_generated(length, r, ws);
    return Status::ok();
}

}  // namespace simdformer
