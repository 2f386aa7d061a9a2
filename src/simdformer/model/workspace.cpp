// Workspace: the public face of a family's workspace (model/workspace_impl.h), the state every
// workspace shares, and the sizing policy of callers that keep one workspace across calls.
#include <algorithm>

#include "simdformer/kernels/kernels.h"
#include "simdformer/model/model_state.h"

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
        return Status::invalid("n_batch=" + std::to_string(n_batch) + " exceeds the workspace's max_batch=" +
                               std::to_string(ws.limits.max_batch));
    if (need_weights && ws.attention.empty())
        return Status::invalid("attention weights requested, but the workspace was made with record_attention=false");
    return Status::ok();
}

Status workspace_too_large(const WorkspaceLimits& limits) {
    return Status::oom("workspace for max_batch=" + std::to_string(limits.max_batch) + ", max lengths " +
                       std::to_string(limits.max_src_len) + "/" + std::to_string(limits.max_tgt_len) +
                       " would need more memory than simdformer allows (" +
                       std::to_string(uint64_t{kMaxBufferFloats} * 2 * sizeof(float) >> 20) + " MiB)");
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

// A kept workspace serves a call it fits unless it is more than kKeepFactor times what the call
// needs; it grows to the union of the old and the new call only when that costs at most
// kGrowFactor times the new call alone. So calls of similar sizes share one workspace, and one
// large call never makes every later call pay for it, nor do many calls of different shapes add
// up to the product of their maxima.
constexpr size_t kKeepFactor = 4, kGrowFactor = 2;

}  // namespace

Status Model::ensure_workspace(std::optional<Workspace>* ws, const WorkspaceLimits& want) const {
    const detail::Runner& runner = *impl_->runner;
    auto planned = want.max_batch == 0 ? Result<std::unique_ptr<detail::WorkspaceImpl>>(
                                             Status::invalid("workspace: max_batch must be at least 1"))
                                       : runner.make_workspace(want, /*allocate=*/false);
    if (!planned.is_ok()) {
        ws->reset();
        return planned.status();
    }
    const WorkspaceLimits wanted = planned.value()->limits;  // zeros resolved to the family's defaults
    const size_t need = planned.value()->bytes;
    if (*ws && runner.check_owner(*(*ws)->impl_).is_ok() && fits((*ws)->limits(), wanted)) {
        // Decoding state lives in the workspace: a call between steps that fits never drops it.
        if ((*ws)->decoding() || (*ws)->bytes() / kKeepFactor <= need) return Status::ok();
    }
    WorkspaceLimits next = wanted;
    if (*ws) {
        const WorkspaceLimits grown = union_of((*ws)->limits(), wanted);
        const auto grown_plan = runner.make_workspace(grown, /*allocate=*/false);
        if (grown_plan.is_ok() && grown_plan.value()->bytes / kGrowFactor <= need) next = grown;
    }
    ws->reset();  // the old workspace is freed first: the new one may need its memory
    SF_ASSIGN_OR_RETURN(*ws, make_workspace(next));
    return Status::ok();
}

}  // namespace simdformer
