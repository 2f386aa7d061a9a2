// ModelEntry: everything JavaScript can do with a model, as plain C++ (no Embind), so the same
// code runs in the wasm module, in the native tests and under the fuzzers (32- and 64-bit).
//
// Every call takes its arguments as JS numbers and texts (args.h), checks them completely
// (numbers.h), runs inside guarded() (reply.h) and returns 0 or an error code whose message is
// reply_text(). A failed call leaves the entry as it was, or with no workspace (the next call
// makes one): never half-changed. The results of the last call are read with the getters.
#pragma once

#include <optional>
#include <string>

#include "args.h"
#include "simdformer/simdformer.h"

namespace simdformer::entry {

// Reads bytes of a checkpoint shard for the loader: copies [offset, offset + n) of shard
// `shard` to dst. Returns false on failure (the caller keeps the reason: the JS wrapper
// rethrows its own error once the load has returned).
class ShardReader {
public:
    virtual ~ShardReader() = default;
    virtual bool read(size_t shard, uint64_t offset, size_t n, uint8_t* dst) = 0;
};

// Called after every decoding step of generate() (steps done, most steps possible).
using StepCallback = void (*)(void* user, size_t step, size_t max_steps);

// loadCheckpoint's callbacks as the binding found them, checked before a ShardReader is made of
// them: `read` must be a function, `progress` a function or absent (undefined or null). 0, or
// invalid_argument naming the callback (reply_text()): the wasm module's and the addon's message.
int check_load_callbacks(bool read_is_function, bool progress_given, bool progress_is_function);

class ModelEntry {
public:
    // The nn.Transformer dialect from safetensors bytes data [size]; config: JSON text, or empty
    // to read it from the file's metadata.
    int load(Number data, Number size, const TextArg& config);
    // A checkpoint (the loadCheckpoint contract of DESIGN.md): config.json text, the shards as
    // JSON text [{"name": "model.safetensors", "size": 123}, ...], the index text (or empty),
    // load options JSON text (or empty). Bytes are pulled through `reader`; progress(user,
    // loaded, total) returning false cancels.
    int load_checkpoint(const TextArg& config, const TextArg& shards, const TextArg& index, ShardReader& reader,
                        LoadProgress progress, void* progress_user, const TextArg& options);

    // The workspace fits at least these limits afterwards (grown to the union of every request).
    int reserve(Number max_batch, Number max_src, Number max_tgt, Number record_attention);
    int forward(const ForwardArgs& a);
    int generate(const GenerateArgs& a, StepCallback on_step, void* user);
    int forward_text(const TextArgs& a);  // makes or grows the workspace as the call needs

    // Stepwise decoding, driven by the caller (Model::decode_begin etc.): generate_begin (a
    // transformer, after reserve()) or decode_begin (a causal text model: sizes the workspace for
    // the prompt and its new tokens), then decode_step until decode_done(), then (transformers)
    // generate_finish, and always decode_end. C++ never calls back while a step runs. While a
    // decoding is in progress every other call that would reuse the workspace fails with code
    // busy (a failed begin leaves no decoding in progress).
    int generate_begin(const GenerateArgs& a);
    int decode_begin(const DecodeArgs& a);
    int decode_step();
    int generate_finish();
    void decode_end();
    bool decode_done() const { return ws_ && ws_->decoding() && ws_->decode_done(); }
    double decode_steps() const { return ws_ ? double(ws_->decode_steps()) : 0.0; }
    // The last step's attention of `layer` ([n_batch, nhead, 1, context]); null when absent.
    const AttentionMap* step_attention(Number layer) const;

    bool loaded() const { return model_.has_value(); }
    // JSON texts (the model's normalized info, or its nn.Transformer config) into *out.
    int info_json(std::string* out) const;
    int config_json(std::string* out) const;
    double parameter_count() const { return model_ ? double(model_->parameter_count()) : 0.0; }

    // Results of the last call (0 / null when there are none).
    const Workspace* workspace() const { return ws_ ? &*ws_ : nullptr; }
    double workspace_bytes() const { return ws_ ? double(ws_->bytes()) : 0.0; }
    // kind: 0 encoder (or multihead_attention), 1 decoder self, 2 decoder cross; null when absent.
    const AttentionMap* attention(Number kind, Number layer) const;

private:
    // busy while a decoding is in progress: `what` would reuse (or re-create) its workspace.
    Status idle(const char* what) const;
    Status check_generate(const GenerateArgs& a, GenerateRequest* r) const;
    Status check_sequence_arrays(const SequenceArgs& s, const char* side, size_t n_batch, size_t n_keys,
                                 SequenceInput* out) const;

    std::optional<Model> model_;
    std::optional<Workspace> ws_;
};

}  // namespace simdformer::entry
