#include "simdformer/model/layer_buffers.h"

#include <algorithm>

#include "simdformer/runtime/thread_pool.h"

namespace simdformer::detail {

void LayerBuffers::plan(const ModelConfig& c, size_t rows, size_t L, BufferPlan& p) {
    const size_t d = c.d_model;
    // pack_floats() multiplies unchecked: d_head x (L rounded up to a GEMM panel) must fit.
    (void)p.product({c.d_head() + 1, L + 64});
    slots = std::max<size_t>(1, runtime::threads());
    scores_floats = p.product({L, L});
    pack_floats = p.too_large() ? 0 : MultiHeadAttention::pack_floats(c, L);
    add_floats = p.product({L, c.additive_dim});
    const size_t qw = c.q_width(), kvw = c.kv_width();  // d, but for a rotary decoder's heads
    q_floats = p.product({rows, qw});
    kv_floats = p.product({rows, kvw});
    p.add(&qkv, p.sum(q_floats, p.sum(kv_floats, kv_floats)), "workspace.qkv");
    p.add(&context, p.product({rows, qw}), "workspace.context");
    p.add(&s1, p.product({rows, d}), "workspace.s1");
    p.add(&s2, p.product({rows, d}), "workspace.s2");
    p.add(&hidden, p.product({rows, c.dim_feedforward, c.gated_feed_forward ? 2u : 1u}), "workspace.hidden");
    p.add(&scores, p.product({slots, scores_floats}), "workspace.scores");
    p.add(&pack, p.product({slots, pack_floats}), "workspace.pack");
    p.add(&add_q, p.product({slots, add_floats}), "workspace.add_q");
    p.add(&add_k, p.product({slots, add_floats}), "workspace.add_k");
}

LayerScratch LayerBuffers::scratch() {
    LayerScratch s;
    s.qkv = qkv.data();
    s.q = s.qkv;
    s.k = s.q + q_floats;
    s.v = s.k + kv_floats;
    s.context = context.data();
    s.s1 = s1.data();
    s.s2 = s2.data();
    s.hidden = hidden.data();
    s.attention.scores = scores.data();
    s.attention.pack = pack.data();
    s.attention.add_q = add_q.data();
    s.attention.add_k = add_k.data();
    s.attention.slots = slots;
    s.attention.scores_stride = scores_floats;
    s.attention.pack_stride = pack_floats;
    s.attention.add_q_stride = add_floats;
    s.attention.add_k_stride = add_floats;
    return s;
}

}  // namespace simdformer::detail
