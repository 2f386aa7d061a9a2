// The TorchStack runner's forward pass (its loading and plan: model/torch_stack_load.cpp; its
// checks: model/torch_stack_check.cpp). A request is validated completely, then the configured
// module runs on the workspace without allocating.
#include "simdformer/model/torch_stack.h"

#include <cstring>

namespace simdformer::detail {
float* TorchStackWorkspace::encoder_slot_at(size_t layer) {
    if (attention.empty()) return nullptr;  // offsetting the null data() would be undefined behaviour
    return attention.data() + layer * encoder_slot;
}

float* TorchStackWorkspace::decoder_self_slot_at(size_t layer) {
    if (attention.empty()) return nullptr;
    return attention.data() + encoder_maps.size() * encoder_slot + layer * (decoder_self_slot + decoder_cross_slot);
}

float* TorchStackWorkspace::decoder_cross_slot_at(size_t layer) {
    float* self = decoder_self_slot_at(layer);
    return self ? self + decoder_self_slot : nullptr;
}

void TorchStack::embed(const SequenceInput& s, size_t n_batch, const std::optional<TokenEmbedding>& embedding,
                       float* out) const {
    const size_t d = shape_.d_model;
    if (embedding) {
        for (size_t b = 0; b < n_batch; ++b)
            embedding->embed(s.n_seq, s.tokens + b * s.n_seq, 0, out + b * s.n_seq * d, d);
    } else {
        std::memcpy(out, s.embeddings, n_batch * s.n_seq * d * sizeof(float));
    }
}

void TorchStack::run_encoder(size_t n_batch, const SequenceInput& src, const AttentionOptions& options,
                             bool need_weights, TorchStackWorkspace& ws, float* x) const {
    const size_t n = src.n_seq;
    const SequenceMasks masks{src.key_padding, n, src.attn_mask, src.causal};
    const LayerScratch scratch = ws.layers.scratch();
    for (size_t i = 0; i < encoder_.size(); ++i) {
        float* w = ws.record(ws.encoder_maps, i, ws.encoder_slot_at(i), n_batch, shape_.nhead, n, n, need_weights);
        encoder_[i].forward(n_batch, n, x, masks, options, scratch, w);
    }
    if (encoder_norm_) encoder_norm_->forward(n_batch * n, x, shape_.d_model, x, shape_.d_model);
}

void TorchStack::run_decoder(size_t n_batch, const SequenceInput& tgt, const float* memory, size_t n_seq_memory,
                             const uint8_t* memory_padding, const AttentionOptions& options, bool need_weights,
                             TorchStackWorkspace& ws, float* y) const {
    const size_t n = tgt.n_seq, d = shape_.d_model, h = shape_.nhead;
    SequenceMasks masks{tgt.key_padding, n, tgt.attn_mask, tgt.causal};
    const LayerScratch scratch = ws.layers.scratch();
    for (size_t i = 0; i < decoder_.size(); ++i) {
        decoder_[i].project_memory(n_batch * n_seq_memory, memory, ws.cross_k[i].data(), ws.cross_v[i].data());
        CrossMemory cross{ws.cross_k[i].data(), ws.cross_v[i].data(), n_seq_memory, n_seq_memory * d, memory_padding,
                          n_seq_memory};
        float* sw = ws.record(ws.decoder_self_maps, i, ws.decoder_self_slot_at(i), n_batch, h, n, n, need_weights);
        float* cw =
            ws.record(ws.decoder_cross_maps, i, ws.decoder_cross_slot_at(i), n_batch, h, n, n_seq_memory, need_weights);
        decoder_[i].forward(n_batch, n, y, masks, cross, options, scratch, sw, cw);
    }
    if (decoder_norm_) decoder_norm_->forward(n_batch * n, y, d, y, d);
}

// nn.MultiheadAttention: queries `src`, keys and values `key` / `value` (default: the query).
Status TorchStack::forward_attention(const ForwardRequest& r, TorchStackWorkspace& ws) const {
    SF_RETURN_IF_ERROR(check_attention_inputs(r, ws));
    const size_t d = shape_.d_model, B = r.n_batch, nq = r.src.n_seq;
    const size_t nk = r.key ? r.n_seq_k : nq;
    const LayerScratch s = ws.layers.scratch();
    attention_->project_q(B * nq, r.src.embeddings, d, s.q, d);
    attention_->project_kv(B * nk, r.key ? r.key : r.src.embeddings, r.value ? r.value : r.src.embeddings, d, s.k, s.v, d);
    AttendArgs a = contiguous_attend_args(B, nq, nk, d, s.q, s.k, s.v, s.context);
    a.key_padding = r.key ? r.key_padding_k : r.src.key_padding;
    a.key_padding_stride = nk;
    a.attn_mask = r.src.attn_mask;
    a.causal = r.src.causal;
    a.options = r.options;
    a.weights = ws.record(ws.encoder_maps, 0, ws.encoder_slot_at(0), B, shape_.nhead, nq, nk, r.need_weights);
    attention_->attend(a, s.attention);
    attention_->project_out(B * nq, s.context, d, ws.x.data(), d, nullptr, 0);
    ws.output = ws.x.data();
    ws.output_rows = B * nq;
    return Status::ok();
}

// The encoder and/or decoder stacks, and the generator on the decoder's output.
Status TorchStack::forward_stacks(const ForwardRequest& r, TorchStackWorkspace& ws) const {
    const size_t B = r.n_batch, d = shape_.d_model;
    const bool with_decoder = !decoder_.empty() && !(r.encoder_only && !encoder_.empty());
    if (!encoder_.empty()) SF_RETURN_IF_ERROR(check_sequence(r.src, B, ws.max_src, "src", src_embedding_));
    if (with_decoder) SF_RETURN_IF_ERROR(check_decoder_inputs(r, ws));
    const float* memory = r.memory;
    size_t n_mem = r.n_seq_memory;
    const uint8_t* memory_padding = r.memory_key_padding;
    if (!encoder_.empty()) {
        embed(r.src, B, src_embedding_, ws.x.data());
        run_encoder(B, r.src, r.options, r.need_weights, ws, ws.x.data());
        ws.output = ws.x.data();
        ws.output_rows = B * r.src.n_seq;
        if (!with_decoder) return Status::ok();
        memory = ws.x.data();
        n_mem = r.src.n_seq;
        // Unless given separately, the memory is masked like the source (nn.Transformer usage).
        memory_padding = r.memory_key_padding ? r.memory_key_padding : r.src.key_padding;
    }
    embed(r.tgt, B, tgt_embedding_, ws.y.data());
    run_decoder(B, r.tgt, memory, n_mem, memory_padding, r.options, r.need_weights, ws, ws.y.data());
    ws.output = ws.y.data();
    ws.output_rows = B * r.tgt.n_seq;
    if (generator_) {
        generator_->forward(ws.output_rows, ws.y.data(), d, ws.logits.data(), generator_->out_features());
        ws.logits_out = ws.logits.data();
        ws.logits_cols = generator_->out_features();
    }
    return Status::ok();
}

Status TorchStack::forward(const ForwardRequest& r, WorkspaceImpl& any) const {
    SF_RETURN_IF_ERROR(check_call(any, r.n_batch, r.need_weights, r.options));
    auto& ws = static_cast<TorchStackWorkspace&>(any);
    ws.start_call();
    return attention_ ? forward_attention(r, ws) : forward_stacks(r, ws);
}

}  // namespace simdformer::detail
