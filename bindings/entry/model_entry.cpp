#include "model_entry.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "options.h"
#include "reply.h"
#include "simdformer/io/json_limits.h"
#include "simdformer/io/json_text.h"

namespace simdformer::entry {
namespace {

// Texts of a load: config.json, model.safetensors.index.json, load options, the shard list.
constexpr uint64_t kMaxJsonText = kMaxJsonBytes;
// Safetensors bytes handed over whole (the nn.Transformer dialect's load()).
constexpr uint64_t kMaxFileBytes = kMaxArrayBytes;

// One shard read through the ShardReader: the ByteSource the checkpoint loader pulls from.
class CallbackSource : public ByteSource {
public:
    CallbackSource(ShardReader& reader, size_t shard, uint64_t size, std::string name)
        : reader_(reader), shard_(shard), size_(size), name_(std::move(name)) {}
    uint64_t size() const override { return size_; }
    Status read(uint64_t offset, size_t n, uint8_t* dst) override {
        SF_RETURN_IF_ERROR(check_range(offset, n, size_, "'" + name_ + "'"));
        if (n == 0) return Status::ok();
        if (!reader_.read(shard_, offset, n, dst))
            return Status::io(cat({"'", name_, "': reading ", n, " bytes at offset ",
                                   offset, " failed"}));
        return Status::ok();
    }

private:
    ShardReader& reader_;
    size_t shard_;
    uint64_t size_;
    std::string name_;
};

struct ShardList {
    std::vector<std::unique_ptr<CallbackSource>> sources;
    std::vector<CheckpointShard> shards;
};

// [{"name": "...", "size": N}, ...] with N an exact integer <= 2^53 (a 64-bit file size).
Status parse_shards(std::string_view text, ShardReader& reader, ShardList* out) {
    SF_RETURN_IF_ERROR(check_json_limits(text, "shards"));
    ParsedJson parsed;
    parse_json(text, &parsed);
    const nlohmann::json& j = parsed.value;
    if (!j.is_array()) return Status::invalid("shards must be a JSON array of {name, size}");
    for (size_t i = 0; i < j.size(); ++i) {
        const nlohmann::json& s = j[i];
        const std::string where = "shards[" + std::to_string(i) + "]";
        if (!s.is_object() || s.size() != 2 || !s.contains("name") || !s.contains("size") || !s["name"].is_string())
            return Status::invalid(cat({where, " must be {name: string, size: number}"}));
        const nlohmann::json& size = s["size"];
        if (!size.is_number_unsigned() || size.get<uint64_t>() > kMaxExactInteger)
            return Status::invalid(cat({where, ".size must be an integer in [0, 2^53], not ", json_text(size)}));
        out->sources.push_back(
            std::make_unique<CallbackSource>(reader, i, size.get<uint64_t>(), s["name"].get<std::string>()));
        out->shards.push_back({s["name"].get<std::string>(), out->sources.back().get()});
    }
    return Status::ok();
}

Status integer_or_default(Number v, const char* what, int64_t* out) {
    if (v == -1) {
        *out = -1;
        return Status::ok();
    }
    uint64_t u = 0;
    SF_RETURN_IF_ERROR(integer(v, what, 0, INT32_MAX, &u));
    *out = int64_t(u);
    return Status::ok();
}

// A real number (a sampler setting): finite; its range is the core's to check.
Status finite(Number v, const char* what, float* out) {
    if (!std::isfinite(v)) return Status::invalid(cat({what, " must be a finite number, not ", js_text(v)}));
    *out = float(v);
    return Status::ok();
}

std::string to_string_view_copy(std::string_view v) { return std::string(v.data(), v.size()); }

}  // namespace

int ModelEntry::load(Number data, Number size_arg, const TextArg& config) {
    return guarded("loadModel", [&]() -> Status {
        SF_RETURN_IF_ERROR(idle("loadModel"));
        size_t n = 0;
        SF_RETURN_IF_ERROR(size(size_arg, "size", 0, kMaxFileBytes, &n));
        const uint8_t* bytes = nullptr;
        SF_RETURN_IF_ERROR(array_of(data, n, "data", n == 0, &bytes));
        std::string_view config_text;
        SF_RETURN_IF_ERROR(text(config, "config", kMaxJsonText, &config_text));
        ws_.reset();  // a workspace is shaped for one model
        model_.reset();
        auto m = Model::load(bytes, n, to_string_view_copy(config_text));
        if (!m.is_ok()) return m.status();
        model_ = std::move(m).value();
        return Status::ok();
    });
}

int check_load_callbacks(bool read_is_function, bool progress_given, bool progress_is_function) {
    return guarded("loadCheckpoint", [&]() -> Status {
        if (!read_is_function) return Status::invalid("loadCheckpoint: read must be a function");
        if (progress_given && !progress_is_function)
            return Status::invalid("loadCheckpoint: progress must be a function or undefined");
        return Status::ok();
    });
}

int ModelEntry::load_checkpoint(const TextArg& config, const TextArg& shards, const TextArg& index, ShardReader& reader,
                                LoadProgress progress, void* progress_user, const TextArg& options) {
    return guarded("loadCheckpoint", [&]() -> Status {
        SF_RETURN_IF_ERROR(idle("loadCheckpoint"));
        std::string_view config_text, shards_text, index_text, options_text;
        SF_RETURN_IF_ERROR(text(config, "config", kMaxJsonText, &config_text));
        SF_RETURN_IF_ERROR(text(shards, "shards", kMaxJsonText, &shards_text));
        SF_RETURN_IF_ERROR(text(index, "index", kMaxJsonText, &index_text));
        SF_RETURN_IF_ERROR(text(options, "options", kMaxJsonText, &options_text));
        LoadOptions load_options;
        SF_RETURN_IF_ERROR(parse_load_options(to_string_view_copy(options_text), &load_options));
        load_options.progress = progress;
        load_options.progress_user = progress_user;
        ShardList list;
        SF_RETURN_IF_ERROR(parse_shards(shards_text, reader, &list));
        ws_.reset();
        model_.reset();  // free the old model first: the new one may need that memory
        auto m = Model::load_checkpoint(to_string_view_copy(config_text), list.shards, to_string_view_copy(index_text),
                                        load_options);
        if (!m.is_ok()) return m.status();
        model_ = std::move(m).value();
        return Status::ok();
    });
}

int ModelEntry::info_json(std::string* out) const {
    return guarded("infoJson", [&]() -> Status {
        if (!model_) return Status::invalid("no model loaded");
        *out = model_->info_json();
        return Status::ok();
    });
}

int ModelEntry::config_json(std::string* out) const {
    return guarded("configJson", [&]() -> Status {
        if (!model_) return Status::invalid("no model loaded");
        *out = model_config_to_json(model_->config());
        return Status::ok();
    });
}

int ModelEntry::reserve(Number max_batch, Number max_src, Number max_tgt, Number record_attention) {
    return guarded("reserve", [&]() -> Status {
        if (!model_) return Status::invalid("no model loaded");
        SF_RETURN_IF_ERROR(idle("reserve"));
        WorkspaceLimits limits;
        SF_RETURN_IF_ERROR(size(max_batch, "maxBatch", 1, kMaxSize, &limits.max_batch));
        SF_RETURN_IF_ERROR(size(max_src, "maxSrcLength", 1, kMaxSize, &limits.max_src_len));
        SF_RETURN_IF_ERROR(size(max_tgt, "maxTgtLength", 1, kMaxSize, &limits.max_tgt_len));
        SF_RETURN_IF_ERROR(flag(record_attention, "recordAttention", &limits.record_attention));
        return model_->ensure_workspace(&ws_, limits);
    });
}

// The arrays of one side of a forward call, each checked to lie in memory with its full size:
// embeddings [B, n, d], tokens and key_padding [B, n], attn_mask [n, n_keys].
Status ModelEntry::check_sequence_arrays(const SequenceArgs& s, const char* side, size_t n_batch, size_t n_keys,
                                         SequenceInput* out) const {
    const std::string name(side);
    SF_RETURN_IF_ERROR(size(s.n_seq, (name + "." + s.n_seq_js).c_str(), 0, kMaxSize, &out->n_seq));
    uint64_t rows = 0, values = 0, mask = 0;
    SF_RETURN_IF_ERROR(product({n_batch, out->n_seq}, side, kMaxArrayBytes, &rows));
    SF_RETURN_IF_ERROR(product({rows, model_->config().d_model}, side, kMaxArrayBytes, &values));
    SF_RETURN_IF_ERROR(product({out->n_seq, n_keys ? n_keys : out->n_seq}, (name + ".attnMask").c_str(), kMaxArrayBytes, &mask));
    SF_RETURN_IF_ERROR(array_of(s.embeddings, values, (name + ".embeddings").c_str(), true, &out->embeddings));
    SF_RETURN_IF_ERROR(array_of(s.tokens, rows, (name + ".tokens").c_str(), true, &out->tokens));
    SF_RETURN_IF_ERROR(array_of(s.key_padding, rows, (name + ".keyPadding").c_str(), true, &out->key_padding));
    SF_RETURN_IF_ERROR(array_of(s.attn_mask, mask, (name + ".attnMask").c_str(), true, &out->attn_mask));
    return flag(s.causal, (name + "." + s.causal_js).c_str(), &out->causal);
}

int ModelEntry::forward(const ForwardArgs& a) {
    return guarded("forward", [&]() -> Status {
        if (!model_ || !ws_) return Status::invalid("no workspace reserved");
        SF_RETURN_IF_ERROR(idle("forward"));
        const size_t d = model_->config().d_model;
        ForwardRequest r;
        SF_RETURN_IF_ERROR(attention_options(a.score, a.normalize, &r.options));
        SF_RETURN_IF_ERROR(size(a.n_batch, a.n_batch_js, 1, kMaxSize, &r.n_batch));
        SF_RETURN_IF_ERROR(size(a.n_seq_k, a.n_seq_k_js, 0, kMaxSize, &r.n_seq_k));
        SF_RETURN_IF_ERROR(size(a.n_seq_memory, a.n_seq_memory_js, 0, kMaxSize, &r.n_seq_memory));
        const bool own_keys = a.key != 0;
        SF_RETURN_IF_ERROR(check_sequence_arrays(a.src, a.src_js, r.n_batch, own_keys ? r.n_seq_k : 0, &r.src));
        SF_RETURN_IF_ERROR(check_sequence_arrays(a.tgt, a.tgt_js, r.n_batch, 0, &r.tgt));
        uint64_t key_rows = 0, key_values = 0, memory_rows = 0, memory_values = 0;
        SF_RETURN_IF_ERROR(product({r.n_batch, r.n_seq_k}, "key", kMaxArrayBytes, &key_rows));
        SF_RETURN_IF_ERROR(product({key_rows, d}, "key", kMaxArrayBytes, &key_values));
        SF_RETURN_IF_ERROR(product({r.n_batch, r.n_seq_memory}, "memory", kMaxArrayBytes, &memory_rows));
        SF_RETURN_IF_ERROR(product({memory_rows, d}, "memory", kMaxArrayBytes, &memory_values));
        SF_RETURN_IF_ERROR(array_of(a.key, key_values, "key", true, &r.key));
        SF_RETURN_IF_ERROR(array_of(a.value, key_values, "value", true, &r.value));
        SF_RETURN_IF_ERROR(array_of(a.key_padding_k, key_rows, "keyPaddingK", true, &r.key_padding_k));
        SF_RETURN_IF_ERROR(array_of(a.memory, memory_values, "memory", true, &r.memory));
        SF_RETURN_IF_ERROR(array_of(a.memory_key_padding, memory_rows, "memoryKeyPadding", true, &r.memory_key_padding));
        SF_RETURN_IF_ERROR(flag(a.need_weights, a.need_weights_js, &r.need_weights));
        SF_RETURN_IF_ERROR(flag(a.encoder_only, a.encoder_only_js, &r.encoder_only));
        return model_->forward(r, *ws_);
    });
}

// generate's and generateBegin's arguments, checked.
Status ModelEntry::check_generate(const GenerateArgs& a, GenerateRequest* r) const {
    SF_RETURN_IF_ERROR(attention_options(a.score, a.normalize, &r->options));
    SF_RETURN_IF_ERROR(size(a.n_batch, a.n_batch_js, 1, kMaxSize, &r->n_batch));
    SF_RETURN_IF_ERROR(check_sequence_arrays(a.src, a.src_js, r->n_batch, 0, &r->src));
    SF_RETURN_IF_ERROR(size(a.max_length, a.max_length_js, 0, kMaxSize, &r->max_length));
    SF_RETURN_IF_ERROR(integer_or_default(a.bos, a.bos_js, &r->bos));
    SF_RETURN_IF_ERROR(integer_or_default(a.eos, a.eos_js, &r->eos));
    return flag(a.need_weights, a.need_weights_js, &r->need_weights);
}

int ModelEntry::generate(const GenerateArgs& a, StepCallback on_step, void* user) {
    return guarded("generate", [&]() -> Status {
        if (!model_ || !ws_) return Status::invalid("no workspace reserved");
        SF_RETURN_IF_ERROR(idle("generate"));
        GenerateRequest r;
        SF_RETURN_IF_ERROR(check_generate(a, &r));
        r.on_step = on_step;
        r.on_step_user = user;
        return model_->generate(r, *ws_);
    });
}

int ModelEntry::generate_begin(const GenerateArgs& a) {
    return guarded("generateBegin", [&]() -> Status {
        if (!model_ || !ws_) return Status::invalid("no workspace reserved");
        SF_RETURN_IF_ERROR(idle("generateBegin"));
        GenerateRequest r;
        SF_RETURN_IF_ERROR(check_generate(a, &r));
        return model_->generate_begin(r, *ws_);
    });
}

int ModelEntry::decode_begin(const DecodeArgs& a) {
    return guarded("decodeBegin", [&]() -> Status {
        if (!model_) return Status::invalid("no model loaded");
        SF_RETURN_IF_ERROR(idle("decodeBegin"));
        DecodeRequest r;
        SF_RETURN_IF_ERROR(size(a.n_batch, a.n_batch_js, 1, kMaxSize, &r.n_batch));
        SF_RETURN_IF_ERROR(size(a.n_seq, a.n_seq_js, 0, kMaxSize, &r.n_seq));  // 0: the core names the empty prompt
        SF_RETURN_IF_ERROR(size(a.max_new_tokens, a.max_new_tokens_js, 0, kMaxSize, &r.max_new_tokens));
        uint64_t tokens = 0, seed = 0;
        SF_RETURN_IF_ERROR(product({r.n_batch, r.n_seq}, "tokens", kMaxArrayBytes, &tokens));
        SF_RETURN_IF_ERROR(array_of(a.tokens, tokens, "tokens", tokens == 0, &r.tokens));
        SF_RETURN_IF_ERROR(array_of(a.attention_mask, tokens, "attentionMask", true, &r.attention_mask));
        SF_RETURN_IF_ERROR(size(a.n_stop_tokens, a.n_stop_tokens_js, 0, kMaxSize, &r.n_stop_tokens));
        SF_RETURN_IF_ERROR(array_of(a.stop_tokens, r.n_stop_tokens, "stopTokens", r.n_stop_tokens == 0, &r.stop_tokens));
        SF_RETURN_IF_ERROR(finite(a.temperature, a.temperature_js, &r.sampler.temperature));
        SF_RETURN_IF_ERROR(size(a.top_k, a.top_k_js, 0, kMaxSize, &r.sampler.top_k));
        SF_RETURN_IF_ERROR(finite(a.top_p, a.top_p_js, &r.sampler.top_p));
        SF_RETURN_IF_ERROR(integer(a.seed, a.seed_js, 0, kMaxExactInteger, &seed));
        r.sampler.seed = seed;
        SF_RETURN_IF_ERROR(integer_or_default(a.pad_token, a.pad_token_js, &r.pad_token));
        SF_ASSIGN_OR_RETURN(const WorkspaceLimits limits, workspace_limits(r));
        SF_RETURN_IF_ERROR(model_->ensure_workspace(&ws_, limits));
        return model_->decode_begin(r, *ws_);
    });
}

int ModelEntry::decode_step() {
    return guarded("decodeStep", [&]() -> Status {
        if (!ws_ || !ws_->decoding()) return Status::invalid("decodeStep: no decoding in progress (call decodeBegin or generateBegin first)");
        return model_->decode_step(*ws_);
    });
}

int ModelEntry::generate_finish() {
    return guarded("generateFinish", [&]() -> Status {
        if (!ws_ || !ws_->decoding()) return Status::invalid("generateFinish: no decoding in progress (call generateBegin first)");
        return model_->generate_finish(*ws_);
    });
}

void ModelEntry::decode_end() {
    if (ws_) ws_->end_decoding();
}

const AttentionMap* ModelEntry::step_attention(Number layer) const {
    if (!ws_ || !(layer >= 0 && layer < 1e6 && layer == double(size_t(layer)))) return nullptr;
    const auto& maps = ws_->step_attention();
    const size_t i = size_t(layer);
    return i < maps.size() && maps[i].data ? &maps[i] : nullptr;
}

Status ModelEntry::idle(const char* what) const {
    if (ws_ && ws_->decoding())
        return Status(StatusCode::kBusy, cat({what, ": the model is decoding; call decodeEnd first"}));
    return Status::ok();
}

int ModelEntry::forward_text(const TextArgs& a) {
    return guarded("forwardText", [&]() -> Status {
        if (!model_) return Status::invalid("no model loaded");
        SF_RETURN_IF_ERROR(idle("forwardText"));
        TextRequest r;
        SF_RETURN_IF_ERROR(size(a.n_batch, a.n_batch_js, 1, kMaxSize, &r.n_batch));
        SF_RETURN_IF_ERROR(size(a.n_seq, a.n_seq_js, 1, kMaxSize, &r.n_seq));
        SF_RETURN_IF_ERROR(size(a.n_logits_rows, a.n_logits_rows_js, 0, kMaxSize, &r.n_logits_rows));
        uint64_t tokens = 0;
        SF_RETURN_IF_ERROR(product({r.n_batch, r.n_seq}, "tokens", kMaxArrayBytes, &tokens));
        SF_RETURN_IF_ERROR(array_of(a.tokens, tokens, "tokens", false, &r.tokens));
        SF_RETURN_IF_ERROR(array_of(a.token_types, tokens, "tokenTypes", true, &r.token_types));
        SF_RETURN_IF_ERROR(array_of(a.attention_mask, tokens, "attentionMask", true, &r.attention_mask));
        SF_RETURN_IF_ERROR(array_of(a.logits_rows, r.n_logits_rows, "logitsRows", true, &r.logits_rows));
        SF_RETURN_IF_ERROR(flag(a.need_weights, a.need_weights_js, &r.need_weights));
        SF_RETURN_IF_ERROR(flag(a.need_pooler, a.need_pooler_js, &r.need_pooler));
        SF_RETURN_IF_ERROR(flag(a.need_classifier, a.need_classifier_js, &r.need_classifier));
        SF_RETURN_IF_ERROR(flag(a.need_token_logits, a.need_token_logits_js, &r.need_token_logits));
        // The probe: layer probe_layer's q, k, v and context (and for rotary models q and k
        // before the rotation), [B * n, probe_width] (checked by the core).
        uint64_t probe = 0;
        SF_RETURN_IF_ERROR(size(a.probe_layer, a.probe_layer_js, 0, kMaxSize, &r.probe_layer));
        SF_RETURN_IF_ERROR(product({tokens, model_->config().probe_width()}, "probeOut", kMaxArrayBytes, &probe));
        SF_RETURN_IF_ERROR(array_of(a.probe_out, probe, "probeOut", true, &r.probe_out));
        SF_RETURN_IF_ERROR(model_->ensure_workspace(&ws_, workspace_limits(r)));
        return model_->forward_text(r, *ws_);
    });
}

const AttentionMap* ModelEntry::attention(Number kind, Number layer) const {
    if (!ws_ || !(kind == 0 || kind == 1 || kind == 2) || !(layer >= 0 && layer < 1e6 && layer == double(size_t(layer))))
        return nullptr;
    const auto& maps = kind == 0 ? ws_->encoder_attention() : kind == 1 ? ws_->decoder_self_attention()
                                                                        : ws_->decoder_cross_attention();
    const size_t i = size_t(layer);
    return i < maps.size() && maps[i].data ? &maps[i] : nullptr;
}

}  // namespace simdformer::entry
