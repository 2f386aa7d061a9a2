#include "simdformer/model/runner.h"

#include <atomic>

namespace simdformer::detail {
namespace {

uint64_t next_runner_id() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1);
}

}  // namespace

Runner::Runner() : id_(next_runner_id()) {}

Status Runner::check_owner(const WorkspaceImpl& ws) const {
    if (ws.runner_id != id_) return Status::invalid("workspace was made for another model");
    return Status::ok();
}

void Runner::adopt(WorkspaceImpl& ws, const WorkspaceLimits& resolved) const {
    ws.runner_id = id_;
    ws.limits = resolved;
}

Status Runner::forward(const ForwardRequest&, WorkspaceImpl&) const {
    return Status::invalid("forward runs the nn.Transformer dialect's modules; this model takes forward_text");
}

Status Runner::forward_text(const TextRequest&, WorkspaceImpl&) const {
    return Status::invalid("forward_text needs a Hugging Face text model (bert, roberta, distilbert, gpt2)");
}

Status Runner::generate_begin(const GenerateRequest&, WorkspaceImpl&) const {
    return Status::invalid("generate needs a transformer with token embeddings and a generator");
}

Status Runner::decode_begin(const DecodeRequest&, WorkspaceImpl&) const {
    return Status::invalid("decode_begin needs a causal language model with an LM head (gpt2); use generate_begin for "
                           "encoder-decoder transformers");
}

Status Runner::decode_step(WorkspaceImpl&) const { return Status::ok(); }

Status Runner::generate_finish(WorkspaceImpl&) const {
    return Status::invalid("generate_finish: no generate_begin in progress");
}

}  // namespace simdformer::detail
