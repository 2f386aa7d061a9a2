// Workspace: every buffer a forward pass needs, sized once from the model config and limits.
#include <algorithm>
#include <initializer_list>

#include "simdformer/model/model_impl.h"
#include "simdformer/runtime/thread_pool.h"

namespace simdformer {
namespace {

// Product of sizes, or 0 with *overflow set when it does not fit in size_t.
size_t product(std::initializer_list<size_t> sizes, bool* overflow) {
    size_t p = 1;
    for (size_t s : sizes)
        if (!checked_mul(p, s, &p)) *overflow = true;
    return *overflow ? 0 : p;
}

// a + b, or 0 with *overflow set when it does not fit in size_t (wasm32: 2^31 + 2^31 is 0).
size_t sum(size_t a, size_t b, bool* overflow) {
    if (a > SIZE_MAX - b) *overflow = true;
    return *overflow ? 0 : a + b;
}

}  // namespace

void average_heads(const AttentionMap& m, float* out) {
    const size_t plane = m.n_seq_q * m.n_seq_k;
    for (size_t b = 0; b < m.n_batch; ++b) {
        float* o = out + b * plane;
        for (size_t i = 0; i < plane; ++i) o[i] = 0.0f;
        for (size_t h = 0; h < m.nhead; ++h) kernels::add_f32(plane, o, m.data + (b * m.nhead + h) * plane, o);
        kernels::scale_f32(plane, 1.0f / float(m.nhead), o, o);
    }
}

Workspace::Workspace() : impl_(std::make_unique<WorkspaceImpl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

const float* Workspace::output() const { return impl_->output; }
size_t Workspace::output_rows() const { return impl_->output_rows; }
const float* Workspace::logits() const { return impl_->logits_out; }
const float* Workspace::pooler() const { return impl_->pooler_out; }
size_t Workspace::logits_cols() const { return impl_->logits_cols; }
const int32_t* Workspace::generated() const { return impl_->generated.data(); }
size_t Workspace::generated_length() const { return impl_->generated_length; }
const std::vector<AttentionMap>& Workspace::encoder_attention() const { return impl_->encoder_maps; }
const std::vector<AttentionMap>& Workspace::decoder_self_attention() const { return impl_->decoder_self_maps; }
const std::vector<AttentionMap>& Workspace::decoder_cross_attention() const { return impl_->decoder_cross_maps; }
const WorkspaceLimits& Workspace::limits() const { return impl_->limits; }
size_t Workspace::bytes() const { return impl_->bytes; }

LayerScratch WorkspaceImpl::scratch() {
    LayerScratch s;
    s.q = q.data();
    s.k = k.data();
    s.v = v.data();
    s.context = context.data();
    s.s1 = s1.data();
    s.s2 = s2.data();
    s.hidden = hidden.data();
    s.attention.scores = scores.data();
    s.attention.pack = pack.data();
    s.attention.add_q = add_q.data();
    s.attention.add_k = add_k.data();
    s.attention.slots = attention_slots;
    s.attention.scores_stride = scores_floats;
    s.attention.pack_stride = pack_floats;
    s.attention.add_q_stride = add_floats;
    s.attention.add_k_stride = add_floats;
    return s;
}

// A workspace reserved without attention weights has no attention buffer: its slots are null
// (record() then records nothing). Offsetting the null data() pointer instead is undefined
// behaviour (UBSan in wasm-asan: "subtraction of unsigned offset from 0x00000000").
float* WorkspaceImpl::encoder_slot_at(size_t layer) {
    if (attention.empty()) return nullptr;
    return attention.data() + layer * encoder_slot;
}

float* WorkspaceImpl::decoder_self_slot_at(size_t layer) {
    if (attention.empty()) return nullptr;
    return attention.data() + encoder_maps.size() * encoder_slot + layer * (decoder_self_slot + decoder_cross_slot);
}

float* WorkspaceImpl::decoder_cross_slot_at(size_t layer) {
    float* self = decoder_self_slot_at(layer);
    return self ? self + decoder_self_slot : nullptr;
}

float* WorkspaceImpl::record(std::vector<AttentionMap>& maps, size_t layer, float* slot, size_t n_batch,
                               size_t n_seq_q, size_t n_seq_k, bool need_weights) {
    if (!need_weights || attention.empty()) return nullptr;
    maps[layer] = AttentionMap{slot, n_batch, nhead, n_seq_q, n_seq_k};
    return slot;
}

void WorkspaceImpl::clear_maps() {
    for (auto* maps : {&encoder_maps, &decoder_self_maps, &decoder_cross_maps})
        for (auto& m : *maps) m = AttentionMap{};
}

namespace {

// One buffer of the workspace and its size in floats.
struct BufferPlan {
    Buffer* buffer;
    size_t floats;
    const char* what;
};

// The workspace's shape for these limits: lengths, and the floats of each attention-map slot.
void size_workspace(const ModelImpl& m, const WorkspaceLimits& requested, WorkspaceImpl& w, bool* overflow) {
    const ModelConfig& c = m.config;
    const size_t B = requested.max_batch;
    const size_t Ls = requested.max_src_len ? requested.max_src_len : c.max_len;
    // Encoder-only models never see a target: by default it costs nothing (rows are sized by
    // max(Ls, Lt), so a default of max_len would size every buffer for max_len).
    const bool target = m.mha || !m.decoder.empty();
    const size_t Lt = requested.max_tgt_len ? requested.max_tgt_len : target ? c.max_len : Ls;
    const size_t h = c.nhead;
    w.limits = requested;
    w.limits.max_src_len = Ls;
    w.limits.max_tgt_len = Lt;
    w.max_src = Ls;
    w.max_tgt = Lt;
    w.d_model = c.d_model;
    w.nhead = h;
    // multihead_attention: queries are "src", keys are "tgt"; encoders: src only.
    w.encoder_slot = m.mha ? product({B, h, Ls, Lt}, overflow) : product({B, h, Ls, Ls}, overflow);
    w.decoder_self_slot = product({B, h, Lt, Lt}, overflow);
    w.decoder_cross_slot = product({B, h, Lt, Ls}, overflow);
}

// Attention scratch: one copy per thread that may run heads (threads at creation time; a
// workspace made before set_threads(n) runs heads on at most its own number of copies). Returns
// the floats of the recorded attention maps (0 without record_attention).
size_t size_attention_scratch(const ModelConfig& c, size_t L, size_t n_enc, size_t n_dec, WorkspaceImpl& w,
                              bool* overflow) {
    // pack_floats() multiplies unchecked: d_head x (L rounded up to a GEMM panel) must fit.
    (void)product({c.d_head() + 1, L + 64}, overflow);
    w.attention_slots = std::max<size_t>(1, runtime::threads());
    w.scores_floats = product({L, L}, overflow);
    w.pack_floats = MultiHeadAttention::pack_floats(c, L);
    w.add_floats = product({L, c.additive_dim}, overflow);
    if (!w.limits.record_attention) return 0;
    return sum(product({n_enc, w.encoder_slot}, overflow),
               product({n_dec, sum(w.decoder_self_slot, w.decoder_cross_slot, overflow)}, overflow), overflow);
}

// The per-layer key/value buffers: decoder layers get their cross-attention keys/values of the
// memory and their self-attention cache; causal text models (cache_floats > 0: decoding) one
// cache per block.
void plan_caches(size_t n_dec, size_t n_blocks, size_t rows_src, size_t rows_tgt, size_t cache_floats, size_t d,
                 WorkspaceImpl& w, std::vector<BufferPlan>& plan, bool* overflow) {
    w.cross_k.resize(n_dec);
    w.cross_v.resize(n_dec);
    w.cache_k.resize(n_dec);
    w.cache_v.resize(n_dec);
    w.cross.resize(n_dec);
    for (size_t i = 0; i < n_dec; ++i) {
        plan.push_back({&w.cross_k[i], product({rows_src, d}, overflow), "workspace.cross_k"});
        plan.push_back({&w.cross_v[i], product({rows_src, d}, overflow), "workspace.cross_v"});
        plan.push_back({&w.cache_k[i], product({rows_tgt, d}, overflow), "workspace.cache_k"});
        plan.push_back({&w.cache_v[i], product({rows_tgt, d}, overflow), "workspace.cache_v"});
    }
    if (cache_floats == 0) return;
    w.cache_k.resize(n_blocks);
    w.cache_v.resize(n_blocks);
    for (size_t i = 0; i < n_blocks; ++i) {
        plan.push_back({&w.cache_k[i], cache_floats, "workspace.cache_k"});
        plan.push_back({&w.cache_v[i], cache_floats, "workspace.cache_v"});
    }
}

// Every buffer a forward pass or generate() of this model can touch.
std::vector<BufferPlan> plan_buffers(const ModelImpl& m, WorkspaceImpl& w, bool* overflow) {
    const ModelConfig& c = m.config;
    const size_t B = w.limits.max_batch, Ls = w.max_src, Lt = w.max_tgt, L = std::max(Ls, Lt);
    const size_t d = c.d_model, h = c.nhead;
    const size_t n_enc = m.encoder.size() + (m.mha ? 1 : 0);
    const size_t n_dec = m.decoder.size();
    const size_t vocab = m.generator ? m.generator->out_features() : 0;
    // Text models: MLM / LM scores of at most max_logits_rows rows, and their per-call scratch.
    const bool scores = m.mlm || m.has_lm_head;
    const size_t text_vocab = scores ? m.text->vocab_size : 0;
    const size_t R = scores ? w.limits.max_logits_rows : 0;
    const bool text = m.text.has_value();
    // Causal text models: the causal mask, and for decoding (max_context > 0) the caches, the
    // padding bias of every cached key, each step's maps and logits [B, vocab].
    const bool causal = m.causal_text();
    const size_t Lc = causal && m.has_lm_head ? w.limits.max_context : 0;
    const size_t n_enc_layers = m.encoder.size();
    const size_t sample_vocab = Lc ? text_vocab : n_dec ? vocab : 0;
    const size_t rows_src = product({B, Ls}, overflow), rows_tgt = product({B, Lt}, overflow);
    const size_t rows = product({B, L}, overflow);
    const size_t attention_floats = size_attention_scratch(c, L, n_enc, n_dec, w, overflow);
    std::vector<BufferPlan> plan = {
        {&w.x, product({rows_src, d}, overflow), "workspace.x"},
        {&w.y, product({rows_tgt, d}, overflow), "workspace.y"},
        {&w.q, product({rows, d}, overflow), "workspace.q"},
        {&w.k, product({rows, d}, overflow), "workspace.k"},
        {&w.v, product({rows, d}, overflow), "workspace.v"},
        {&w.context, product({rows, d}, overflow), "workspace.context"},
        {&w.s1, product({rows, d}, overflow), "workspace.s1"},
        {&w.s2, product({rows, d}, overflow), "workspace.s2"},
        {&w.hidden, product({rows, c.dim_feedforward}, overflow), "workspace.hidden"},
        {&w.scores, product({w.attention_slots, w.scores_floats}, overflow), "workspace.scores"},
        {&w.pack, product({w.attention_slots, w.pack_floats}, overflow), "workspace.pack"},
        {&w.add_q, product({w.attention_slots, w.add_floats}, overflow), "workspace.add_q"},
        {&w.add_k, product({w.attention_slots, w.add_floats}, overflow), "workspace.add_k"},
        {&w.logits, std::max({product({rows_tgt, vocab}, overflow), product({R, text_vocab}, overflow),
                              Lc ? product({B, text_vocab}, overflow) : 0}), "workspace.logits"},
        {&w.key_bias, text ? rows_src : 0, "workspace.key_bias"},
        {&w.pooled, m.pooler ? product({B, d}, overflow) : 0, "workspace.pooled"},
        {&w.mlm_in, product({R, d}, overflow), "workspace.mlm_in"},
        {&w.mlm_hidden, product({R, d}, overflow), "workspace.mlm_hidden"},
        {&w.attention, attention_floats, "workspace.attention"},
        {&w.step_self, n_dec ? product({B, h, Lt}, overflow) : 0, "workspace.step_self"},
        {&w.step_cross, n_dec ? product({B, h, Ls}, overflow) : 0, "workspace.step_cross"},
        {&w.causal_mask, causal ? product({Ls, Ls}, overflow) : 0, "workspace.causal_mask"},
        {&w.cache_bias, product({B, Lc}, overflow), "workspace.cache_bias"},
        {&w.step_maps, product({n_enc_layers, B, h, Lc}, overflow), "workspace.step_maps"},
        {&w.sample_probs, sample_vocab, "workspace.sample_probs"},
    };
    plan_caches(n_dec, n_enc_layers, rows_src, rows_tgt, product({B, Lc, d}, overflow), d, w, plan, overflow);
    return plan;
}

// Total floats of the plan, or 0 with *overflow set beyond what simdformer allows.
size_t plan_total(const std::vector<BufferPlan>& plan, bool* overflow) {
    size_t total = 0;
    for (const BufferPlan& p : plan) {
        if (total > kMaxBufferFloats * 2 || p.floats > kMaxBufferFloats) *overflow = true;
        total = sum(total, p.floats, overflow);
    }
    if (total > kMaxBufferFloats * 2) *overflow = true;
    return *overflow ? 0 : total;
}

}  // namespace

Result<Workspace> Model::make_workspace(const WorkspaceLimits& requested) const {
    if (requested.max_batch == 0) return Status::invalid("workspace: max_batch must be at least 1");
    Workspace ws;
    WorkspaceImpl& w = *ws.impl_;
    bool overflow = false;
    size_workspace(*impl_, requested, w, &overflow);
    const auto too_large = [&] {
        return Status::oom("workspace for max_batch=" + std::to_string(requested.max_batch) + ", max lengths " +
                           std::to_string(w.max_src) + "/" + std::to_string(w.max_tgt) +
                           " would need more memory than simdformer allows (" +
                           std::to_string(uint64_t{kMaxBufferFloats} * 2 * sizeof(float) >> 20) + " MiB)");
    };
    if (overflow) return too_large();
    const std::vector<BufferPlan> plan = plan_buffers(*impl_, w, &overflow);
    const size_t total = plan_total(plan, &overflow);
    if (overflow) return too_large();
    for (const BufferPlan& p : plan) {
        SF_ASSIGN_OR_RETURN(*p.buffer, Buffer::zeros(p.floats, p.what));
    }
    w.bytes = total * sizeof(float);
    const size_t B = requested.max_batch, n_dec = impl_->decoder.size();
    const bool text_decoding = impl_->causal_text() && requested.max_context > 0;
    if (n_dec) {
        w.generated.assign(B * w.max_tgt, 0);
        w.memory_padding.assign(B * w.max_src, 0);
    }
    if (n_dec || text_decoding) {
        w.step_tokens.assign(B, 0);
        w.finished.assign(B, 0);
        w.sample_order.assign(w.sample_probs.size(), 0);
    }
    if (text_decoding) {
        w.next_input.assign(B, 0);
        w.next_position.assign(B, 0);
        w.step_maps_view.assign(impl_->encoder.size(), AttentionMap{});
    }
    if (impl_->text) w.position_ids.assign(B * w.max_src, 0);
    w.encoder_maps.assign(impl_->encoder.size() + (impl_->mha ? 1 : 0), AttentionMap{});
    w.decoder_self_maps.assign(n_dec, AttentionMap{});
    w.decoder_cross_maps.assign(n_dec, AttentionMap{});
    return ws;
}

}  // namespace simdformer

namespace simdformer {
namespace {

bool fits(const WorkspaceLimits& have, const WorkspaceLimits& want) {
    return have.max_batch >= want.max_batch && have.max_src_len >= want.max_src_len &&
           have.max_tgt_len >= want.max_tgt_len && (have.record_attention || !want.record_attention) &&
           have.max_logits_rows >= want.max_logits_rows && have.max_context >= want.max_context;
}

WorkspaceLimits union_of(const WorkspaceLimits& a, const WorkspaceLimits& b) {
    WorkspaceLimits u;
    u.max_batch = std::max(a.max_batch, b.max_batch);
    u.max_src_len = std::max(a.max_src_len, b.max_src_len);
    u.max_tgt_len = std::max(a.max_tgt_len, b.max_tgt_len);
    u.record_attention = a.record_attention || b.record_attention;
    u.max_logits_rows = std::max(a.max_logits_rows, b.max_logits_rows);
    u.max_context = std::max(a.max_context, b.max_context);
    return u;
}

}  // namespace

WorkspaceLimits workspace_limits(const TextRequest& r) {
    WorkspaceLimits limits;
    limits.max_batch = r.n_batch;
    limits.max_src_len = r.n_seq;
    limits.max_tgt_len = 1;
    limits.record_attention = r.need_weights;
    limits.max_logits_rows = r.n_logits_rows;
    return limits;
}

Result<WorkspaceLimits> workspace_limits(const DecodeRequest& r) {
    // Cache positions per item: the prompt and every new token, each count below 2^32.
    constexpr uint64_t kMaxContext = (uint64_t{1} << 32) - 1;
    const uint64_t context = uint64_t(r.n_seq) + uint64_t(r.max_new_tokens);
    if (r.n_seq > kMaxContext || r.max_new_tokens > kMaxContext || context > kMaxContext)
        return Status::invalid("nSeq + maxNewTokens = " + std::to_string(context) + " exceeds " + std::to_string(kMaxContext));
    WorkspaceLimits limits;
    limits.max_batch = r.n_batch;
    limits.max_src_len = std::max<size_t>(r.n_seq, 1);
    limits.max_tgt_len = 1;
    limits.record_attention = false;
    limits.max_context = size_t(context);
    return limits;
}

Status Model::ensure_workspace(std::optional<Workspace>* ws, const WorkspaceLimits& want) const {
    if (*ws && fits((*ws)->limits(), want)) return Status::ok();
    const WorkspaceLimits grown = *ws ? union_of((*ws)->limits(), want) : want;
    ws->reset();
    SF_ASSIGN_OR_RETURN(*ws, make_workspace(grown));
    return Status::ok();
}

}  // namespace simdformer
