// Model: the public face of every family. It holds one runner (model/runner.h) and hands it each
// call with the workspace the runner made; what a call means is the runner's business.
#include "simdformer/arch/torch.h"
#include "simdformer/model/families.h"
#include "simdformer/model/model_state.h"

namespace simdformer {

Model::Model() : impl_(std::make_unique<detail::ModelImpl>()) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const ModelConfig& Model::config() const { return impl_->runner->shape(); }
size_t Model::parameter_count() const { return impl_->runner->parameters(); }

Result<Model> Model::load(WeightReader& reader, const ModelConfig& config) {
    SF_RETURN_IF_ERROR(config.validate().with_context("config"));
    const RunnerSpec spec{TorchSpec{config, torch_stack_names(config, reader), ""}};
    Model model;
    SF_ASSIGN_OR_RETURN(model.impl_->runner, detail::load_runner(Family::kTorchStack, spec, reader));
    return model;
}

Result<Workspace> Model::make_workspace(const WorkspaceLimits& limits) const {
    if (limits.max_batch == 0) return Status::invalid("workspace: max_batch must be at least 1");
    Workspace ws;
    SF_ASSIGN_OR_RETURN(ws.impl_, impl_->runner->make_workspace(limits, /*allocate=*/true));
    return ws;
}

Status Model::forward(const ForwardRequest& request, Workspace& ws) const {
    return impl_->runner->forward(request, *ws.impl_);
}

Status Model::forward_text(const TextRequest& request, Workspace& ws) const {
    return impl_->runner->forward_text(request, *ws.impl_);
}

Status Model::generate_begin(const GenerateRequest& request, Workspace& ws) const {
    return impl_->runner->generate_begin(request, *ws.impl_);
}

Status Model::decode_begin(const DecodeRequest& request, Workspace& ws) const {
    return impl_->runner->decode_begin(request, *ws.impl_);
}

Status Model::decode_step(Workspace& workspace) const {
    detail::WorkspaceImpl& ws = *workspace.impl_;
    if (!ws.decoding.active) return Status::invalid("decode_step: no decode_begin or generate_begin in progress");
    if (ws.decoding.done) return Status::invalid("decode_step: decoding is done (every item ended or the step budget is used)");
    SF_RETURN_IF_ERROR(impl_->runner->check_owner(ws));
    return impl_->runner->decode_step(ws);
}

Status Model::generate_finish(Workspace& ws) const { return impl_->runner->generate_finish(*ws.impl_); }

Status Model::generate(const GenerateRequest& r, Workspace& workspace) const {
    SF_RETURN_IF_ERROR(generate_begin(r, workspace));
    const detail::Decoding& st = workspace.impl_->decoding;
    while (!st.done) {
        SF_RETURN_IF_ERROR(decode_step(workspace));
        if (r.on_step) r.on_step(r.on_step_user, st.steps, st.max_steps);
    }
    return generate_finish(workspace);
}

}  // namespace simdformer
