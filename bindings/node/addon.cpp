// The Node-API addon: the same entry points as the wasm module (bindings/entry/), under the same
// names and with the same replies as bindings/embind.cpp, so the JavaScript layer
// (bindings/js/lib) runs unchanged over either. What differs is memory: see memory.h.
//
// Rules, as in embind.cpp, plus what a native addon in the user's process needs:
//  - No C++ integer crosses: every argument arrives as a JS value and becomes a Number (NaN when
//    it is not a number), a flag or a TextArg; the entry points check the rest.
//  - No C++ exception leaves a call: each method runs inside js_call(), which turns a
//    std::bad_alloc into an 'out_of_memory' reply and anything else into an Error that the JS
//    layer reports as 'internal' (errors.mjs). Exceptions of user callbacks (JS) are caught in the
//    callback, the load fails softly, and the JS exception is rethrown once C++ has returned.
//  - One call at a time per process: the entry layer keeps its reply and allocation reserves in
//    globals, so calls from several worker_threads are serialised by one lock (recursive: a
//    callback may call another model or an operation, as on wasm).
//  - A handle rejects calls while it is running one (a callback calling back into its own
//    handle) with 'busy', and delete() then throws: it cannot be freed under the running call.
#include <napi.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <xsimd/xsimd.hpp>

#include "entry/model_entry.h"
#include "entry/ops_entry.h"
#include "entry/reply.h"
#include "memory.h"
#include "simdformer/threads.h"

namespace simdformer::node_addon {
namespace {

using entry::Number;
using entry::TextArg;

constexpr double kNaN = NAN;

std::recursive_mutex& call_lock() {
    static std::recursive_mutex m;
    return m;
}
using Lock = std::lock_guard<std::recursive_mutex>;

Number number_of(const Napi::Value& v) { return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : kNaN; }
Number flag_of(const Napi::Value& v) {
    if (!v.IsBoolean()) return kNaN;
    return v.As<Napi::Boolean>().Value() ? 1.0 : 0.0;
}
bool is_function(const Napi::Value& v) { return v.IsFunction(); }

Napi::Value field(const Napi::Value& o, const char* key) {
    if (!o.IsObject()) return o.Env().Undefined();
    return o.As<Napi::Object>().Get(key);
}
Number read_number(const Napi::Value& o, const char* key) { return number_of(field(o, key)); }
Number read_flag(const Napi::Value& o, const char* key) { return flag_of(field(o, key)); }
TextArg text_of(const Napi::Value& t) { return TextArg{read_number(t, "ptr"), read_number(t, "length")}; }
TextArg read_text(const Napi::Value& o, const char* key) { return text_of(field(o, key)); }

entry::SequenceArgs read_sequence(const Napi::Value& parent, const char* key);
#define SF_READ_ARG(kind, member, js, init) a.member = read_##kind(o, #js);
#define SF_READ_ARGS(Args, table)                 \
    entry::Args read_##Args(const Napi::Value& o) { \
        entry::Args a;                            \
        table(SF_READ_ARG)                        \
        return a;                                 \
    }
entry::SequenceArgs read_sequence(const Napi::Value& parent, const char* key) {
    const Napi::Value o = field(parent, key);
    entry::SequenceArgs a;
    SF_SEQUENCE_ARGS(SF_READ_ARG)
    return a;
}
SF_READ_ARGS(ForwardArgs, SF_FORWARD_ARGS)
SF_READ_ARGS(GenerateArgs, SF_GENERATE_ARGS)
SF_READ_ARGS(TextArgs, SF_TEXT_ARGS)
SF_READ_ARGS(DecodeArgs, SF_DECODE_ARGS)
SF_READ_ARGS(AttentionArgs, SF_ATTENTION_ARGS)
#undef SF_READ_ARGS
#undef SF_READ_ARG

Napi::Value arg(const Napi::CallbackInfo& info, size_t i) { return i < info.Length() ? info[i] : info.Env().Undefined(); }
Number num_arg(const Napi::CallbackInfo& info, size_t i) { return number_of(arg(info, i)); }

// "" on success, else "<status code>\t<message>" (the JS layer's check()).
Napi::Value reply(Napi::Env env, int code) { return Napi::String::New(env, code == 0 ? "" : entry::reply_text()); }
Napi::Value json_reply(Napi::Env env, int code, const std::string& json) {
    return code == 0 ? Napi::String::New(env, json) : reply(env, code);
}
Napi::Value text_reply(Napi::Env env, const char* code, const std::string& message) {
    return Napi::String::New(env, std::string(code) + "\t" + message);
}
Napi::Value address(Napi::Env env, const void* p) { return Napi::Number::New(env, double(uintptr_t(p))); }

// Runs body(); what must not reach JavaScript as a C++ exception becomes a JS error. Napi::Error
// (a JS exception met while reading arguments) passes through node-addon-api as itself.
template <class Body>
Napi::Value js_call(Napi::Env env, const char* what, Body&& body) {
    try {
        return body();
    } catch (const Napi::Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        return text_reply(env, "out_of_memory", std::string(what) + ": out of memory: an allocation failed");
    } catch (const std::exception& e) {
        Napi::Error err = Napi::Error::New(env, std::string(what) + ": " + e.what());
        err.Set("name", Napi::String::New(env, "InternalError"));
        throw err;
    }
}

Napi::Error binding_error(Napi::Env env, const std::string& message) {
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("name", Napi::String::New(env, "BindingError"));  // errors.mjs: 'internal', as Embind's would be
    return err;
}

// A JS exception thrown by a callback while C++ runs: kept, and rethrown after C++ returned.
struct PendingError {
    bool set = false;
    Napi::Error error;
    void keep(const Napi::Error& e) {
        if (!set) error = e, set = true;
    }
    void rethrow() {
        if (set) throw error;
    }
};

// Reads checkpoint bytes through read(shard, offset, length, destPtr) -> true | false. The JS
// side copies into destPtr with write(), which the window pushed here allows.
class JsShardReader : public entry::ShardReader {
public:
    JsShardReader(Napi::Env env, Napi::Function read, PendingError& pending) : env_(env), read_(read), pending_(pending) {}
    bool read(size_t shard, uint64_t offset, size_t n, uint8_t* dst) override {
        if (pending_.set) return false;
        push_write_window(uint64_t(uintptr_t(dst)), n);
        bool ok = false;
        try {
            Napi::Value r = read_.Call({Napi::Number::New(env_, double(shard)), Napi::Number::New(env_, double(offset)),
                                        Napi::Number::New(env_, double(n)), address(env_, dst)});
            ok = r.IsBoolean() && r.As<Napi::Boolean>().Value();
        } catch (const Napi::Error& e) {
            pending_.keep(e);
        } catch (...) {  // allocation failure in node-addon-api: the read fails
        }
        pop_write_window();
        return ok;
    }

private:
    Napi::Env env_;
    Napi::Function read_;
    PendingError& pending_;
};

struct ProgressCall {
    Napi::Env env;
    Napi::Function fn;
    PendingError* pending;
};
// progress(loaded, total); returning false (exactly) cancels the load.
bool call_progress(void* user, uint64_t loaded, uint64_t total) {
    auto* p = static_cast<ProgressCall*>(user);
    if (p->pending->set) return false;
    try {
        Napi::Value r = p->fn.Call({Napi::Number::New(p->env, double(loaded)), Napi::Number::New(p->env, double(total))});
        return !(r.IsBoolean() && !r.As<Napi::Boolean>().Value());
    } catch (const Napi::Error& e) {
        p->pending->keep(e);
    } catch (...) {
    }
    return false;
}

// Marks a handle busy for one call; a nested call into the same handle is refused.
class BusyScope {
public:
    explicit BusyScope(bool& busy) : busy_(busy), was_(busy) { busy_ = true; }
    ~BusyScope() { busy_ = was_; }
    bool nested() const { return was_; }

private:
    bool& busy_;
    bool was_;
};

Napi::Value busy_reply(Napi::Env env, const char* what) {
    return text_reply(env, "busy", std::string(what) + ": the handle is running another call (called from its own callback)");
}

template <class Self, class Entry>
class Handle : public Napi::ObjectWrap<Self> {
public:
    explicit Handle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Self>(info) {}
    // A handle the program dropped without delete() is freed when V8 collects it; under the call
    // lock, since another worker thread may be inside the core at that moment.
    ~Handle() override {
        Lock lock(call_lock());
        e_.reset();
    }

protected:
    // The entry, or a thrown BindingError after delete() (Embind throws one too).
    Entry& live(Napi::Env env) {
        if (!e_) throw binding_error(env, "the native handle was used after delete()");
        return *e_;
    }
    // Runs body(entry) under the call lock and the busy mark.
    template <class Body>
    Napi::Value call(const Napi::CallbackInfo& info, const char* what, Body&& body) {
        Napi::Env env = info.Env();
        Lock lock(call_lock());
        Entry& e = live(env);
        BusyScope busy(busy_);
        if (busy.nested()) return busy_reply(env, what);
        Napi::Value r = js_call(env, what, [&] { return body(e); });
        note_high_water();
        return r;
    }
    Napi::Value do_delete(const Napi::CallbackInfo& info) {
        Lock lock(call_lock());
        if (busy_) throw binding_error(info.Env(), "cannot delete a native handle while it runs a call");
        e_.reset();
        return info.Env().Undefined();
    }

public:
    // Made with new (std::nothrow) between the entry layer's reserves, as on wasm.
    bool init_entry() {
        e_.reset(entry::new_between_reserves<Entry>());
        return e_ != nullptr;
    }

private:
    std::unique_ptr<Entry> e_;
    bool busy_ = false;
};

class ModelHandle : public Handle<ModelHandle, entry::ModelEntry> {
public:
    using Handle::Handle;
    static Napi::Function define(Napi::Env env) {
        return DefineClass(env, "ModelHandle", {
            InstanceMethod<&ModelHandle::load>("load"),
            InstanceMethod<&ModelHandle::load_checkpoint>("loadCheckpoint"),
            InstanceMethod<&ModelHandle::info_json>("infoJson"),
            InstanceMethod<&ModelHandle::config_json>("configJson"),
            InstanceMethod<&ModelHandle::parameter_count>("parameterCount"),
            InstanceMethod<&ModelHandle::reserve>("reserve"),
            InstanceMethod<&ModelHandle::forward>("forward"),
            InstanceMethod<&ModelHandle::generate_begin>("generateBegin"),
            InstanceMethod<&ModelHandle::decode_begin>("decodeBegin"),
            InstanceMethod<&ModelHandle::decode_step>("decodeStep"),
            InstanceMethod<&ModelHandle::decode_done>("decodeDone"),
            InstanceMethod<&ModelHandle::decode_steps>("decodeSteps"),
            InstanceMethod<&ModelHandle::step_tokens>("stepTokens"),
            InstanceMethod<&ModelHandle::step_finished>("stepFinished"),
            InstanceMethod<&ModelHandle::step_attention>("stepAttention"),
            InstanceMethod<&ModelHandle::generate_finish>("generateFinish"),
            InstanceMethod<&ModelHandle::decode_end>("decodeEnd"),
            InstanceMethod<&ModelHandle::forward_text>("forwardText"),
            InstanceMethod<&ModelHandle::output>("output"),
            InstanceMethod<&ModelHandle::output_rows>("outputRows"),
            InstanceMethod<&ModelHandle::logits>("logits"),
            InstanceMethod<&ModelHandle::logits_cols>("logitsCols"),
            InstanceMethod<&ModelHandle::pooler>("pooler"),
            InstanceMethod<&ModelHandle::classifier_logits>("classifierLogits"),
            InstanceMethod<&ModelHandle::token_logits>("tokenLogits"),
            InstanceMethod<&ModelHandle::generated>("generated"),
            InstanceMethod<&ModelHandle::generated_length>("generatedLength"),
            InstanceMethod<&ModelHandle::workspace_bytes>("workspaceBytes"),
            InstanceMethod<&ModelHandle::attention>("attention"),
            InstanceMethod<&ModelHandle::del>("delete"),
        });
    }

private:
    using Fn = const Napi::CallbackInfo&;
    Napi::Value del(Fn info) { return do_delete(info); }
    Napi::Value load(Fn info) {
        return call(info, "load", [&](entry::ModelEntry& e) {
            return reply(info.Env(), e.load(num_arg(info, 0), num_arg(info, 1), text_of(arg(info, 2))));
        });
    }
    // loadCheckpoint(config, shards, index, read, progress, options): texts as {ptr, length}.
    Napi::Value load_checkpoint(Fn info) {
        Napi::Env env = info.Env();
        const Napi::Value read = arg(info, 3), progress = arg(info, 4);
        const bool has_progress = !progress.IsUndefined() && !progress.IsNull();
        Lock lock(call_lock());  // the entry layer's reply buffer is the process's
        if (const int code = entry::check_load_callbacks(is_function(read), has_progress, is_function(progress)))
            return reply(env, code);
        PendingError pending;
        Napi::Value r = call(info, "loadCheckpoint", [&](entry::ModelEntry& e) {
            JsShardReader reader(env, read.As<Napi::Function>(), pending);
            ProgressCall p{env, has_progress ? progress.As<Napi::Function>() : Napi::Function(), &pending};
            return reply(env, e.load_checkpoint(text_of(arg(info, 0)), text_of(arg(info, 1)), text_of(arg(info, 2)), reader,
                                                has_progress ? call_progress : nullptr, &p, text_of(arg(info, 5))));
        });
        pending.rethrow();
        return r;
    }
    Napi::Value info_json(Fn info) {
        return call(info, "infoJson", [&](entry::ModelEntry& e) {
            std::string json;
            const int code = e.info_json(&json);
            return json_reply(info.Env(), code, json);
        });
    }
    Napi::Value config_json(Fn info) {
        return call(info, "configJson", [&](entry::ModelEntry& e) {
            std::string json;
            const int code = e.config_json(&json);
            return json_reply(info.Env(), code, json);
        });
    }
    Napi::Value reserve(Fn info) {
        return call(info, "reserve", [&](entry::ModelEntry& e) {
            return reply(info.Env(), e.reserve(num_arg(info, 0), num_arg(info, 1), num_arg(info, 2), flag_of(arg(info, 3))));
        });
    }
    Napi::Value forward(Fn info) {
        return call(info, "forward", [&](entry::ModelEntry& e) { return reply(info.Env(), e.forward(read_ForwardArgs(arg(info, 0)))); });
    }
    Napi::Value generate_begin(Fn info) {
        return call(info, "generateBegin",
                    [&](entry::ModelEntry& e) { return reply(info.Env(), e.generate_begin(read_GenerateArgs(arg(info, 0)))); });
    }
    Napi::Value decode_begin(Fn info) {
        return call(info, "decodeBegin",
                    [&](entry::ModelEntry& e) { return reply(info.Env(), e.decode_begin(read_DecodeArgs(arg(info, 0)))); });
    }
    Napi::Value decode_step(Fn info) {
        return call(info, "decodeStep", [&](entry::ModelEntry& e) { return reply(info.Env(), e.decode_step()); });
    }
    Napi::Value generate_finish(Fn info) {
        return call(info, "generateFinish", [&](entry::ModelEntry& e) { return reply(info.Env(), e.generate_finish()); });
    }
    Napi::Value decode_end(Fn info) {
        return call(info, "decodeEnd", [&](entry::ModelEntry& e) {
            e.decode_end();
            return info.Env().Undefined();
        });
    }
    Napi::Value forward_text(Fn info) {
        return call(info, "forwardText", [&](entry::ModelEntry& e) { return reply(info.Env(), e.forward_text(read_TextArgs(arg(info, 0)))); });
    }
    // Getters: plain values, no busy check needed (they read, and JS guards its own calls), but
    // a deleted handle still throws.
    template <class Get>
    Napi::Value get(Fn info, Get&& g) {
        Lock lock(call_lock());
        return g(live(info.Env()));
    }
    Napi::Value num(Fn info, double v) { return Napi::Number::New(info.Env(), v); }
    Napi::Value decode_done(Fn info) { return get(info, [&](entry::ModelEntry& e) { return Napi::Boolean::New(info.Env(), e.decode_done()); }); }
    Napi::Value decode_steps(Fn info) { return get(info, [&](entry::ModelEntry& e) { return num(info, e.decode_steps()); }); }
    Napi::Value parameter_count(Fn info) { return get(info, [&](entry::ModelEntry& e) { return num(info, e.parameter_count()); }); }
    Napi::Value workspace_bytes(Fn info) { return get(info, [&](entry::ModelEntry& e) { return num(info, e.workspace_bytes()); }); }
    template <class F>
    Napi::Value ws_value(Fn info, F&& f) {
        return get(info, [&](entry::ModelEntry& e) { return num(info, e.workspace() ? f(*e.workspace()) : 0.0); });
    }
    static double ptr(const void* p) { return double(uintptr_t(p)); }
    Napi::Value step_tokens(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.step_tokens()); }); }
    Napi::Value step_finished(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.step_finished()); }); }
    Napi::Value output(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.output()); }); }
    Napi::Value output_rows(Fn info) { return ws_value(info, [](const Workspace& w) { return double(w.output_rows()); }); }
    Napi::Value logits(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.logits()); }); }
    Napi::Value logits_cols(Fn info) { return ws_value(info, [](const Workspace& w) { return double(w.logits_cols()); }); }
    Napi::Value pooler(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.pooler()); }); }
    Napi::Value classifier_logits(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.classifier_logits()); }); }
    Napi::Value token_logits(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.token_logits()); }); }
    Napi::Value generated(Fn info) { return ws_value(info, [](const Workspace& w) { return ptr(w.generated()); }); }
    Napi::Value generated_length(Fn info) { return ws_value(info, [](const Workspace& w) { return double(w.generated_length()); }); }

    // The last step's attention of a layer: {ptr, nBatch, nhead, nSeqK}, or null.
    Napi::Value step_attention(Fn info) {
        return get(info, [&](entry::ModelEntry& e) -> Napi::Value {
            const AttentionMap* m = e.step_attention(num_arg(info, 0));
            if (!m) return info.Env().Null();
            Napi::Object o = Napi::Object::New(info.Env());
            o.Set("ptr", ptr(m->data));
            o.Set("nBatch", double(m->n_batch));
            o.Set("nhead", double(m->nhead));
            o.Set("nSeqK", double(m->n_seq_k));
            return o;
        });
    }
    // kind: 0 encoder (or multihead_attention), 1 decoder self, 2 decoder cross.
    Napi::Value attention(Fn info) {
        return get(info, [&](entry::ModelEntry& e) -> Napi::Value {
            const AttentionMap* m = e.attention(num_arg(info, 0), num_arg(info, 1));
            if (!m) return info.Env().Null();
            Napi::Object o = Napi::Object::New(info.Env());
            o.Set("ptr", ptr(m->data));
            o.Set("nBatch", double(m->n_batch));
            o.Set("nhead", double(m->nhead));
            o.Set("nSeqQ", double(m->n_seq_q));
            o.Set("nSeqK", double(m->n_seq_k));
            return o;
        });
    }
};

class LinearHandle : public Handle<LinearHandle, entry::LinearEntry> {
public:
    using Handle::Handle;
    static Napi::Function define(Napi::Env env) {
        return DefineClass(env, "LinearHandle", {
            InstanceMethod<&LinearHandle::create>("create"),
            InstanceMethod<&LinearHandle::forward>("forward"),
            InstanceMethod<&LinearHandle::del>("delete"),
        });
    }

private:
    Napi::Value del(const Napi::CallbackInfo& info) { return do_delete(info); }
    Napi::Value create(const Napi::CallbackInfo& info) {
        return call(info, "linear", [&](entry::LinearEntry& e) {
            return reply(info.Env(), e.create(num_arg(info, 0), num_arg(info, 1), num_arg(info, 2), num_arg(info, 3)));
        });
    }
    Napi::Value forward(const Napi::CallbackInfo& info) {
        return call(info, "linear.forward", [&](entry::LinearEntry& e) {
            return reply(info.Env(), e.forward(num_arg(info, 0), num_arg(info, 1), num_arg(info, 2)));
        });
    }
};

// The names of the SIMD levels this CPU (and OS) can run, as xsimd detects them at run time.
Napi::Value cpu_levels(Napi::Env env) {
    const auto a = xsimd::available_architectures();
    Napi::Array out = Napi::Array::New(env);
    uint32_t i = 0;
    auto add = [&](bool on, const char* name) {
        if (on) out.Set(i++, Napi::String::New(env, name));
    };
    add(a.sse2, "sse2");
    add(a.sse4_2, "sse4.2");
    add(a.avx, "avx");
    add(a.fma3_avx2, "fma3+avx2");
    add(a.avx512f, "avx512f");
    add(a.avx512cd, "avx512cd");
    add(a.avx512dq, "avx512dq");
    add(a.avx512bw, "avx512bw");
    add(a.neon64, "neon64");
    return out;
}

class Addon : public Napi::Addon<Addon> {
public:
    Addon(Napi::Env env, Napi::Object exports) {
        model_ = Napi::Persistent(ModelHandle::define(env));
        linear_ = Napi::Persistent(LinearHandle::define(env));
        DefineAddon(exports, {
            InstanceMethod<&Addon::create_model>("createModelHandle"),
            InstanceMethod<&Addon::create_linear>("createLinearHandle"),
            InstanceMethod<&Addon::attention_op>("attention"),
            InstanceMethod<&Addon::positional_op>("positionalEncoding"),
            InstanceMethod<&Addon::layer_norm_op>("layerNorm"),
            InstanceMethod<&Addon::describe_op>("describeSafetensors"),
            InstanceMethod<&Addon::simd_arch_name>("simdArch"),
            InstanceMethod<&Addon::simd_lane_count>("simdLanes"),
            InstanceMethod<&Addon::cpu_levels_op>("cpuLevels"),
            InstanceMethod<&Addon::live_bytes>("liveBytes"),
            InstanceMethod<&Addon::peak_live_bytes>("peakLiveBytes"),
            InstanceMethod<&Addon::reset_peak_live_bytes>("resetPeakLiveBytes"),
            InstanceMethod<&Addon::malloc_bytes>("mallocBytes"),
            InstanceMethod<&Addon::heap_bytes>("heapBytes"),
            InstanceMethod<&Addon::set_threads_op>("setThreads"),
            InstanceMethod<&Addon::threads_op>("threads"),
            InstanceMethod<&Addon::threads_supported_op>("threadsSupported"),
            InstanceMethod<&Addon::hardware_threads_op>("hardwareThreads"),
            InstanceMethod<&Addon::malloc_op>("_malloc"),
            InstanceMethod<&Addon::free_op>("_free"),
            InstanceMethod<&Addon::write_op>("write"),
            InstanceMethod<&Addon::read_op>("read"),
            InstanceMethod<&Addon::set_allocation_limit_op>("setAllocationLimit"),
            InstanceValue("native", Napi::Boolean::New(env, true)),
        });
    }

private:
    using Fn = const Napi::CallbackInfo&;
    template <class H>
    Napi::Value create(Fn info, Napi::FunctionReference& ctor) {
        Lock lock(call_lock());
        return js_call(info.Env(), "createHandle", [&]() -> Napi::Value {
            Napi::Object o = ctor.New({});
            if (!H::Unwrap(o)->init_entry()) return info.Env().Null();  // null: out of memory, as on wasm
            return o;
        });
    }
    Napi::Value create_model(Fn info) { return create<ModelHandle>(info, model_); }
    Napi::Value create_linear(Fn info) { return create<LinearHandle>(info, linear_); }

    template <class Body>
    Napi::Value op(Fn info, const char* what, Body&& body) {
        Lock lock(call_lock());
        Napi::Value r = js_call(info.Env(), what, body);
        note_high_water();
        return r;
    }
    Napi::Value attention_op(Fn info) {
        return op(info, "attention", [&] { return reply(info.Env(), entry::attention(read_AttentionArgs(arg(info, 0)))); });
    }
    Napi::Value positional_op(Fn info) {
        return op(info, "positionalEncoding",
                  [&] { return reply(info.Env(), entry::positional_encoding(num_arg(info, 0), num_arg(info, 1), num_arg(info, 2))); });
    }
    Napi::Value layer_norm_op(Fn info) {
        return op(info, "layerNorm", [&] {
            return reply(info.Env(), entry::layer_norm(num_arg(info, 0), num_arg(info, 1), num_arg(info, 2), num_arg(info, 3),
                                                       num_arg(info, 4), num_arg(info, 5), num_arg(info, 6)));
        });
    }
    Napi::Value describe_op(Fn info) {
        return op(info, "describeSafetensors", [&] {
            std::string json;
            const int code = entry::describe_safetensors(num_arg(info, 0), num_arg(info, 1), &json);
            return json_reply(info.Env(), code, json);
        });
    }
    Napi::Value simd_arch_name(Fn info) { return Napi::String::New(info.Env(), simd_arch()); }
    Napi::Value simd_lane_count(Fn info) { return Napi::Number::New(info.Env(), double(simd_lanes())); }
    Napi::Value cpu_levels_op(Fn info) { return cpu_levels(info.Env()); }
    Napi::Value live_bytes(Fn info) { return Napi::Number::New(info.Env(), double(Buffer::live_bytes())); }
    Napi::Value peak_live_bytes(Fn info) { return Napi::Number::New(info.Env(), double(Buffer::peak_live_bytes())); }
    Napi::Value reset_peak_live_bytes(Fn info) {
        Lock lock(call_lock());
        Buffer::reset_peak_live_bytes();
        return info.Env().Undefined();
    }
    Napi::Value malloc_bytes(Fn info) {
        Lock lock(call_lock());
        return Napi::Number::New(info.Env(), double(tracked_bytes()));
    }
    Napi::Value heap_bytes(Fn info) {
        Lock lock(call_lock());
        return Napi::Number::New(info.Env(), double(tracked_high_water()));
    }

    // setThreads(n): "" or "<code>\t<message>", the same entry point as embind_threads.cpp's.
    Napi::Value set_threads_op(Fn info) {
        Lock lock(call_lock());  // never while another call runs a forward pass
        return reply(info.Env(), entry::set_thread_count(num_arg(info, 0)));
    }
    Napi::Value threads_op(Fn info) { return Napi::Number::New(info.Env(), double(threads())); }
    Napi::Value threads_supported_op(Fn info) { return Napi::Boolean::New(info.Env(), threads_supported()); }
    Napi::Value hardware_threads_op(Fn info) { return Napi::Number::New(info.Env(), double(hardware_threads())); }

    Napi::Value malloc_op(Fn info) {
        Lock lock(call_lock());
        return Napi::Number::New(info.Env(), double(js_malloc(num_arg(info, 0))));
    }
    Napi::Value free_op(Fn info) {
        Lock lock(call_lock());
        const double p = num_arg(info, 0);
        if (!(p >= 0 && p <= 9007199254740992.0) || p != std::floor(p) || !js_free(uint64_t(p)))
            throw binding_error(info.Env(), "_free: not a block _malloc returned");
        return info.Env().Undefined();
    }
    // write(address, typedArray): copies the array's bytes to native memory, checked.
    Napi::Value write_op(Fn info) {
        Napi::Env env = info.Env();
        const double p = num_arg(info, 0);
        const Napi::Value v = arg(info, 1);
        if (!v.IsTypedArray()) throw binding_error(env, "write: expected a typed array");
        const Napi::TypedArray t = v.As<Napi::TypedArray>();
        const size_t bytes = t.ByteLength();
        if (!(p >= 0 && p <= 9007199254740992.0) || p != std::floor(p)) throw binding_error(env, "write: bad address");
        Lock lock(call_lock());
        const char* why = check_write(uint64_t(p), bytes);
        if (*why) throw binding_error(env, std::string("write of ") + std::to_string(bytes) + " bytes refused: " + why);
        if (bytes) {
            // The C call gives the element data of any typed array, also one over a
            // SharedArrayBuffer (whose ArrayBuffer wrapper node-addon-api would refuse).
            napi_typedarray_type type;
            size_t length = 0;
            void* data = nullptr;
            if (napi_get_typedarray_info(env, t, &type, &length, &data, nullptr, nullptr) != napi_ok || !data)
                throw binding_error(env, "write: cannot read the typed array");
            std::memcpy(reinterpret_cast<void*>(uintptr_t(p)), data, bytes);
        }
        return env.Undefined();
    }
    // read(address, bytes) -> a new ArrayBuffer holding a copy.
    Napi::Value read_op(Fn info) {
        Napi::Env env = info.Env();
        const double p = num_arg(info, 0), n = num_arg(info, 1);
        if (!(p >= 0 && p <= 9007199254740992.0) || p != std::floor(p) || !(n >= 0 && n <= 4294967295.0) || n != std::floor(n))
            throw binding_error(env, "read: bad address or size");
        Lock lock(call_lock());
        const char* why = check_read(uint64_t(p), uint64_t(n));
        if (*why) throw binding_error(env, std::string("read refused: ") + why);
        Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, size_t(n));
        if (n > 0) std::memcpy(out.Data(), reinterpret_cast<const void*>(uintptr_t(p)), size_t(n));
        return out;
    }
    Napi::Value set_allocation_limit_op(Fn info) {
        const double n = num_arg(info, 0);
        Lock lock(call_lock());
        set_allocation_limit(n >= 1 && n < 9007199254740992.0 ? uint64_t(n) : 0);
        return info.Env().Undefined();
    }

    Napi::FunctionReference model_, linear_;
};

}  // namespace
}  // namespace simdformer::node_addon

using SimdformerAddon = simdformer::node_addon::Addon;
NODE_API_NAMED_ADDON(simdformer, SimdformerAddon)
