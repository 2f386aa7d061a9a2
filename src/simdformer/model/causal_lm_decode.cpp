// Token-by-token decoding of causal language models (GPT-2, Llama, Qwen2, Mistral), one step per
// call.
//
// decode_begin runs every prompt token but the last through the blocks, which fills each
// layer's key/value cache ([n_batch, max_context, kv_width], the layout attention reads). Each
// decode_step then consumes one token per item (the prompt's last one first, then the previous
// step's choice): its keys and values are appended to the cache in place, its query attends over
// the cache (GEMV projections, the one-query attention path), ln_f and the LM head give the
// logits, and the sampler picks the next token. Every step is O(context) work and allocates
// nothing.
//
// Positions follow Hugging Face's generate (prepare_inputs_for_generation: position_ids from the
// attention mask): the count of real tokens before a token, so a prompt padded on the left
// continues exactly as it would alone; rotary models rotate by these positions, and a sliding
// window counts cache slots, as HF's masks do. (A plain forward, forward_text, uses arange(n) as
// HF's forward does.)
#include <algorithm>
#include <limits>

#include "simdformer/detail/validate.h"
#include "simdformer/model/causal_lm.h"

namespace simdformer::detail {
// Positions, the padding bias of every prompt key, and every prompt token but the last through
// the blocks (their keys and values into the caches).
void CausalLm::prefill(const DecodeRequest& r, CausalLmWorkspace& ws) const {
    const size_t B = r.n_batch, n = r.n_seq, d = shape_.d_model, cap = ws.max_context, kvw = shape_.kv_width();
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
    ws.rotary_seq_len = longest_sequence(B, n, pos, n);
    const size_t p = n - 1;  // the last prompt token is the first step's input
    ws.past = p;
    if (p == 0) return;
    float* x = ws.x.data();  // [B * p, d]
    for (size_t b = 0; b < B; ++b) stack_.embeddings.embed(p, r.tokens + b * n, nullptr, pos + b * n, x + b * p * d, d);
    fill_causal_mask(p, p, 0, ws.causal_mask.data());
    SequenceMasks masks;
    masks.key_bias = ws.cache_bias.data();
    masks.key_bias_stride = cap;
    masks.combine_by_fill = stack_.config.masks_by_fill;
    masks.attn_mask = ws.causal_mask.data();  // [p, p]
    window_masks(p, p, ws, &masks);
    // Dynamic rotary scaling sees the whole prompt, as HF's prefill call does (the last prompt
    // token is this runner's first step, HF's last prefill row).
    stack_.rotary_rows(B, p, pos, n, longest_sequence(B, n, pos, n), ws, &masks);
    const LayerScratch scratch = ws.layers.scratch();
    const AttentionOptions options = stack_.attention_options();
    for (size_t i = 0; i < stack_.layers.size(); ++i) {
        const KeyValues cache{ws.cache_k[i].data(), ws.cache_v[i].data(), cap * kvw, 0};
        stack_.layers[i].forward_cached(B, p, x, cache, masks, options, scratch, nullptr);
    }
}

// One token per item through every block over the cache, ln_f, the LM head, the sampler.
Status CausalLm::decode_step(WorkspaceImpl& any) const {
    auto& ws = static_cast<CausalLmWorkspace&>(any);
    Decoding& st = ws.decoding;
    const size_t B = st.n_batch, d = shape_.d_model, h = shape_.nhead, cap = ws.max_context, past = ws.past;
    const size_t kvw = shape_.kv_width();
    float* x = ws.x.data();  // [B, d]
    for (size_t b = 0; b < B; ++b) {
        stack_.embeddings.embed(1, &ws.next_input[b], nullptr, &ws.next_position[b], x + b * d, d);
        ws.cache_bias.data()[b * cap + past] = 0.0f;  // the consumed token is a real key
    }
    SequenceMasks masks;  // one query sees every cached key: no causal mask (but a sliding window)
    masks.key_bias = ws.cache_bias.data();
    masks.key_bias_stride = cap;
    masks.combine_by_fill = stack_.config.masks_by_fill;
    window_masks(1, past + 1, ws, &masks);
    // HF's dynamic scaling keeps the frequencies of the longest sequence seen: during one
    // generation that is the current step's (positions only grow), never the prompt's.
    const size_t seq_len = std::max(ws.rotary_seq_len, longest_sequence(B, 1, ws.next_position.data(), 1));
    ws.rotary_seq_len = seq_len;
    stack_.rotary_rows(B, 1, ws.next_position.data(), 1, seq_len, ws, &masks);
    const LayerScratch scratch = ws.layers.scratch();
    const AttentionOptions options = stack_.attention_options();
    for (size_t i = 0; i < stack_.layers.size(); ++i) {
        const KeyValues cache{ws.cache_k[i].data(), ws.cache_v[i].data(), cap * kvw, past};
        // Always recorded: the one-query path computes the weights in this buffer, [B, h, 1, past + 1].
        float* weights = ws.step_maps_data.data() + i * B * h * cap;
        stack_.layers[i].forward_cached(B, 1, x, cache, masks, options, scratch, weights);
        ws.step_maps[i] = AttentionMap{weights, B, h, 1, past + 1};
    }
    if (stack_.final_norm) stack_.final_norm->forward(B, x, d, x, d);
    const size_t vocab = stack_.config.vocab_size;
    lm().forward(B, x, d, ws.logits.data(), vocab);  // [B, vocab]
    ws.output = x;
    ws.output_rows = B;
    ws.logits_out = ws.logits.data();
    ws.logits_cols = vocab;
    SF_RETURN_IF_ERROR(st.choose_tokens(ws.logits.data(), vocab));
    ws.past = past + 1;
    for (size_t b = 0; b < B; ++b) {
        ws.next_input[b] = st.step_tokens[b];
        ++ws.next_position[b];
    }
    return Status::ok();
}

Status CausalLm::decode_begin(const DecodeRequest& r, WorkspaceImpl& any) const {
    SF_RETURN_IF_ERROR(check_owner(any));
    auto& ws = static_cast<CausalLmWorkspace&>(any);
    SF_RETURN_IF_ERROR(check_decode(r, ws));
    ws.start_call();
    for (AttentionMap& map : ws.step_maps) map = AttentionMap{};
    Decoding& st = ws.decoding;
    st.begin(r.n_batch, r.max_new_tokens, stack_.config.vocab_size, r.sampler);
    for (size_t i = 0; i < r.n_stop_tokens; ++i) st.add_stop(r.stop_tokens[i]);
    st.pad = r.pad_token >= 0 ? int32_t(r.pad_token) : st.n_stop ? st.stop[0] : 0;
    prefill(r, ws);
    st.active = true;
    return Status::ok();
}

}  // namespace simdformer::detail
