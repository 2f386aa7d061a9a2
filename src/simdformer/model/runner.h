// A runner: one family of models (arch/architecture.h) with its layers, its workspace plan, its
// forward pass and its decoding. Model holds exactly one runner and hands every call to it.
//
// An interface rather than a std::variant of the families: a family to come (a new decoder, an
// encoder with task heads) is one new class, and nothing that holds a runner lists the families.
// The cost is one virtual call per forward pass or decoding step, nothing per layer or token.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "simdformer/arch/architecture.h"
#include "simdformer/arch/spec.h"
#include "simdformer/io/weight_reader.h"
#include "simdformer/model/workspace_impl.h"

namespace simdformer::detail {

class Runner {
public:
    Runner();
    virtual ~Runner() = default;
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    virtual Family family() const = 0;
    // The layer-stack shape (Model::config()).
    const ModelConfig& shape() const { return shape_; }
    size_t parameters() const { return parameters_; }
    // The normalized config keys of Model::info_json() that depend on the family.
    virtual nlohmann::json info() const = 0;

    // A workspace for these limits (zeros resolved to the family's defaults), all buffers
    // allocated; with allocate = false only planned, so that bytes() tells what it would take.
    virtual Result<std::unique_ptr<WorkspaceImpl>> make_workspace(const WorkspaceLimits& limits,
                                                                  bool allocate) const = 0;

    // The calls. A family answers the ones it has; the others say which call fits this model.
    virtual Status forward(const ForwardRequest& request, WorkspaceImpl& ws) const;
    virtual Status forward_text(const TextRequest& request, WorkspaceImpl& ws) const;
    virtual Status generate_begin(const GenerateRequest& request, WorkspaceImpl& ws) const;
    virtual Status decode_begin(const DecodeRequest& request, WorkspaceImpl& ws) const;
    // One step of the decoding this runner began in `ws` (Model checked that one is under way);
    // an error when the step's logits choose no token (Decoding::choose_tokens).
    virtual Status decode_step(WorkspaceImpl& ws) const;
    virtual Status generate_finish(WorkspaceImpl& ws) const;

    // "workspace was made for another model" unless this runner made it: buffers are sized by
    // one model's shapes (d_ff, vocabulary, layers), so another model's workspace would not fit.
    Status check_owner(const WorkspaceImpl& ws) const;

protected:
    // Stamps a new workspace as this runner's and records the limits it was made for.
    void adopt(WorkspaceImpl& ws, const WorkspaceLimits& resolved) const;

    ModelConfig shape_;
    size_t parameters_ = 0;

private:
    uint64_t id_;
};

}  // namespace simdformer::detail
