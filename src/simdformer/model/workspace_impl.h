// What every workspace holds, whichever family made it (a family's own workspace derives from
// this): the limits it was made for, the layer scratch, the recorded attention maps, decoding's
// shared state, and the results of the last call as views into its buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "simdformer/model.h"
#include "simdformer/model/decoding.h"
#include "simdformer/model/layer_buffers.h"

namespace simdformer::detail {

struct WorkspaceImpl {
    virtual ~WorkspaceImpl() = default;

    uint64_t runner_id = 0;  // the runner (model) that made it: a workspace serves that model only
    WorkspaceLimits limits;  // as the runner resolved them (no zeros left)
    size_t bytes = 0;

    LayerBuffers layers;
    Buffer attention;        // every recorded map, in slots the family lays out
    Decoding decoding;

    // The results of the last call.
    const float* output = nullptr;
    size_t output_rows = 0;
    const float* logits_out = nullptr;
    size_t logits_cols = 0;
    const float* pooler_out = nullptr;
    const float* classifier_out = nullptr;
    const float* token_logits_out = nullptr;
    const int32_t* generated = nullptr;
    size_t generated_length = 0;
    std::vector<AttentionMap> encoder_maps, decoder_self_maps, decoder_cross_maps;
    std::vector<AttentionMap> step_maps;  // causal decoding: the last step's maps per layer

    // Forgets the previous call's results and maps (every call starts here).
    void start_call();
    // Records map `layer` of the given shape in `slot` and returns the slot; null when not
    // recording (no weights asked, or a workspace made without record_attention).
    float* record(std::vector<AttentionMap>& maps, size_t layer, float* slot, size_t n_batch, size_t nhead,
                  size_t n_seq_q, size_t n_seq_k, bool need_weights);
};

// n_batch in [1, ws.limits.max_batch], and room for the maps when weights are asked for.
Status check_batch(const WorkspaceImpl& ws, size_t n_batch, bool need_weights);
// out_of_memory for limits whose workspace would pass simdformer's limits.
Status workspace_too_large(const WorkspaceLimits& limits);

}  // namespace simdformer::detail
