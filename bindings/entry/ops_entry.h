// The standalone operations JavaScript can call (a Linear layer, one attention, LayerNorm, the
// positional table, a safetensors description), as plain C++ like ModelEntry: every argument a
// JS number checked before use, every call guarded, 0 or an error code (reply_text()).
#pragma once

#include <string>

#include "args.h"
#include "simdformer/ops.h"

namespace simdformer::entry {

class LinearEntry {
public:
    // weight f32 [out_features, in_features] (nn.Linear), bias f32 [out_features] or 0.
    int create(Number weight, Number bias, Number in_features, Number out_features);
    // x f32 [rows, in_features] -> y f32 [rows, out_features]; x must hold finite values.
    int forward(Number x, Number rows, Number y) const;

private:
    LinearOp op_;
    size_t in_ = 0, out_ = 0;
};

int attention(const AttentionArgs& a);
// x, y f32 [rows, d]; gamma, beta f32 [d].
int layer_norm(Number rows, Number d, Number x, Number gamma, Number beta, Number eps, Number y);
// out f32 [n, d].
int positional_encoding(Number n, Number d, Number out);
// data [size] bytes of a safetensors file -> its description as JSON text in *json.
int describe_safetensors(Number data, Number size, std::string* json);

// The thread setting (simdformer/threads.h) from a JS number: an integer in [1, 64], else
// invalid_argument; what set_threads() refuses, with its code (unsupported in a build without
// threads, out_of_memory when a worker cannot start). The wasm module's and the addon's setThreads.
int set_thread_count(Number n);

}  // namespace simdformer::entry
