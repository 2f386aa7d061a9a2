// The CausalLm runner, cold part: loading from its spec, info_json's keys and the workspace plan
// (compiled for size in wasm: src/CMakeLists.txt).
#include "simdformer/model/causal_lm.h"

namespace simdformer::detail {

Result<std::unique_ptr<Runner>> CausalLm::load(const RunnerSpec& any, WeightReader& r) {
    const TextSpec* spec = std::get_if<TextSpec>(&any);
    if (!spec) return Status::invalid("a causal language model needs a text spec");
    ModelConfig shape;
    SF_ASSIGN_OR_RETURN(TextStack stack, TextStack::load(*spec, r, &shape));
    std::unique_ptr<CausalLm> m(new CausalLm(std::move(stack)));
    m->shape_ = shape;
    const TextConfig& t = spec->config;
    m->has_lm_head_ = spec->names.has_lm_head;
    if (m->has_lm_head_ && !spec->names.lm_head_weight.empty()) {  // untied: its own [vocab, d]
        SF_ASSIGN_OR_RETURN(Linear head, Linear::load(r, LinearRef{spec->names.lm_head_weight, ""}, t.d_model,
                                                      t.vocab_size));
        m->lm_head_ = std::move(head);
    }
    m->unused_tensors_ = accept_unused(r, spec->names);
    m->parameters_ = r.elements_taken();
    return std::unique_ptr<Runner>(std::move(m));
}

nlohmann::json CausalLm::info() const {
    nlohmann::json info = stack_.info();
    info["has_pooler"] = false;
    info["has_mlm_head"] = false;
    info["has_lm_head"] = has_lm_head_;
    info["has_classifier"] = false;  // the keys of TextEncoder's classifier, absent here
    info["num_labels"] = nullptr;
    info["labels"] = nullptr;
    info["problem_type"] = nullptr;
    info["has_token_classifier"] = false;
    info["has_qa_head"] = false;
    info["unused_tensors"] = unused_tensors_;
    return info;
}

// A forward_text's buffers, the causal mask, and for decoding (max_context > 0) the caches, the
// padding bias of every cached key, each step's maps and logits [B, vocab].
void CausalLm::plan(CausalLmWorkspace& w, BufferPlan& p) const {
    const size_t vocab = stack_.config.vocab_size, kvw = shape_.kv_width(), h = shape_.nhead;
    const size_t B = w.limits.max_batch, Lc = w.max_context, n_layers = stack_.layers.size();
    stack_.plan(shape_, vocab, w, p);
    p.add(&w.logits, std::max(p.product({w.limits.max_logits_rows, vocab}), p.product({Lc ? B : 0, vocab})),
          "workspace.logits");
    p.add(&w.causal_mask, p.product({w.max_len, w.max_len}), "workspace.causal_mask");
    // A whole sequence's windowed mask, or one decoding step's row over the cache.
    const size_t window_floats = std::max(p.product({w.max_len, w.max_len}), Lc);
    p.add(&w.window_mask, stack_.config.sliding_window ? window_floats : 0, "workspace.window_mask");
    p.add(&w.cache_bias, p.product({B, Lc}), "workspace.cache_bias");
    p.add(&w.step_maps_data, p.product({n_layers, B, h, Lc}), "workspace.step_maps");
    if (Lc == 0) return;
    w.decoding.plan(vocab, p);
    w.cache_k.resize(n_layers);
    w.cache_v.resize(n_layers);
    for (size_t i = 0; i < n_layers; ++i) {
        // Only the key/value heads: grouped-query attention shrinks the cache by nhead / n_kv.
        p.add(&w.cache_k[i], p.product({B, Lc, kvw}), "workspace.cache_k");
        p.add(&w.cache_v[i], p.product({B, Lc, kvw}), "workspace.cache_v");
    }
}

Result<std::unique_ptr<WorkspaceImpl>> CausalLm::make_workspace(const WorkspaceLimits& requested, bool allocate) const {
    auto w = std::make_unique<CausalLmWorkspace>();
    adopt(*w, text_limits(requested, stack_.config));
    w->max_len = w->limits.max_src_len;
    w->max_context = w->limits.max_context;
    BufferPlan p;
    plan(*w, p);
    if (p.too_large()) return workspace_too_large(w->limits);
    w->bytes = p.total_floats() * sizeof(float);
    if (!allocate) return std::unique_ptr<WorkspaceImpl>(std::move(w));
    SF_RETURN_IF_ERROR(p.allocate());
    stack_.size_vectors(*w);
    if (w->max_context > 0) {
        const size_t B = w->limits.max_batch;
        w->decoding.size_vectors(B);
        w->next_input.assign(B, 0);
        w->next_position.assign(B, 0);
        w->step_maps.assign(stack_.layers.size(), AttentionMap{});
    }
    return std::unique_ptr<WorkspaceImpl>(std::move(w));
}

}  // namespace simdformer::detail
