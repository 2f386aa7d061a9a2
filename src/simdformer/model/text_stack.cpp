#include "simdformer/model/text_stack.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "simdformer/detail/validate.h"

namespace simdformer::detail {
AttentionOptions TextStack::attention_options() const {
    AttentionOptions o;
    if (!config.scale_attention) o.score = ScoreKind::kDot;  // GPT-2's scale_attn_weights: false
    return o;
}

size_t longest_sequence(size_t n_batch, size_t n_seq, const int32_t* positions, size_t stride) {
    int32_t last = 0;
    for (size_t b = 0; b < n_batch; ++b)
        for (size_t i = 0; i < n_seq; ++i) last = std::max(last, positions[b * stride + i]);
    return size_t(last) + 1;
}

void TextStack::rotary_rows(size_t n_batch, size_t n_seq, const int32_t* positions, size_t stride, size_t seq_len,
                            TextWorkspace& ws, SequenceMasks* masks) const {
    if (!rotary) return;
    const size_t half = rotary->half();
    for (size_t b = 0; b < n_batch; ++b)
        rotary->tables(n_seq, positions + b * stride, seq_len, ws.rope_cos.data() + b * n_seq * half,
                       ws.rope_sin.data() + b * n_seq * half);
    masks->rope_cos = ws.rope_cos.data();
    masks->rope_sin = ws.rope_sin.data();
}

void TextStack::embed(const TextRequest& r, TextWorkspace& ws) const {
    const size_t n = r.n_seq, d = config.d_model;
    for (size_t b = 0; b < r.n_batch; ++b) {
        const int32_t* types = r.token_types ? r.token_types + b * n : nullptr;
        embeddings.embed(n, r.tokens + b * n, types, ws.position_ids.data() + b * n, ws.x.data() + b * n * d, d);
    }
    if (r.attention_mask) {
        const float lowest = std::numeric_limits<float>::lowest();  // torch.finfo(torch.float32).min
        for (size_t i = 0; i < r.n_batch * n; ++i) ws.key_bias.data()[i] = r.attention_mask[i] ? 0.0f : lowest;
    }
}

void TextStack::run(size_t n_batch, size_t n, const SequenceMasks& masks, bool need_weights, TextWorkspace& ws,
                    const LayerProbe* probe) const {
    const LayerScratch scratch = ws.layers.scratch();
    const AttentionOptions options = attention_options();
    const size_t d = config.d_model, h = config.n_heads;
    float* x = ws.x.data();
    for (size_t i = 0; i < layers.size(); ++i) {
        float* slot = ws.attention.empty() ? nullptr : ws.attention.data() + i * n_batch * h * n * n;
        float* w = ws.record(ws.encoder_maps, i, slot, n_batch, h, n, n, need_weights);
        layers[i].forward(n_batch, n, x, masks, options, scratch, w);
        if (probe && probe->layer == i) copy_probe(n_batch * n, scratch, masks, *probe);
    }
    if (final_norm) final_norm->forward(n_batch * n, x, d, x, d);
}

// The attention scratch still holds the probed layer's projections (the feed-forward half of the
// layer only uses s1, s2 and hidden), row by row q | k | v: q, k, v, context, then for rotary
// models q and k turned back by their angles (RotateBy::kMinusAngle), i.e. as projected.
void TextStack::copy_probe(size_t tokens, const LayerScratch& s, const SequenceMasks& masks, const LayerProbe& probe) const {
    const ModelConfig& shape = *probe.shape;
    const size_t qw = shape.q_width(), kvw = shape.kv_width(), dh = shape.d_head(), ld = qw + 2 * kvw;
    float* out = probe.out;
    const float* q = s.qkv;
    const struct { const float* data; size_t ld, width; } parts[6] = {
        {q, ld, qw}, {q + qw, ld, kvw}, {q + qw + kvw, ld, kvw}, {s.context, qw, qw}, {q, ld, qw}, {q + qw, ld, kvw}};
    for (size_t i = 0; i < (rotary ? 6u : 4u); ++i) {
        const size_t w = parts[i].width;
        for (size_t t = 0; t < tokens; ++t) std::memcpy(out + t * w, parts[i].data + t * parts[i].ld, w * sizeof(float));
        if (i >= 4) rotate_half(tokens, w / dh, dh, out, w, masks.rope_cos, masks.rope_sin, RotateBy::kMinusAngle);
        out += tokens * w;
    }
}

void TextStack::gather_rows(const TextRequest& r, TextWorkspace& ws) const {
    const size_t d = config.d_model;
    for (size_t i = 0; i < r.n_logits_rows; ++i)
        std::memcpy(ws.head_in.data() + i * d, ws.x.data() + size_t(r.logits_rows[i]) * d, d * sizeof(float));
}

}  // namespace simdformer::detail
