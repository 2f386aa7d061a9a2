// Embind bindings: translate between JavaScript and the C++ API, nothing more.
//
// Arrays travel as addresses in wasm memory (the JS wrapper copies typed arrays in with one
// set() and copies results out with slice()), so no view into the heap is ever handed to users.
// Fallible calls return "" on success or "<status code>\t<message>", which the wrapper turns
// into an Error; nothing here throws, so the module always stays usable.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simdformer/simdformer.h"

using emscripten::val;

namespace simdformer::bindings {
namespace {

std::string error_of(const Status& s) {
    return s.is_ok() ? std::string() : std::string(status_code_name(s.code())) + "\t" + s.message();
}

template <class T>
const T* ptr(uintptr_t address) {
    return reinterpret_cast<const T*>(address);
}

struct SequenceArgs {
    size_t n_seq = 0;
    uintptr_t embeddings = 0, tokens = 0, key_padding = 0, attn_mask = 0;
    bool causal = false;
};

struct ForwardArgs {
    size_t n_batch = 1;
    SequenceArgs src, tgt;
    uintptr_t key = 0, value = 0;
    size_t n_seq_k = 0;
    uintptr_t key_padding_k = 0, memory = 0;
    size_t n_seq_memory = 0;
    uintptr_t memory_key_padding = 0;
    std::string score, normalize;  // option names, parsed by attention_options()
    bool need_weights = false;
    bool encoder_only = false;
};

struct GenerateArgs {
    size_t n_batch = 1;
    SequenceArgs src;
    size_t max_length = 0;
    int bos = -1, eos = -1;
    std::string score, normalize;
    bool need_weights = false;
};

struct AttentionArgs {
    size_t n_seq_q = 0, n_seq_k = 0, d_k = 0, d_v = 0;
    uintptr_t q = 0, k = 0, v = 0;
    std::string score, normalize;
    size_t additive_dim = 0;
    uintptr_t w_q = 0, w_k = 0, w_v = 0, key_padding = 0, attn_mask = 0;
    bool causal = false;
    uintptr_t out = 0, weights = 0;
};

SequenceInput to_input(const SequenceArgs& a) {
    SequenceInput s;
    s.n_seq = a.n_seq;
    s.embeddings = ptr<float>(a.embeddings);
    s.tokens = ptr<int32_t>(a.tokens);
    s.key_padding = ptr<uint8_t>(a.key_padding);
    s.attn_mask = ptr<float>(a.attn_mask);
    s.causal = a.causal;
    return s;
}

// The one table of attention option names (the JS API passes the user's strings through).
constexpr std::pair<const char*, ScoreKind> kScoreNames[] = {
    {"scaled-dot", ScoreKind::kScaledDot}, {"dot", ScoreKind::kDot}, {"additive", ScoreKind::kAdditive}};
constexpr std::pair<const char*, NormalizeKind> kNormalizeNames[] = {
    {"softmax", NormalizeKind::kSoftmax}, {"relu", NormalizeKind::kRelu}};

template <class Kind, size_t N>
Status parse_name(const char* option, const std::string& name, const std::pair<const char*, Kind> (&names)[N], Kind* out) {
    std::string expected;
    for (const auto& [text, kind] : names) {
        if (name == text) {
            *out = kind;
            return Status::ok();
        }
        expected += (expected.empty() ? "" : ", ") + std::string(text);
    }
    return Status::invalid(std::string("unknown ") + option + " '" + name + "' (expected " + expected + ")");
}

Status attention_options(const std::string& score, const std::string& normalize, AttentionOptions* out) {
    SF_RETURN_IF_ERROR(parse_name("score", score, kScoreNames, &out->score));
    return parse_name("normalize", normalize, kNormalizeNames, &out->normalize);
}

// ---- checkpoints and text models (the loadCheckpoint / forwardText contract of DESIGN.md) -----

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53: every integer below is exact

std::string number_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// A size from JavaScript: a number that is an exact non-negative integer <= 2^53 and fits
// size_t (32 bits in wasm) — checked before it is converted, so 2^32 + 5 never becomes 5.
Status js_size(double v, const char* what, size_t* out) {
    if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v > kMaxExactInteger || v > double(SIZE_MAX))
        return Status::invalid(std::string(what) + " must be a non-negative integer below 2^32, not " + number_text(v));
    *out = size_t(v);
    return Status::ok();
}

// The same for a 64-bit offset or file size (up to 2^53).
Status js_u64(double v, const char* what, uint64_t* out) {
    if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v > kMaxExactInteger)
        return Status::invalid(std::string(what) + " must be a non-negative integer <= 2^53, not " + number_text(v));
    *out = uint64_t(v);
    return Status::ok();
}

// An address in wasm memory (0 = none), aligned for T.
template <class T>
Status js_pointer(double v, const char* what, const T** out) {
    size_t address = 0;
    SF_RETURN_IF_ERROR(js_size(v, what, &address));
    if (address % alignof(T) != 0) return Status::invalid(std::string(what) + " is not aligned");
    *out = reinterpret_cast<const T*>(address);
    return Status::ok();
}

bool is_type(const val& v, const char* type) { return v.typeOf().as<std::string>() == type; }

// One shard of a checkpoint, read through the JavaScript callback
// read(shard, offset, length, destPtr) -> "" or error text. The callback copies the bytes into
// wasm memory at destPtr; it must not throw (a throw would unwind past C++ cleanup).
class JsSource : public ByteSource {
public:
    JsSource(const val& read, size_t shard, uint64_t size, std::string name)
        : read_(read), shard_(shard), size_(size), name_(std::move(name)) {}
    uint64_t size() const override { return size_; }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override {
        SF_RETURN_IF_ERROR(check_range(offset, n, size_, "'" + name_ + "'"));
        if (n == 0) return Status::ok();
        const val result = read_(double(shard_), double(offset), double(n), double(uintptr_t(dst)));
        if (!is_type(result, "string"))
            return Status::io("'" + name_ + "': the read callback must return \"\" or an error message");
        const std::string error = result.as<std::string>();
        if (!error.empty()) return Status::io("'" + name_ + "': " + error);
        return Status::ok();
    }

private:
    val read_;
    size_t shard_;
    uint64_t size_;
    std::string name_;
};

// progress(loaded, total) from JavaScript; returning false (exactly) cancels the load.
bool call_progress(void* user, uint64_t loaded, uint64_t total) {
    return !(*static_cast<val*>(user))(double(loaded), double(total)).isFalse();
}

// forwardText's argument object: sizes and addresses as JavaScript numbers (checked in C++).
struct TextArgs {
    double n_batch = 0, n_seq = 0;
    double tokens = 0, token_types = 0, attention_mask = 0, logits_rows = 0, n_logits_rows = 0;
    bool need_weights = false, need_pooler = false;
};

Status to_text_request(const TextArgs& a, TextRequest* r) {
    SF_RETURN_IF_ERROR(js_size(a.n_batch, "nBatch", &r->n_batch));
    SF_RETURN_IF_ERROR(js_size(a.n_seq, "nSeq", &r->n_seq));
    SF_RETURN_IF_ERROR(js_pointer(a.tokens, "tokens", &r->tokens));
    SF_RETURN_IF_ERROR(js_pointer(a.token_types, "tokenTypes", &r->token_types));
    SF_RETURN_IF_ERROR(js_pointer(a.attention_mask, "attentionMask", &r->attention_mask));
    SF_RETURN_IF_ERROR(js_pointer(a.logits_rows, "logitsRows", &r->logits_rows));
    SF_RETURN_IF_ERROR(js_size(a.n_logits_rows, "nLogitsRows", &r->n_logits_rows));
    r->need_weights = a.need_weights;
    r->need_pooler = a.need_pooler;
    return Status::ok();
}

// decodeBegin's argument object (the DecodeRequest of a causal language model): sizes,
// addresses and sampler settings as JavaScript numbers, checked here.
struct DecodeArgs {
    double n_batch = 0, n_seq = 0, tokens = 0, attention_mask = 0, max_new_tokens = 0;
    double temperature = 0, top_k = 0, top_p = 1, seed = 0;
    double stop_tokens = 0, n_stop_tokens = 0, pad_token = -1;
};

Status to_decode_request(const DecodeArgs& a, DecodeRequest* r) {
    SF_RETURN_IF_ERROR(js_size(a.n_batch, "nBatch", &r->n_batch));
    SF_RETURN_IF_ERROR(js_size(a.n_seq, "nSeq", &r->n_seq));
    SF_RETURN_IF_ERROR(js_pointer(a.tokens, "tokens", &r->tokens));
    SF_RETURN_IF_ERROR(js_pointer(a.attention_mask, "attentionMask", &r->attention_mask));
    SF_RETURN_IF_ERROR(js_size(a.max_new_tokens, "maxNewTokens", &r->max_new_tokens));
    SF_RETURN_IF_ERROR(js_size(a.top_k, "topK", &r->sampler.top_k));
    uint64_t seed = 0;
    SF_RETURN_IF_ERROR(js_u64(a.seed, "seed", &seed));
    r->sampler.seed = seed;
    if (!std::isfinite(a.temperature) || !std::isfinite(a.top_p))
        return Status::invalid("temperature and topP must be finite numbers");
    r->sampler.temperature = float(a.temperature);
    r->sampler.top_p = float(a.top_p);
    SF_RETURN_IF_ERROR(js_pointer(a.stop_tokens, "stopTokens", &r->stop_tokens));
    SF_RETURN_IF_ERROR(js_size(a.n_stop_tokens, "nStopTokens", &r->n_stop_tokens));
    if (a.pad_token != -1) {
        size_t pad = 0;
        SF_RETURN_IF_ERROR(js_size(a.pad_token, "padToken", &pad));
        r->pad_token = int64_t(pad);
    }
    return Status::ok();
}

// A loaded model and the workspace its calls run in.
//
// Decoding is driven from JavaScript one step at a time (decodeBegin or generateBegin, then
// decodeStep until decodeDone, then decodeEnd): C++ never calls back into JavaScript while a
// step runs, so streaming, cancelling and errors in user callbacks need no unwinding through
// wasm. While a decoding is in progress every other call on the handle is refused (it would
// reuse the workspace the decoding lives in); decodeEnd always ends it.
class ModelHandle {
public:
    std::string load(uintptr_t data, size_t size, const std::string& config) {
        if (Status st = idle("load"); !st.is_ok()) return error_of(st);
        auto m = Model::load(ptr<uint8_t>(data), size, config);
        if (!m.is_ok()) return error_of(m.status());
        ws_.reset();  // a workspace is shaped for one model
        model_ = std::move(m).value();
        return "";
    }

    // The loadCheckpoint contract: see DESIGN.md ("JS <-> wasm contract for checkpoints").
    std::string load_checkpoint(const std::string& config, val shards, const std::string& index, val read,
                                val progress, const std::string& options_json) {
        if (Status busy = idle("loadCheckpoint"); !busy.is_ok()) return error_of(busy);
        LoadOptions options;
        Status st = parse_load_options(options_json, &options);
        if (!st.is_ok()) return error_of(st);
        if (!is_type(read, "function")) return error_of(Status::invalid("read must be a function"));
        if (!shards.isArray()) return error_of(Status::invalid("shards must be an array of {name, size}"));
        size_t n = 0;
        st = js_size(shards["length"].as<double>(), "shards.length", &n);
        if (!st.is_ok()) return error_of(st);
        std::vector<std::unique_ptr<JsSource>> sources;
        std::vector<CheckpointShard> list;
        for (size_t i = 0; i < n; ++i) {
            const val shard = shards[i];
            if (!is_type(shard, "object") || !is_type(shard["name"], "string") || !is_type(shard["size"], "number"))
                return error_of(Status::invalid("shards[" + std::to_string(i) + "] must be {name: string, size: number}"));
            const std::string name = shard["name"].as<std::string>();
            uint64_t size = 0;
            st = js_u64(shard["size"].as<double>(), ("size of '" + name + "'").c_str(), &size);
            if (!st.is_ok()) return error_of(st);
            sources.push_back(std::make_unique<JsSource>(read, i, size, name));
            list.push_back({name, sources.back().get()});
        }
        if (is_type(progress, "function")) {
            options.progress = call_progress;
            options.progress_user = &progress;
        } else if (!progress.isUndefined() && !progress.isNull()) {
            return error_of(Status::invalid("progress must be a function or undefined"));
        }
        ws_.reset();
        model_.reset();  // free the old model first: the new one may need that memory
        auto m = Model::load_checkpoint(config, list, index, options);
        if (!m.is_ok()) return error_of(m.status());
        model_ = std::move(m).value();
        return "";
    }

    std::string info_json() const { return model_ ? model_->info_json() : "{}"; }

    // The forwardText contract: the workspace grows to fit the call when it does not.
    std::string forward_text(const TextArgs& a) {
        if (!model_) return error_of(Status::invalid("no model loaded"));
        if (Status busy = idle("forwardText"); !busy.is_ok()) return error_of(busy);
        TextRequest r;
        Status st = to_text_request(a, &r);
        if (!st.is_ok()) return error_of(st);
        WorkspaceLimits limits;
        limits.max_batch = std::max<size_t>(r.n_batch, 1);
        limits.max_src_len = std::max<size_t>(r.n_seq, 1);
        limits.max_tgt_len = 1;
        limits.record_attention = r.need_weights;
        limits.max_logits_rows = r.n_logits_rows;
        st = ensure_workspace(limits);
        if (!st.is_ok()) return error_of(st);
        return error_of(model_->forward_text(r, *ws_));
    }

    uintptr_t pooler() const { return ws_ ? uintptr_t(ws_->pooler()) : 0; }

    std::string config_json() const { return model_ ? model_config_to_json(model_->config()) : "{}"; }
    double parameter_count() const { return model_ ? double(model_->parameter_count()) : 0.0; }

    // Makes sure the workspace fits these limits (re-created, larger, only when it does not).
    std::string reserve(size_t max_batch, size_t max_src, size_t max_tgt, bool record) {
        if (!model_) return error_of(Status::invalid("no model loaded"));
        if (Status busy = idle("reserve"); !busy.is_ok()) return error_of(busy);
        WorkspaceLimits limits;
        limits.max_batch = max_batch;
        limits.max_src_len = max_src;
        limits.max_tgt_len = max_tgt;
        limits.record_attention = record;
        return error_of(ensure_workspace(limits));
    }

    std::string forward(const ForwardArgs& a) {
        if (!model_ || !ws_) return error_of(Status::invalid("no workspace reserved"));
        if (Status busy = idle("forward"); !busy.is_ok()) return error_of(busy);
        ForwardRequest r;
        if (Status s = attention_options(a.score, a.normalize, &r.options); !s.is_ok()) return error_of(s);
        r.n_batch = a.n_batch;
        r.src = to_input(a.src);
        r.tgt = to_input(a.tgt);
        r.key = ptr<float>(a.key);
        r.value = ptr<float>(a.value);
        r.n_seq_k = a.n_seq_k;
        r.key_padding_k = ptr<uint8_t>(a.key_padding_k);
        r.memory = ptr<float>(a.memory);
        r.n_seq_memory = a.n_seq_memory;
        r.memory_key_padding = ptr<uint8_t>(a.memory_key_padding);
        r.need_weights = a.need_weights;
        r.encoder_only = a.encoder_only;
        return error_of(model_->forward(r, *ws_));
    }

    // Encoder-decoder transformers: encodes the source (after reserve()), projects the cross
    // keys/values once and starts every item at bos; then decodeStep, then generateFinish.
    std::string generate_begin(const GenerateArgs& a) {
        if (!model_ || !ws_) return error_of(Status::invalid("no workspace reserved"));
        if (Status busy = idle("generateBegin"); !busy.is_ok()) return error_of(busy);
        GenerateRequest r;
        if (Status s = attention_options(a.score, a.normalize, &r.options); !s.is_ok()) return error_of(s);
        r.n_batch = a.n_batch;
        r.src = to_input(a.src);
        r.max_length = a.max_length;
        r.bos = a.bos;
        r.eos = a.eos;
        r.need_weights = a.need_weights;
        return error_of(model_->generate_begin(r, *ws_));
    }

    // Causal language models: sizes the workspace for the prompt and its new tokens, runs the
    // prompt into the key/value cache; then decodeStep.
    std::string decode_begin(const DecodeArgs& a) {
        if (!model_) return error_of(Status::invalid("no model loaded"));
        if (Status busy = idle("decodeBegin"); !busy.is_ok()) return error_of(busy);
        DecodeRequest r;
        Status st = to_decode_request(a, &r);
        if (!st.is_ok()) return error_of(st);
        size_t context = 0;
        if (r.n_seq > SIZE_MAX - r.max_new_tokens) return error_of(Status::invalid("nSeq + maxNewTokens overflows"));
        context = r.n_seq + r.max_new_tokens;
        WorkspaceLimits limits;
        limits.max_batch = std::max<size_t>(r.n_batch, 1);
        limits.max_src_len = std::max<size_t>(r.n_seq, 1);
        limits.max_tgt_len = 1;
        limits.record_attention = false;
        limits.max_context = context;
        st = ensure_workspace(limits);
        if (!st.is_ok()) return error_of(st);
        return error_of(model_->decode_begin(r, *ws_));
    }

    std::string decode_step() {
        if (!model_ || !ws_) return error_of(Status::invalid("decodeStep: no decoding in progress"));
        return error_of(model_->decode_step(*ws_));
    }
    bool decode_done() const { return ws_ && ws_->decoding() && ws_->decode_done(); }
    size_t decode_steps() const { return ws_ ? ws_->decode_steps() : 0; }
    uintptr_t step_tokens() const { return ws_ ? uintptr_t(ws_->step_tokens()) : 0; }    // [nBatch] i32
    uintptr_t step_finished() const { return ws_ ? uintptr_t(ws_->step_finished()) : 0; }  // [nBatch] u8
    // The last step's attention of layer `layer`: {ptr, nBatch, nhead, nSeqK}, [nBatch, nhead, nSeqK].
    val step_attention(size_t layer) const {
        if (!ws_ || layer >= ws_->step_attention().size() || !ws_->step_attention()[layer].data) return val::null();
        const AttentionMap& m = ws_->step_attention()[layer];
        val o = val::object();
        o.set("ptr", uintptr_t(m.data));
        o.set("nBatch", m.n_batch);
        o.set("nhead", m.nhead);
        o.set("nSeqK", m.n_seq_k);
        return o;
    }
    std::string generate_finish() {
        if (!model_ || !ws_) return error_of(Status::invalid("generateFinish: no decoding in progress"));
        return error_of(model_->generate_finish(*ws_));
    }
    void decode_end() {
        if (ws_) ws_->end_decoding();
    }

    uintptr_t output() const { return ws_ ? uintptr_t(ws_->output()) : 0; }
    size_t output_rows() const { return ws_ ? ws_->output_rows() : 0; }
    uintptr_t logits() const { return ws_ ? uintptr_t(ws_->logits()) : 0; }
    size_t logits_cols() const { return ws_ ? ws_->logits_cols() : 0; }
    uintptr_t generated() const { return ws_ ? uintptr_t(ws_->generated()) : 0; }
    size_t generated_length() const { return ws_ ? ws_->generated_length() : 0; }
    double workspace_bytes() const { return ws_ ? double(ws_->bytes()) : 0.0; }

    // kind: 0 encoder (or multihead_attention), 1 decoder self, 2 decoder cross.
    val attention(int kind, size_t layer) const {
        if (!ws_ || kind < 0 || kind > 2) return val::null();
        const auto& maps = kind == 0 ? ws_->encoder_attention()
                                     : kind == 1 ? ws_->decoder_self_attention() : ws_->decoder_cross_attention();
        if (layer >= maps.size() || !maps[layer].data) return val::null();
        const AttentionMap& m = maps[layer];
        val o = val::object();
        o.set("ptr", uintptr_t(m.data));
        o.set("nBatch", m.n_batch);
        o.set("nhead", m.nhead);
        o.set("nSeqQ", m.n_seq_q);
        o.set("nSeqK", m.n_seq_k);
        return o;
    }

private:
    // Refuses `what` while a decoding is in progress (it would reuse the decoding's workspace).
    Status idle(const char* what) const {
        if (ws_ && ws_->decoding())
            return Status::invalid(std::string(what) + ": the model is decoding; call decodeEnd first");
        return Status::ok();
    }

    // The workspace grows to the union of what was asked so far; it is re-created only when the
    // current one does not fit.
    Status ensure_workspace(WorkspaceLimits want) {
        if (ws_) {
            const WorkspaceLimits& l = ws_->limits();
            if (l.max_batch >= want.max_batch && l.max_src_len >= want.max_src_len &&
                l.max_tgt_len >= want.max_tgt_len && (l.record_attention || !want.record_attention) &&
                l.max_logits_rows >= want.max_logits_rows && l.max_context >= want.max_context)
                return Status::ok();
            want.max_batch = std::max(want.max_batch, l.max_batch);
            want.max_src_len = std::max(want.max_src_len, l.max_src_len);
            want.max_tgt_len = std::max(want.max_tgt_len, l.max_tgt_len);
            want.record_attention = want.record_attention || l.record_attention;
            want.max_logits_rows = std::max(want.max_logits_rows, l.max_logits_rows);
            want.max_context = std::max(want.max_context, l.max_context);
        }
        ws_.reset();  // free the old one first: the new one may need that memory
        auto ws = model_->make_workspace(want);
        if (!ws.is_ok()) return ws.status();
        ws_ = std::move(ws).value();
        return Status::ok();
    }

    std::optional<Model> model_;
    std::optional<Workspace> ws_;
};

// A Linear layer (nn.Linear layout) for direct use and benchmarks.
class LinearHandle {
public:
    std::string create(uintptr_t weight, uintptr_t bias, size_t in_features, size_t out_features) {
        auto op = LinearOp::create(ptr<float>(weight), ptr<float>(bias), in_features, out_features);
        if (!op.is_ok()) return error_of(op.status());
        op_ = std::move(op).value();
        return "";
    }
    std::string forward(uintptr_t x, size_t rows, uintptr_t y) const {
        return error_of(op_.forward(rows, ptr<float>(x), reinterpret_cast<float*>(y)));
    }

private:
    LinearOp op_;
};

std::string attention_op(const AttentionArgs& a) {
    AttentionRequest r;
    if (Status s = attention_options(a.score, a.normalize, &r.options); !s.is_ok()) return error_of(s);
    r.n_seq_q = a.n_seq_q;
    r.n_seq_k = a.n_seq_k;
    r.d_k = a.d_k;
    r.d_v = a.d_v;
    r.q = ptr<float>(a.q);
    r.k = ptr<float>(a.k);
    r.v = ptr<float>(a.v);
    r.additive_dim = a.additive_dim;
    r.w_q = ptr<float>(a.w_q);
    r.w_k = ptr<float>(a.w_k);
    r.w_v = ptr<float>(a.w_v);
    r.key_padding = ptr<uint8_t>(a.key_padding);
    r.attn_mask = ptr<float>(a.attn_mask);
    r.causal = a.causal;
    return error_of(attention(r, reinterpret_cast<float*>(a.out), reinterpret_cast<float*>(a.weights)));
}

std::string layer_norm_op(size_t rows, size_t d, uintptr_t x, uintptr_t gamma, uintptr_t beta, float eps, uintptr_t y) {
    return error_of(layer_norm(rows, d, ptr<float>(x), ptr<float>(gamma), ptr<float>(beta), eps, reinterpret_cast<float*>(y)));
}

std::string positional_op(size_t n, size_t d, uintptr_t out) {
    return error_of(positional_encoding(n, d, reinterpret_cast<float*>(out)));
}

// The description JSON text, or "\t<message>" when the bytes are not a safetensors file.
std::string describe_op(uintptr_t data, size_t size) {
    auto d = describe_safetensors(ptr<uint8_t>(data), size);
    return d.is_ok() ? d.value() : std::string("\t") + d.status().message();
}

std::string simd_arch_name() { return simd_arch(); }
size_t simd_lane_count() { return simd_lanes(); }
double live_bytes() { return double(Buffer::live_bytes()); }
// The highest live_bytes() since the last reset: a load's peak (packed weights + staging).
double peak_live_bytes() { return double(Buffer::peak_live_bytes()); }
void reset_peak_live_bytes() { Buffer::reset_peak_live_bytes(); }

}  // namespace
}  // namespace simdformer::bindings

EMSCRIPTEN_BINDINGS(simdformer) {
    using namespace emscripten;
    using namespace simdformer::bindings;
    value_object<SequenceArgs>("SequenceArgs")
        .field("nSeq", &SequenceArgs::n_seq)
        .field("embeddings", &SequenceArgs::embeddings)
        .field("tokens", &SequenceArgs::tokens)
        .field("keyPadding", &SequenceArgs::key_padding)
        .field("attnMask", &SequenceArgs::attn_mask)
        .field("causal", &SequenceArgs::causal);
    value_object<ForwardArgs>("ForwardArgs")
        .field("nBatch", &ForwardArgs::n_batch)
        .field("src", &ForwardArgs::src)
        .field("tgt", &ForwardArgs::tgt)
        .field("key", &ForwardArgs::key)
        .field("value", &ForwardArgs::value)
        .field("nSeqK", &ForwardArgs::n_seq_k)
        .field("keyPaddingK", &ForwardArgs::key_padding_k)
        .field("memory", &ForwardArgs::memory)
        .field("nSeqMemory", &ForwardArgs::n_seq_memory)
        .field("memoryKeyPadding", &ForwardArgs::memory_key_padding)
        .field("score", &ForwardArgs::score)
        .field("normalize", &ForwardArgs::normalize)
        .field("needWeights", &ForwardArgs::need_weights)
        .field("encoderOnly", &ForwardArgs::encoder_only);
    value_object<GenerateArgs>("GenerateArgs")
        .field("nBatch", &GenerateArgs::n_batch)
        .field("src", &GenerateArgs::src)
        .field("maxLength", &GenerateArgs::max_length)
        .field("bos", &GenerateArgs::bos)
        .field("eos", &GenerateArgs::eos)
        .field("score", &GenerateArgs::score)
        .field("normalize", &GenerateArgs::normalize)
        .field("needWeights", &GenerateArgs::need_weights);
    value_object<DecodeArgs>("DecodeArgs")
        .field("nBatch", &DecodeArgs::n_batch)
        .field("nSeq", &DecodeArgs::n_seq)
        .field("tokens", &DecodeArgs::tokens)
        .field("attentionMask", &DecodeArgs::attention_mask)
        .field("maxNewTokens", &DecodeArgs::max_new_tokens)
        .field("temperature", &DecodeArgs::temperature)
        .field("topK", &DecodeArgs::top_k)
        .field("topP", &DecodeArgs::top_p)
        .field("seed", &DecodeArgs::seed)
        .field("stopTokens", &DecodeArgs::stop_tokens)
        .field("nStopTokens", &DecodeArgs::n_stop_tokens)
        .field("padToken", &DecodeArgs::pad_token);
    value_object<AttentionArgs>("AttentionArgs")
        .field("nSeqQ", &AttentionArgs::n_seq_q)
        .field("nSeqK", &AttentionArgs::n_seq_k)
        .field("dK", &AttentionArgs::d_k)
        .field("dV", &AttentionArgs::d_v)
        .field("q", &AttentionArgs::q)
        .field("k", &AttentionArgs::k)
        .field("v", &AttentionArgs::v)
        .field("score", &AttentionArgs::score)
        .field("normalize", &AttentionArgs::normalize)
        .field("additiveDim", &AttentionArgs::additive_dim)
        .field("wQ", &AttentionArgs::w_q)
        .field("wK", &AttentionArgs::w_k)
        .field("wV", &AttentionArgs::w_v)
        .field("keyPadding", &AttentionArgs::key_padding)
        .field("attnMask", &AttentionArgs::attn_mask)
        .field("causal", &AttentionArgs::causal)
        .field("out", &AttentionArgs::out)
        .field("weights", &AttentionArgs::weights);
    value_object<TextArgs>("TextArgs")
        .field("nBatch", &TextArgs::n_batch)
        .field("nSeq", &TextArgs::n_seq)
        .field("tokens", &TextArgs::tokens)
        .field("tokenTypes", &TextArgs::token_types)
        .field("attentionMask", &TextArgs::attention_mask)
        .field("needWeights", &TextArgs::need_weights)
        .field("needPooler", &TextArgs::need_pooler)
        .field("logitsRows", &TextArgs::logits_rows)
        .field("nLogitsRows", &TextArgs::n_logits_rows);
    class_<ModelHandle>("ModelHandle")
        .constructor<>()
        .function("load", &ModelHandle::load)
        .function("loadCheckpoint", &ModelHandle::load_checkpoint)
        .function("infoJson", &ModelHandle::info_json)
        .function("forwardText", &ModelHandle::forward_text)
        .function("pooler", &ModelHandle::pooler)
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
        .function("output", &ModelHandle::output)
        .function("outputRows", &ModelHandle::output_rows)
        .function("logits", &ModelHandle::logits)
        .function("logitsCols", &ModelHandle::logits_cols)
        .function("generated", &ModelHandle::generated)
        .function("generatedLength", &ModelHandle::generated_length)
        .function("workspaceBytes", &ModelHandle::workspace_bytes)
        .function("attention", &ModelHandle::attention);
    class_<LinearHandle>("LinearHandle")
        .constructor<>()
        .function("create", &LinearHandle::create)
        .function("forward", &LinearHandle::forward);
    function("attention", &attention_op);
    function("positionalEncoding", &positional_op);
    function("layerNorm", &layer_norm_op);
    function("describeSafetensors", &describe_op);
    function("simdArch", &simd_arch_name);
    function("simdLanes", &simd_lane_count);
    function("liveBytes", &live_bytes);
    function("peakLiveBytes", &peak_live_bytes);
    function("resetPeakLiveBytes", &reset_peak_live_bytes);
}
