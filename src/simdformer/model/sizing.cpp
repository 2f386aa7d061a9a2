// The sizing policy of callers that keep one workspace per model across calls of every size (the
// JavaScript bindings): the limits one call needs (workspace_limits) and Model::ensure_workspace.
#include <algorithm>

#include "simdformer/model/model_state.h"

namespace simdformer {

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
        return Status::invalid(cat({"nSeq + maxNewTokens = ", context, " exceeds ", kMaxContext}));
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
