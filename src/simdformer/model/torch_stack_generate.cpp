// Incremental decoding of an encoder-decoder transformer. generate_begin encodes the source once
// and projects each decoder layer's cross-attention keys/values once; every decode_step then
// consumes one target token per item, appends its self-attention key and value to a per-layer
// cache, and reads the cache and the cross keys/values where they lie (the one-query attention
// path: nothing is repacked per step), so a step costs O(n) attention work instead of O(n^2).
// Model::generate runs the steps itself; callers that want to stop early or stream call the steps.
#include <cstring>

#include "simdformer/model/torch_stack.h"

namespace simdformer::detail {
namespace {

// Rows were written with room for `capacity` rows per item; pack them to `used` rows per item.
// Destinations never pass their sources, so moving front to back in place is safe.
void compact(float* p, size_t items, size_t capacity, size_t used, size_t row) {
    for (size_t i = 0; i < items; ++i)
        std::memmove(p + i * used * row, p + i * capacity * row, used * row * sizeof(float));
}

// What one generate call decides before decoding starts.
struct GenerationPlan {
    size_t max_length = 0, vocab = 0;
    int64_t bos = -1, eos = -1;
};

// bos/eos from the request or the config, max_length from the request or the workspace.
Result<GenerationPlan> plan_generation(const ModelConfig& c, const GenerateRequest& r, size_t vocab, size_t max_tgt) {
    GenerationPlan g;
    g.bos = r.bos >= 0 ? r.bos : c.bos_token;
    g.eos = r.eos >= 0 ? r.eos : c.eos_token;
    g.vocab = vocab;
    if (g.bos < 0 || size_t(g.bos) >= vocab)
        return Status::invalid(cat({"bos token ", g.bos, " is not in the target vocabulary [0, ",
                                    vocab, ")"}));
    if (g.eos >= int64_t(vocab)) return Status::invalid(cat({"eos token ", g.eos, " is not in the target vocabulary"}));
    g.max_length = r.max_length ? r.max_length : max_tgt;
    if (g.max_length < 2 || g.max_length > max_tgt || g.max_length > c.max_len)
        return Status::invalid(cat({"max_length=", g.max_length, " must be in [2, ",
                                    std::min(max_tgt, c.max_len), "]"}));
    return g;
}

}  // namespace

// 1. Encodes the source once and projects every decoder layer's cross-attention keys/values.
void TorchStack::encode_memory(const GenerateRequest& r, TorchStackWorkspace& ws) const {
    const size_t B = r.n_batch, S = r.src.n_seq, d = shape_.d_model;
    embed(r.src, B, src_embedding_, ws.x.data());
    run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
    // The padding outlives this call (steps come later): the workspace keeps a copy.
    const uint8_t* padding = nullptr;
    if (r.src.key_padding) {
        std::memcpy(ws.memory_padding.data(), r.src.key_padding, B * S);
        padding = ws.memory_padding.data();
    }
    for (size_t i = 0; i < decoder_.size(); ++i) {
        decoder_[i].project_memory(B * S, ws.x.data(), ws.cross_k[i].data(), ws.cross_v[i].data());
        ws.cross[i] = CrossMemory{ws.cross_k[i].data(), ws.cross_v[i].data(), S, S * d, padding, S};
    }
}

// 2. Position t of every item: consumes token t, appends to the caches and writes the logits of
// token t + 1 at row b * max_tgt + t. Recorded maps are written as [B, h, Lt, Lt] / [B, h, Lt, S].
void TorchStack::step_forward(size_t t, TorchStackWorkspace& ws) const {
    const size_t B = ws.decoding.n_batch, d = shape_.d_model, h = shape_.nhead, S = ws.n_seq_src;
    const size_t Lt = ws.max_tgt, vocab = generator_->out_features();
    const LayerScratch scratch = ws.layers.scratch();
    float* y = ws.y.data();  // [B, d]: one position per item
    std::vector<int32_t>& step = ws.decoding.step_tokens;
    for (size_t b = 0; b < B; ++b) step[b] = ws.tokens[b * Lt + t];
    // Each batch item is at position t (embed() would advance the position per row).
    for (size_t b = 0; b < B; ++b) tgt_embedding_->embed(1, &step[b], t, y + b * d, d);
    for (size_t i = 0; i < decoder_.size(); ++i) {
        const KeyValues cache{ws.cache_k[i].data(), ws.cache_v[i].data(), Lt * d, t};
        float* sw = ws.need_weights ? ws.step_self.data() : nullptr;
        float* cw = ws.need_weights ? ws.step_cross.data() : nullptr;
        decoder_[i].forward_step(B, y, cache, ws.cross[i], ws.options, scratch, sw, cw);
        if (!ws.need_weights) continue;
        float* self_map = ws.decoder_self_slot_at(i);
        float* cross_map = ws.decoder_cross_slot_at(i);
        for (size_t bh = 0; bh < B * h; ++bh) {
            std::memcpy(self_map + (bh * Lt + t) * Lt, sw + bh * (t + 1), (t + 1) * sizeof(float));
            std::memcpy(cross_map + (bh * Lt + t) * S, cw + bh * S, S * sizeof(float));
        }
    }
    if (decoder_norm_) decoder_norm_->forward(B, y, d, y, d);
    generator_->forward(B, y, d, ws.logits.data() + t * vocab, Lt * vocab);  // [B, Lt, vocab]
}

// One decode_step: position t = steps done; the chosen tokens land at t + 1.
Status TorchStack::decode_step(WorkspaceImpl& any) const {
    auto& ws = static_cast<TorchStackWorkspace&>(any);
    const size_t t = ws.decoding.steps, Lt = ws.max_tgt, vocab = ws.decoding.vocab;
    step_forward(t, ws);
    SF_RETURN_IF_ERROR(ws.decoding.choose_tokens(ws.logits.data() + t * vocab, Lt * vocab));
    for (size_t b = 0; b < ws.decoding.n_batch; ++b) ws.tokens[b * Lt + t + 1] = ws.decoding.step_tokens[b];
    return Status::ok();
}

// 3. Packs the results densely: tokens [B, length], logits [B, steps, vocab], maps per layer.
void TorchStack::pack_generated(size_t length, TorchStackWorkspace& ws) const {
    const size_t B = ws.decoding.n_batch, h = shape_.nhead, S = ws.n_seq_src, Lt = ws.max_tgt;
    const size_t vocab = generator_->out_features(), steps = length - 1;
    int32_t* out = ws.tokens.data();
    for (size_t b = 0; b < B; ++b) std::memmove(out + b * length, out + b * Lt, length * sizeof(int32_t));
    compact(ws.logits.data(), B, Lt, steps, vocab);
    ws.generated = out;
    ws.generated_length = length;
    ws.logits_out = ws.logits.data();
    ws.logits_cols = vocab;
    ws.pooler_out = nullptr;
    ws.output = nullptr;
    ws.output_rows = B * steps;
    if (!ws.need_weights) return;
    for (size_t i = 0; i < decoder_.size(); ++i) {
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

Status TorchStack::generate_begin(const GenerateRequest& r, WorkspaceImpl& any) const {
    if (shape_.kind != TorchModule::kTransformer || !src_embedding_ || !tgt_embedding_ || !generator_)
        return Runner::generate_begin(r, any);
    SF_RETURN_IF_ERROR(check_call(any, r.n_batch, r.need_weights, r.options));
    auto& ws = static_cast<TorchStackWorkspace&>(any);
    SF_ASSIGN_OR_RETURN(const GenerationPlan plan,
                        plan_generation(shape_, r, generator_->out_features(), ws.max_tgt));
    SF_RETURN_IF_ERROR(check_sequence(r.src, r.n_batch, ws.max_src, "src", src_embedding_));
    SF_RETURN_IF_ERROR(check_sampler(r.sampler, plan.vocab));
    ws.start_call();
    Decoding& st = ws.decoding;
    st.begin(r.n_batch, plan.max_length - 1, plan.vocab, r.sampler);
    encode_memory(r, ws);
    if (r.need_weights)
        for (size_t i = 0; i < decoder_.size(); ++i) {
            std::memset(ws.decoder_self_slot_at(i), 0, ws.decoder_self_slot * sizeof(float));
            std::memset(ws.decoder_cross_slot_at(i), 0, ws.decoder_cross_slot * sizeof(float));
        }
    // Position t consumes token t and predicts token t + 1; an item stops after its eos.
    for (size_t b = 0; b < r.n_batch; ++b) ws.tokens[b * ws.max_tgt] = int32_t(plan.bos);
    ws.n_seq_src = r.src.n_seq;
    ws.options = r.options;
    ws.need_weights = r.need_weights;
    if (plan.eos >= 0) st.add_stop(int32_t(plan.eos));
    st.pad = plan.eos >= 0 ? int32_t(plan.eos) : 0;  // positions after an item's eos hold eos
    st.active = true;
    return Status::ok();
}

Status TorchStack::generate_finish(WorkspaceImpl& any) const {
    SF_RETURN_IF_ERROR(check_owner(any));
    auto& ws = static_cast<TorchStackWorkspace&>(any);
    if (!ws.decoding.active || decoder_.empty()) return Runner::generate_finish(any);
    if (ws.decoding.steps == 0) return Status::invalid("generate_finish: no step was decoded");
    pack_generated(ws.decoding.steps + 1, ws);
    ws.decoding.active = false;
    return Status::ok();
}

}  // namespace simdformer::detail
