// Greedy incremental decoding. The source is encoded once; each decoder layer's cross-attention
// keys/values are projected once; each new target position appends its self-attention key and
// value to a per-layer cache, so a step costs O(n) attention work instead of re-running O(n^2).
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

size_t argmax(const float* x, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

}  // namespace

Status Model::generate(const GenerateRequest& r, Workspace& workspace) const {
    const Impl& m = *impl_;
    Workspace::Impl& ws = workspace.impl();
    const ModelConfig& c = m.config;
    if (c.kind != ModelKind::kTransformer || !m.src_embedding || !m.tgt_embedding || !m.generator)
        return Status::invalid("generate needs a transformer with token embeddings and a generator");
    SF_RETURN_IF_ERROR(m.check_call(ws, r.n_batch, r.need_weights, r.options));
    const int64_t bos = r.bos >= 0 ? r.bos : c.bos_token;
    const int64_t eos = r.eos >= 0 ? r.eos : c.eos_token;
    const size_t vocab = m.generator->out_features();
    if (bos < 0 || size_t(bos) >= vocab)
        return Status::invalid("bos token " + std::to_string(bos) + " is not in the target vocabulary [0, " +
                               std::to_string(vocab) + ")");
    if (eos >= int64_t(vocab)) return Status::invalid("eos token " + std::to_string(eos) + " is not in the target vocabulary");
    const size_t max_length = r.max_length ? r.max_length : ws.max_tgt;
    if (max_length < 2 || max_length > ws.max_tgt || max_length > c.max_len)
        return Status::invalid("max_length=" + std::to_string(max_length) + " must be in [2, " +
                               std::to_string(std::min(ws.max_tgt, c.max_len)) + "]");
    const size_t B = r.n_batch, d = c.d_model, S = r.src.n_seq, h = c.nhead;
    SF_RETURN_IF_ERROR(m.check_sequence(r.src, B, ws.max_src, "src", m.src_embedding));

    ws.clear_maps();
    // 1. Encode the source once; it becomes the memory of every step.
    m.embed(r.src, B, m.src_embedding, ws.x.data());
    m.run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
    const LayerScratch scratch = ws.scratch();
    std::vector<CrossMemory>& cross = ws.cross;
    for (size_t i = 0; i < m.decoder.size(); ++i) {
        m.decoder[i].project_memory(B * S, ws.x.data(), ws.cross_k[i].data(), ws.cross_v[i].data());
        cross[i] = CrossMemory{ws.cross_k[i].data(), ws.cross_v[i].data(), S, S * d, r.src.key_padding, S};
    }

    // Recorded maps are written as [B, h, Lt, Lt] / [B, h, Lt, S] and compacted at the end.
    const size_t Lt = ws.max_tgt;
    auto self_map = [&](size_t i) { return ws.decoder_self_slot_at(i); };
    auto cross_map = [&](size_t i) { return ws.decoder_cross_slot_at(i); };
    if (r.need_weights)
        for (size_t i = 0; i < m.decoder.size(); ++i) {
            std::memset(self_map(i), 0, ws.decoder_self_slot * sizeof(float));
            std::memset(cross_map(i), 0, ws.decoder_cross_slot * sizeof(float));
        }

    // 2. Decode: position t consumes token t and predicts token t + 1.
    int32_t* out = ws.generated.data();  // [B, Lt] while decoding
    for (size_t b = 0; b < B; ++b) {
        out[b * Lt] = int32_t(bos);
        ws.finished[b] = 0;
    }
    size_t length = 1;
    float* y = ws.y.data();  // [B, d]: one position per item
    for (size_t t = 0; t + 1 < max_length; ++t) {
        for (size_t b = 0; b < B; ++b) ws.step_tokens[b] = out[b * Lt + t];
        // Each batch item is at position t (embed() would advance the position per row).
        for (size_t b = 0; b < B; ++b) m.tgt_embedding->embed(1, &ws.step_tokens[b], t, y + b * d, d);
        for (size_t i = 0; i < m.decoder.size(); ++i) {
            SelfCache cache{ws.cache_k[i].data(), ws.cache_v[i].data(), Lt * d, t};
            float* sw = r.need_weights ? ws.step_self.data() : nullptr;
            float* cw = r.need_weights ? ws.step_cross.data() : nullptr;
            m.decoder[i].forward_step(B, y, cache, cross[i], r.options, scratch, sw, cw);
            if (r.need_weights) {
                for (size_t bh = 0; bh < B * h; ++bh) {
                    std::memcpy(self_map(i) + (bh * Lt + t) * Lt, sw + bh * (t + 1), (t + 1) * sizeof(float));
                    std::memcpy(cross_map(i) + (bh * Lt + t) * S, cw + bh * S, S * sizeof(float));
                }
            }
        }
        if (m.decoder_norm) m.decoder_norm->forward(B, y, d, y, d);
        float* logits = ws.logits.data();  // [B, Lt, vocab]: step t of item b at row b*Lt + t
        m.generator->forward(B, y, d, logits + t * vocab, Lt * vocab);
        bool all_done = true;
        for (size_t b = 0; b < B; ++b) {
            int32_t next = int32_t(argmax(logits + (b * Lt + t) * vocab, vocab));
            if (ws.finished[b]) next = int32_t(eos);
            if (eos >= 0 && next == eos) ws.finished[b] = 1;
            out[b * Lt + t + 1] = next;
            all_done = all_done && ws.finished[b];
        }
        length = t + 2;
        if (r.on_step) r.on_step(r.on_step_user, t + 1, max_length - 1);
        if (all_done) break;
    }

    // 3. Pack results densely: tokens [B, length], logits [B, steps, vocab], maps per layer.
    const size_t steps = length - 1;
    for (size_t b = 0; b < B; ++b) std::memmove(out + b * length, out + b * Lt, length * sizeof(int32_t));
    compact(ws.logits.data(), B, Lt, steps, vocab);
    ws.generated_length = length;
    ws.logits_out = ws.logits.data();
    ws.logits_cols = vocab;
    ws.output = nullptr;
    ws.output_rows = B * steps;
    if (r.need_weights) {
        for (size_t i = 0; i < m.decoder.size(); ++i) {
            float* sm = self_map(i);
            float* cm = cross_map(i);
            for (size_t bh = 0; bh < B * h; ++bh)  // rows: Lt -> steps, columns: Lt -> steps
                for (size_t q = 0; q < steps; ++q)
                    std::memmove(sm + (bh * steps + q) * steps, sm + (bh * Lt + q) * Lt, steps * sizeof(float));
            compact(cm, B * h, Lt, steps, S);
            ws.decoder_self_maps[i] = AttentionMap{sm, B, h, steps, steps};
            ws.decoder_cross_maps[i] = AttentionMap{cm, B, h, steps, S};
        }
    }
    return Status::ok();
}

}  // namespace simdformer
