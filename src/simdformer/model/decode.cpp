// Token-by-token decoding of causal language models (GPT-2), one step per call.
//
// decode_begin runs every prompt token but the last through the blocks, which fills each
// layer's key/value cache ([n_batch, max_context, d_model], the layout attention reads). Each
// decode_step then consumes one token per item (the prompt's last one first, then the previous
// step's choice): its keys and values are appended to the cache in place, its query attends over
// the cache (GEMV projections, the one-query attention path), ln_f and the tied LM head give the
// logits, and the sampler picks the next token. Every step is O(context) work and allocates
// nothing.
//
// Positions follow Hugging Face's generate for GPT-2 (prepare_inputs_for_generation): the count
// of real tokens before a token, so a prompt padded on the left continues exactly as it would
// alone. (A plain forward, forward_text, uses arange(n) as HF's forward does.)
#include <cstring>
#include <limits>

#include "simdformer/model/model_impl.h"

namespace simdformer {
namespace {

std::string str(size_t v) { return std::to_string(v); }

bool is_stop(const DecodeState& st, int32_t token) {
    for (size_t i = 0; i < st.n_stop; ++i)
        if (st.stop[i] == token) return true;
    return false;
}

}  // namespace

void detail::choose_tokens(const float* logits, size_t ld, WorkspaceImpl& ws) {
    DecodeState& st = ws.decode;
    bool all_ended = true;
    for (size_t b = 0; b < st.n_batch; ++b) {
        int32_t next = st.pad;  // an item that has ended produces the pad token (HF's generate does the same)
        if (!ws.finished[b]) {
            next = st.sampler.sample(logits + b * ld, st.vocab, ws.sample_probs.data(), ws.sample_order.data());
            if (is_stop(st, next)) ws.finished[b] = 1;
        }
        ws.step_tokens[b] = next;
        all_ended = all_ended && ws.finished[b];
    }
    ++st.steps;
    st.done = all_ended || st.steps >= st.max_steps;
}

Status ModelImpl::check_decode(const DecodeRequest& r, const WorkspaceImpl& ws) const {
    if (!causal_text() || !has_lm_head)
        return Status::invalid("decode_begin needs a causal language model with an LM head (gpt2); use generate_begin for "
                               "encoder-decoder transformers");
    const TextConfig& t = *text;
    SF_RETURN_IF_ERROR(check_call(ws, r.n_batch, false, AttentionOptions{}));
    if (r.n_seq == 0) return Status::invalid("decode_begin: the prompt is empty (n_seq=0)");
    if (r.n_seq > ws.max_src)
        return Status::invalid("decode_begin: n_seq=" + str(r.n_seq) + " exceeds the workspace's limit of " + str(ws.max_src));
    if (r.max_new_tokens == 0) return Status::invalid("decode_begin: max_new_tokens must be at least 1");
    if (r.max_new_tokens > t.max_positions || r.n_seq + r.max_new_tokens > t.max_positions)
        return Status::invalid("decode_begin: n_seq=" + str(r.n_seq) + " + max_new_tokens=" + str(r.max_new_tokens) +
                               " exceeds the model's " + str(t.max_positions) + " positions");
    if (r.n_seq + r.max_new_tokens > ws.limits.max_context)
        return Status::invalid("decode_begin: n_seq=" + str(r.n_seq) + " + max_new_tokens=" + str(r.max_new_tokens) +
                               " exceeds the workspace's max_context=" + str(ws.limits.max_context));
    if (!r.tokens) return Status::invalid("decode_begin: tokens are required");
    const size_t n = r.n_batch * r.n_seq;
    for (size_t i = 0; i < n; ++i)
        if (r.tokens[i] < 0 || size_t(r.tokens[i]) >= t.vocab_size)
            return Status::invalid("token id " + std::to_string(r.tokens[i]) + " at index " + str(i) + " is outside [0, " +
                                   str(t.vocab_size) + ")");
    if (r.attention_mask) {
        for (size_t i = 0; i < n; ++i)
            if (r.attention_mask[i] > 1)
                return Status::invalid("attention_mask holds " + std::to_string(int(r.attention_mask[i])) + " at index " +
                                       str(i) + " (allowed: 1 = token, 0 = padding)");
        for (size_t b = 0; b < r.n_batch; ++b)
            if (!r.attention_mask[b * r.n_seq + r.n_seq - 1])
                return Status::invalid("attention_mask: prompt " + str(b) +
                                       " ends with padding; pad prompts on the left for decoding (as Hugging Face "
                                       "does for decoder-only models)");
    }
    SF_RETURN_IF_ERROR(check_sampler(r.sampler, t.vocab_size));
    if (r.n_stop_tokens > kMaxStopTokens)
        return Status::invalid("n_stop_tokens=" + str(r.n_stop_tokens) + " exceeds " + str(kMaxStopTokens));
    if (r.n_stop_tokens > 0 && !r.stop_tokens) return Status::invalid("n_stop_tokens > 0 but no stop_tokens given");
    for (size_t i = 0; i < r.n_stop_tokens; ++i)
        if (r.stop_tokens[i] < 0 || size_t(r.stop_tokens[i]) >= t.vocab_size)
            return Status::invalid("stop token " + std::to_string(r.stop_tokens[i]) + " is outside [0, " +
                                   str(t.vocab_size) + ")");
    if (r.pad_token >= int64_t(t.vocab_size) || r.pad_token < -1)
        return Status::invalid("pad_token " + std::to_string(r.pad_token) + " is outside [0, " + str(t.vocab_size) + ")");
    return Status::ok();
}

// Positions, the padding bias of every prompt key, and every prompt token but the last through
// the blocks (their keys and values into the caches).
void ModelImpl::prefill(const DecodeRequest& r, WorkspaceImpl& ws) const {
    const size_t B = r.n_batch, n = r.n_seq, d = config.d_model, cap = ws.limits.max_context;
    const float lowest = std::numeric_limits<float>::lowest();  // HF's finfo(float32).min
    int32_t* pos = ws.position_ids.data();                      // [B, n]
    for (size_t b = 0; b < B; ++b) {
        int32_t count = 0;
        for (size_t i = 0; i < n; ++i) {
            const bool real = !r.attention_mask || r.attention_mask[b * n + i];
            // HF generate: position_ids = attention_mask.cumsum(-1) - 1, filled with 1 at pads.
            pos[b * n + i] = real ? count++ : 1;
            ws.cache_bias.data()[b * cap + i] = real ? 0.0f : lowest;
        }
        ws.next_input[b] = r.tokens[b * n + n - 1];
        ws.next_position[b] = pos[b * n + n - 1];
    }
    const size_t p = n - 1;  // the last prompt token is the first step's input
    ws.decode.past = p;
    if (p == 0) return;
    float* x = ws.x.data();  // [B * p, d]
    for (size_t b = 0; b < B; ++b) text_embeddings->embed(p, r.tokens + b * n, nullptr, pos + b * n, x + b * p * d, d);
    fill_causal_mask(p, ws.causal_mask.data());
    SequenceMasks masks;
    masks.key_bias = ws.cache_bias.data();
    masks.key_bias_stride = cap;
    masks.attn_mask = ws.causal_mask.data();  // [p, p]
    const LayerScratch scratch = ws.scratch();
    const AttentionOptions options = text_attention();
    for (size_t i = 0; i < encoder.size(); ++i) {
        const SelfCache cache{ws.cache_k[i].data(), ws.cache_v[i].data(), cap * d, 0};
        encoder[i].forward_cached(B, p, x, cache, masks, options, scratch, nullptr);
    }
}

// One token per item through every block over the cache, ln_f, the LM head, the sampler.
void ModelImpl::text_step(WorkspaceImpl& ws) const {
    DecodeState& st = ws.decode;
    const size_t B = st.n_batch, d = config.d_model, h = config.nhead, cap = ws.limits.max_context, past = st.past;
    float* x = ws.x.data();  // [B, d]
    for (size_t b = 0; b < B; ++b) {
        text_embeddings->embed(1, &ws.next_input[b], nullptr, &ws.next_position[b], x + b * d, d);
        ws.cache_bias.data()[b * cap + past] = 0.0f;  // the consumed token is a real key
    }
    SequenceMasks masks;  // one query sees every cached key: no causal mask
    masks.key_bias = ws.cache_bias.data();
    masks.key_bias_stride = cap;
    const LayerScratch scratch = ws.scratch();
    const AttentionOptions options = text_attention();
    for (size_t i = 0; i < encoder.size(); ++i) {
        const SelfCache cache{ws.cache_k[i].data(), ws.cache_v[i].data(), cap * d, past};
        float* weights = ws.step_maps.data() + i * B * h * cap;  // [B, h, 1, past + 1]
        encoder[i].forward_cached(B, 1, x, cache, masks, options, scratch, weights);
        ws.step_maps_view[i] = AttentionMap{weights, B, h, 1, past + 1};
    }
    if (encoder_norm) encoder_norm->forward(B, x, d, x, d);
    const size_t vocab = text->vocab_size;
    lm().forward(B, x, d, ws.logits.data(), vocab);  // [B, vocab]
    ws.output = x;
    ws.output_rows = B;
    ws.logits_out = ws.logits.data();
    ws.logits_cols = vocab;
    choose_tokens(ws.logits.data(), vocab, ws);
    st.past = past + 1;
    for (size_t b = 0; b < B; ++b) {
        ws.next_input[b] = ws.step_tokens[b];
        ++ws.next_position[b];
    }
}

Status Model::decode_begin(const DecodeRequest& r, Workspace& workspace) const {
    const ModelImpl& m = *impl_;
    WorkspaceImpl& ws = *workspace.impl_;
    SF_RETURN_IF_ERROR(m.check_decode(r, ws));
    ws.decode = DecodeState{};
    ws.clear_maps();
    for (AttentionMap& map : ws.step_maps_view) map = AttentionMap{};
    ws.output = nullptr;
    ws.logits_out = nullptr;
    ws.generated_length = 0;
    DecodeState& st = ws.decode;
    st.n_batch = r.n_batch;
    st.max_steps = r.max_new_tokens;
    st.vocab = m.text->vocab_size;
    for (size_t i = 0; i < r.n_stop_tokens; ++i) st.stop[st.n_stop++] = r.stop_tokens[i];
    st.pad = r.pad_token >= 0 ? int32_t(r.pad_token) : st.n_stop ? st.stop[0] : 0;
    st.sampler = Sampler(r.sampler);
    for (size_t b = 0; b < r.n_batch; ++b) ws.finished[b] = 0;
    m.prefill(r, ws);
    st.active = true;
    return Status::ok();
}

Status Model::decode_step(Workspace& workspace) const {
    WorkspaceImpl& ws = *workspace.impl_;
    const DecodeState& st = ws.decode;
    if (!st.active) return Status::invalid("decode_step: no decode_begin or generate_begin in progress");
    if (st.done) return Status::invalid("decode_step: decoding is done (every item ended or the step budget is used)");
    if (st.seq2seq) impl_->seq2seq_step(ws);
    else impl_->text_step(ws);
    return Status::ok();
}

bool Workspace::decoding() const { return impl_->decode.active; }
bool Workspace::decode_done() const { return impl_->decode.done; }
size_t Workspace::decode_steps() const { return impl_->decode.steps; }
const int32_t* Workspace::step_tokens() const { return impl_->step_tokens.data(); }
const uint8_t* Workspace::step_finished() const { return impl_->finished.data(); }
const std::vector<AttentionMap>& Workspace::step_attention() const { return impl_->step_maps_view; }
void Workspace::end_decoding() { impl_->decode.active = false; }

}  // namespace simdformer
