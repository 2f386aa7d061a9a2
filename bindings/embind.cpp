// Embind glue: converts JavaScript values to the entry points' arguments and their replies back,
// nothing more. The entry points (bindings/entry/) hold all the logic as plain C++, tested
// natively and fuzzed in 32- and 64-bit builds.
//
// Three rules keep the boundary safe, whatever JavaScript passes and however full the heap is:
//  - No C++ integer or std::string crosses: Embind would truncate a number modulo 2^32 and
//    convert strings and objects through mallocs it never checks. Every argument arrives as a
//    `val` (or a double) and becomes a Number (NaN when it is not a number) or a TextArg (bytes
//    the JS wrapper put in memory with a checked malloc); the entry points check the rest.
//  - Nothing here allocates wasm memory: replies are JS strings made from a fixed buffer, objects
//    are built on the JS side (val), handles are made with new (std::nothrow).
//  - Callbacks into JavaScript must not throw (a JS exception would unwind through C++ frames
//    without running their destructors): the JS wrappers catch everything and report through
//    their return value.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <string>

#include "entry/model_entry.h"
#include "entry/ops_entry.h"
#include "entry/reply.h"
#include "counted_malloc.h"

using emscripten::val;

namespace simdformer::bindings {
namespace {

using entry::Number;
using entry::TextArg;

constexpr double kNaN = NAN;

// A JS number as is; anything else (a string, a BigInt, undefined) as NaN, which every check
// rejects naming the argument.
Number number_of(const val& v) { return v.isNumber() ? v.as<double>() : kNaN; }
// true -> 1, false -> 0, anything else (1, 'true') -> NaN (rejected: "must be true or false").
Number flag_of(const val& v) { return v.isTrue() ? 1.0 : v.isFalse() ? 0.0 : kNaN; }

bool is_function(const val& v) { return v.typeOf().strictlyEquals(val("function")); }
bool is_object(const val& v) { return !v.isNull() && v.typeOf().strictlyEquals(val("object")); }

// A property of an argument object (undefined when `o` is not an object).
val field(const val& o, const char* key) { return is_object(o) ? o[key] : val::undefined(); }
Number num(const val& o, const char* key) { return number_of(field(o, key)); }
Number flag(const val& o, const char* key) { return flag_of(field(o, key)); }
// {ptr, length} of UTF-8 bytes in wasm memory.
TextArg text_of(const val& t) { return TextArg{num(t, "ptr"), num(t, "length")}; }
TextArg text(const val& o, const char* key) { return text_of(field(o, key)); }

// "" on success, else "<status code>\t<message>".
val reply(int code) { return val(code == 0 ? "" : entry::reply_text()); }
// A JSON text on success, else the error reply (the JS wrapper tells them apart by the '{').
val json_reply(int code, const std::string& json) { return code == 0 ? val(json.c_str()) : reply(code); }

// Argument objects read by their tables (entry/args.h): each field by its JS name and kind; a
// missing field reads as undefined (NaN, an empty text), which the checks reject or default.
entry::SequenceArgs read_sequence(const val& o, const char* key);
Number read_number(const val& o, const char* key) { return num(o, key); }
Number read_flag(const val& o, const char* key) { return flag(o, key); }
TextArg read_text(const val& o, const char* key) { return text(o, key); }
#define SF_READ_ARG(kind, member, js, init) a.member = read_##kind(o, #js);
#define SF_READ_ARGS(Args, table)  \
    Args read_##Args(const val& o) { \
        entry::Args a;               \
        table(SF_READ_ARG)           \
        return a;                    \
    }
entry::SequenceArgs read_sequence(const val& parent, const char* key) {
    const val o = field(parent, key);
    entry::SequenceArgs a;
    SF_SEQUENCE_ARGS(SF_READ_ARG)
    return a;
}
using entry::AttentionArgs;
using entry::DecodeArgs;
using entry::ForwardArgs;
using entry::GenerateArgs;
using entry::TextArgs;
SF_READ_ARGS(ForwardArgs, SF_FORWARD_ARGS)
SF_READ_ARGS(GenerateArgs, SF_GENERATE_ARGS)
SF_READ_ARGS(TextArgs, SF_TEXT_ARGS)
SF_READ_ARGS(DecodeArgs, SF_DECODE_ARGS)
SF_READ_ARGS(AttentionArgs, SF_ATTENTION_ARGS)
#undef SF_READ_ARGS
#undef SF_READ_ARG

// Reads checkpoint bytes through read(shard, offset, length, destPtr) -> true | false.
class JsShardReader : public entry::ShardReader {
public:
    explicit JsShardReader(const val& read) : read_(read) {}
    bool read(size_t shard, uint64_t offset, size_t n, uint8_t* dst) override {
        return read_(double(shard), double(offset), double(n), double(uintptr_t(dst))).isTrue();
    }

private:
    const val& read_;
};

// progress(loaded, total); returning false (exactly) cancels the load.
bool call_progress(void* user, uint64_t loaded, uint64_t total) {
    return !(*static_cast<val*>(user))(double(loaded), double(total)).isFalse();
}

class ModelHandle {
public:
    val load(val data, val size, val config) {
        return reply(e_.load(number_of(data), number_of(size), text_of(config)));
    }

    // loadCheckpoint(config, shards, index, read, progress, options): texts as {ptr, length}.
    val load_checkpoint(val config, val shards, val index, val read, val progress, val options) {
        const bool has_progress = !progress.isUndefined() && !progress.isNull();
        if (const int code = entry::check_load_callbacks(is_function(read), has_progress, is_function(progress)))
            return reply(code);
        JsShardReader reader(read);
        return reply(e_.load_checkpoint(text_of(config), text_of(shards), text_of(index), reader,
                                        has_progress ? call_progress : nullptr, &progress, text_of(options)));
    }

    val info_json() const {
        std::string json;
        const int code = e_.info_json(&json);
        return json_reply(code, json);
    }
    val config_json() const {
        std::string json;
        const int code = e_.config_json(&json);
        return json_reply(code, json);
    }
    double parameter_count() const { return e_.parameter_count(); }

    val reserve(val max_batch, val max_src, val max_tgt, val record) {
        return reply(e_.reserve(number_of(max_batch), number_of(max_src), number_of(max_tgt), flag_of(record)));
    }

    val forward(val o) { return reply(e_.forward(read_ForwardArgs(o))); }

    // Decoding is driven from JavaScript one step at a time (generateBegin or decodeBegin, then
    // decodeStep until decodeDone, then generateFinish for transformers, always decodeEnd): C++
    // never calls back into JavaScript while a step runs.
    val generate_begin(val o) { return reply(e_.generate_begin(read_GenerateArgs(o))); }

    val decode_begin(val o) { return reply(e_.decode_begin(read_DecodeArgs(o))); }

    val decode_step() { return reply(e_.decode_step()); }
    val generate_finish() { return reply(e_.generate_finish()); }
    void decode_end() { e_.decode_end(); }
    bool decode_done() const { return e_.decode_done(); }
    double decode_steps() const { return e_.decode_steps(); }
    double step_tokens() const { return ws() ? double(uintptr_t(ws()->step_tokens())) : 0; }      // i32 [nBatch]
    double step_finished() const { return ws() ? double(uintptr_t(ws()->step_finished())) : 0; }  // u8 [nBatch]
    // The last step's attention of a layer: {ptr, nBatch, nhead, nSeqK}, [nBatch, nhead, nSeqK].
    val step_attention(val layer) const {
        const AttentionMap* m = e_.step_attention(number_of(layer));
        if (!m) return val::null();
        val o = val::object();
        o.set("ptr", double(uintptr_t(m->data)));
        o.set("nBatch", double(m->n_batch));
        o.set("nhead", double(m->nhead));
        o.set("nSeqK", double(m->n_seq_k));
        return o;
    }

    val forward_text(val o) { return reply(e_.forward_text(read_TextArgs(o))); }

    // Results of the last call, as addresses and counts (0 when absent).
    double output() const { return ws() ? double(uintptr_t(ws()->output())) : 0; }
    double output_rows() const { return ws() ? double(ws()->output_rows()) : 0; }
    double logits() const { return ws() ? double(uintptr_t(ws()->logits())) : 0; }
    double logits_cols() const { return ws() ? double(ws()->logits_cols()) : 0; }
    double pooler() const { return ws() ? double(uintptr_t(ws()->pooler())) : 0; }
    // [nBatch, num_labels] of the last forwardText with needClassifier.
    double classifier_logits() const { return ws() ? double(uintptr_t(ws()->classifier_logits())) : 0; }
    // [nBatch * nSeq, num_labels or 2] of the last forwardText with needTokenLogits.
    double token_logits() const { return ws() ? double(uintptr_t(ws()->token_logits())) : 0; }
    double generated() const { return ws() ? double(uintptr_t(ws()->generated())) : 0; }
    double generated_length() const { return ws() ? double(ws()->generated_length()) : 0; }
    double workspace_bytes() const { return e_.workspace_bytes(); }

    // kind: 0 encoder (or multihead_attention), 1 decoder self, 2 decoder cross.
    val attention(val kind, val layer) const {
        const AttentionMap* m = e_.attention(number_of(kind), number_of(layer));
        if (!m) return val::null();
        val o = val::object();
        o.set("ptr", double(uintptr_t(m->data)));
        o.set("nBatch", double(m->n_batch));
        o.set("nhead", double(m->nhead));
        o.set("nSeqQ", double(m->n_seq_q));
        o.set("nSeqK", double(m->n_seq_k));
        return o;
    }

private:
    const Workspace* ws() const { return e_.workspace(); }
    entry::ModelEntry e_;
};

class LinearHandle {
public:
    val create(val weight, val bias, val in_features, val out_features) {
        return reply(e_.create(number_of(weight), number_of(bias), number_of(in_features), number_of(out_features)));
    }
    val forward(val x, val rows, val y) const { return reply(e_.forward(number_of(x), number_of(rows), number_of(y))); }

private:
    entry::LinearEntry e_;
};

// Handles are made here rather than by Embind's constructor, whose `new` cannot fail softly:
// null in JavaScript means out of memory (entry::new_between_reserves, as the addon's).
ModelHandle* create_model_handle() { return entry::new_between_reserves<ModelHandle>(); }
LinearHandle* create_linear_handle() { return entry::new_between_reserves<LinearHandle>(); }

val attention_op(val o) { return reply(entry::attention(read_AttentionArgs(o))); }

val layer_norm_op(val rows, val d, val x, val gamma, val beta, val eps, val y) {
    return reply(entry::layer_norm(number_of(rows), number_of(d), number_of(x), number_of(gamma), number_of(beta),
                                   number_of(eps), number_of(y)));
}

val positional_op(val n, val d, val out) {
    return reply(entry::positional_encoding(number_of(n), number_of(d), number_of(out)));
}

// The description JSON text, or the error reply.
val describe_op(val data, val size) {
    std::string json;
    const int code = entry::describe_safetensors(number_of(data), number_of(size), &json);
    return json_reply(code, json);
}

val simd_arch_name() { return val(simd_arch()); }
double simd_lane_count() { return double(simd_lanes()); }
// init()'s relaxedSimd (build_info.h use_int8_kernel): the k-loop in effect, or '' if refused.
std::string int8_kernel(const std::string& mode) {
    const char* now = use_int8_kernel(mode.c_str());
    return now ? now : "";
}
// init()'s relaxedSimd for the f32 GEMMs (build_info.h use_f32_kernel): mode 0 off, 1 relaxed,
// 2 auto; 1 if the relaxed k-loops are now on, 0 if not, -1 if refused.
int f32_kernel(int mode) { return use_f32_kernel(static_cast<F32Kernel>(mode < 0 || mode > 2 ? 0 : mode)); }
double live_bytes() { return double(Buffer::live_bytes()); }
// The highest live_bytes() since the last reset: a load's peak (packed weights + staging).
double peak_live_bytes() { return double(Buffer::peak_live_bytes()); }
void reset_peak_live_bytes() { Buffer::reset_peak_live_bytes(); }
// Bytes malloc has handed out and not taken back (weights, workspaces, call buffers, parser
// state): what leak tests compare, since the wasm memory itself never shrinks. Every module
// counts the bytes asked for (counted_malloc.cpp, over emmalloc).
double malloc_bytes() { return double(simdformer_counted_malloc_bytes()); }

}  // namespace
}  // namespace simdformer::bindings

EMSCRIPTEN_BINDINGS(simdformer) {
    using namespace emscripten;
    using namespace simdformer::bindings;
    class_<ModelHandle>("ModelHandle")
        .function("load", &ModelHandle::load)
        .function("loadCheckpoint", &ModelHandle::load_checkpoint)
        .function("infoJson", &ModelHandle::info_json)
        .function("configJson", &ModelHandle::config_json)
        .function("parameterCount", &ModelHandle::parameter_count)
        .function("reserve", &ModelHandle::reserve)
        .function("forward", &ModelHandle::forward)
        .function("generateBegin", &ModelHandle::generate_begin)
        .function("decodeBegin", &ModelHandle::decode_begin)
        .function("decodeStep", &ModelHandle::decode_step)
        .function("decodeDone", &ModelHandle::decode_done)
        .function("decodeSteps", &ModelHandle::decode_steps)
        .function("stepTokens", &ModelHandle::step_tokens)
        .function("stepFinished", &ModelHandle::step_finished)
        .function("stepAttention", &ModelHandle::step_attention)
        .function("generateFinish", &ModelHandle::generate_finish)
        .function("decodeEnd", &ModelHandle::decode_end)
        .function("forwardText", &ModelHandle::forward_text)
        .function("output", &ModelHandle::output)
        .function("outputRows", &ModelHandle::output_rows)
        .function("logits", &ModelHandle::logits)
        .function("logitsCols", &ModelHandle::logits_cols)
        .function("pooler", &ModelHandle::pooler)
        .function("classifierLogits", &ModelHandle::classifier_logits)
        .function("tokenLogits", &ModelHandle::token_logits)
        .function("generated", &ModelHandle::generated)
        .function("generatedLength", &ModelHandle::generated_length)
        .function("workspaceBytes", &ModelHandle::workspace_bytes)
        .function("attention", &ModelHandle::attention);
    class_<LinearHandle>("LinearHandle")
        .function("create", &LinearHandle::create)
        .function("forward", &LinearHandle::forward);
    function("createModelHandle", &create_model_handle, allow_raw_pointers());
    function("createLinearHandle", &create_linear_handle, allow_raw_pointers());
    function("attention", &attention_op);
    function("positionalEncoding", &positional_op);
    function("layerNorm", &layer_norm_op);
    function("describeSafetensors", &describe_op);
    function("simdArch", &simd_arch_name);
    function("simdLanes", &simd_lane_count);
    function("int8Kernel", &int8_kernel);
    function("f32Kernel", &f32_kernel);
    function("liveBytes", &live_bytes);
    function("peakLiveBytes", &peak_live_bytes);
    function("resetPeakLiveBytes", &reset_peak_live_bytes);
    function("mallocBytes", &malloc_bytes);
}
