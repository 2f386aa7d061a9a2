// The scratch every layer stack runs on (layers/layer_scratch.h): projections, sub-block outputs,
// the feed-forward's hidden rows and the per-thread attention scratch, sized for `rows` tokens and
// keys sequences of up to `max_keys` positions. Every family's workspace has one.
#pragma once

#include "simdformer/config.h"
#include "simdformer/layers/layer_scratch.h"
#include "simdformer/model/buffer_plan.h"

namespace simdformer::detail {

struct LayerBuffers {
    Buffer qkv;                        // [rows, q_width + 2 kv_width]
    Buffer context, s1, s2;            // [rows, d_model]
    Buffer hidden;                     // [rows, dim_feedforward]
    Buffer scores, pack, add_q, add_k;  // attention scratch: `slots` copies, one per thread running heads
    size_t slots = 1;
    size_t scores_floats = 0, pack_floats = 0, add_floats = 0;  // floats of one copy
    size_t q_floats = 0, kv_floats = 0;  // qkv as separate q, k, v: rows * q_width, rows * kv_width

    // One copy of the attention scratch per thread that may run heads (threads at creation time:
    // a workspace made before set_threads(n) runs heads on at most its own number of copies).
    void plan(const ModelConfig& shape, size_t rows, size_t max_keys, BufferPlan& plan);
    LayerScratch scratch();
};

}  // namespace simdformer::detail
