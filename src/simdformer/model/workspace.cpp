// Workspace: the public face of a family's workspace (model/workspace_impl.h), and the state
// every workspace shares.
#include "simdformer/kernels/kernels.h"
#include "simdformer/model/workspace_impl.h"

namespace simdformer {

namespace detail {

void WorkspaceImpl::start_call() {
    for (auto* maps : {&encoder_maps, &decoder_self_maps, &decoder_cross_maps})
        for (AttentionMap& m : *maps) m = AttentionMap{};
    output = nullptr;
    output_rows = 0;
    logits_out = nullptr;
    logits_cols = 0;
    pooler_out = nullptr;
    classifier_out = nullptr;
    token_logits_out = nullptr;
    generated = nullptr;
    generated_length = 0;
}

float* WorkspaceImpl::record(std::vector<AttentionMap>& maps, size_t layer, float* slot, size_t n_batch,
                             size_t nhead, size_t n_seq_q, size_t n_seq_k, bool need_weights) {
    if (!need_weights || attention.empty()) return nullptr;
    maps[layer] = AttentionMap{slot, n_batch, nhead, n_seq_q, n_seq_k};
    return slot;
}

Status check_batch(const WorkspaceImpl& ws, size_t n_batch, bool need_weights) {
    if (n_batch == 0) return Status::invalid("n_batch must be at least 1");
    if (n_batch > ws.limits.max_batch)
        return Status::invalid(cat({"n_batch=", n_batch, " exceeds the workspace's max_batch=",
                                    ws.limits.max_batch}));
    if (need_weights && ws.attention.empty())
        return Status::invalid("attention weights requested, but the workspace was made with record_attention=false");
    return Status::ok();
}

Status workspace_too_large(const WorkspaceLimits& limits) {
    return Status::oom(cat({"workspace for max_batch=", limits.max_batch, ", max lengths ",
                            limits.max_src_len, "/", limits.max_tgt_len,
                            " would need more memory than simdformer allows (",
                            uint64_t{kMaxBufferFloats} * 2 * sizeof(float) >> 20, " MiB)"}));
}

}  // namespace detail

void average_heads(const AttentionMap& m, float* out) {
    const size_t plane = m.n_seq_q * m.n_seq_k;
    for (size_t b = 0; b < m.n_batch; ++b) {
        float* o = out + b * plane;
        for (size_t i = 0; i < plane; ++i) o[i] = 0.0f;
        for (size_t h = 0; h < m.nhead; ++h) kernels::add_f32(plane, o, m.data + (b * m.nhead + h) * plane, o);
        kernels::scale_f32(plane, 1.0f / float(m.nhead), o, o);
    }
}

Workspace::Workspace() : impl_(std::make_unique<detail::WorkspaceImpl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

const float* Workspace::output() const { return impl_->output; }
size_t Workspace::output_rows() const { return impl_->output_rows; }
const float* Workspace::logits() const { return impl_->logits_out; }
const float* Workspace::pooler() const { return impl_->pooler_out; }
const float* Workspace::classifier_logits() const { return impl_->classifier_out; }
const float* Workspace::token_logits() const { return impl_->token_logits_out; }
size_t Workspace::logits_cols() const { return impl_->logits_cols; }
const int32_t* Workspace::generated() const { return impl_->generated; }
size_t Workspace::generated_length() const { return impl_->generated_length; }
const std::vector<AttentionMap>& Workspace::encoder_attention() const { return impl_->encoder_maps; }
const std::vector<AttentionMap>& Workspace::decoder_self_attention() const { return impl_->decoder_self_maps; }
const std::vector<AttentionMap>& Workspace::decoder_cross_attention() const { return impl_->decoder_cross_maps; }
const WorkspaceLimits& Workspace::limits() const { return impl_->limits; }
size_t Workspace::bytes() const { return impl_->bytes; }

bool Workspace::decoding() const { return impl_->decoding.active; }
bool Workspace::decode_done() const { return impl_->decoding.done; }
size_t Workspace::decode_steps() const { return impl_->decoding.steps; }
const int32_t* Workspace::step_tokens() const { return impl_->decoding.step_tokens.data(); }
const uint8_t* Workspace::step_finished() const { return impl_->decoding.finished.data(); }
const std::vector<AttentionMap>& Workspace::step_attention() const { return impl_->step_maps; }
void Workspace::end_decoding() { impl_->decoding.active = false; }

}  // namespace simdformer
