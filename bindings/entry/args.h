// The argument objects of the entry points, exactly as they cross from JavaScript: every size,
// address and flag a Number (double), every name a TextArg. The entry points check each field
// (numbers.h) before building the C++ request, so nothing here is trusted.
#pragma once

#include "numbers.h"

namespace simdformer::entry {

// One side (src or tgt) of a model call.
struct SequenceArgs {
    Number n_seq = 0;
    Number embeddings = 0;   // f32 [B, n, d_model] or 0
    Number tokens = 0;       // i32 [B, n] or 0
    Number key_padding = 0;  // u8 [B, n] (1 = masked) or 0
    Number attn_mask = 0;    // f32 [n, n] ([n, n_seq_k] for attention with its own keys) or 0
    Number causal = 0;
};

struct ForwardArgs {
    Number n_batch = 0;
    SequenceArgs src, tgt;
    Number key = 0, value = 0;  // multihead_attention: f32 [B, n_seq_k, d_model] each, or 0
    Number n_seq_k = 0;
    Number key_padding_k = 0;   // u8 [B, n_seq_k] or 0
    Number memory = 0;          // decoders: f32 [B, n_seq_memory, d_model] or 0
    Number n_seq_memory = 0;
    Number memory_key_padding = 0;  // u8 [B, n_seq_memory] or 0
    TextArg score, normalize;       // attention option names
    Number need_weights = 0, encoder_only = 0;
};

struct GenerateArgs {
    Number n_batch = 0;
    SequenceArgs src;
    Number max_length = 0;  // 0: the workspace's target length
    Number bos = -1, eos = -1;  // -1: the config's
    TextArg score, normalize;
    Number need_weights = 0;
};

// forwardText (Hugging Face text encoders).
struct TextArgs {
    Number n_batch = 0, n_seq = 0;
    Number tokens = 0;          // i32 [B, n]
    Number token_types = 0;     // i32 [B, n] or 0
    Number attention_mask = 0;  // u8 [B, n] (1 = real token) or 0
    Number need_weights = 0, need_pooler = 0;
    Number logits_rows = 0;     // i32 [n_logits_rows] or 0
    Number n_logits_rows = 0;
    Number probe_out = 0;       // f32 [4, B * n, d_model] (TextRequest::probe_out) or 0
    Number probe_layer = 0;     // the layer probe_out views
};

// decodeBegin (a causal language model's DecodeRequest).
struct DecodeArgs {
    Number n_batch = 0, n_seq = 0;
    Number tokens = 0;          // i32 [B, n] prompts, padded on the left
    Number attention_mask = 0;  // u8 [B, n] (1 = real token) or 0
    Number max_new_tokens = 0;
    Number temperature = 0, top_k = 0, top_p = 1, seed = 0;  // SamplerOptions
    Number stop_tokens = 0;     // i32 [n_stop_tokens] or 0
    Number n_stop_tokens = 0;
    Number pad_token = -1;      // -1: the first stop token, else 0
};

// The standalone attention operation.
struct AttentionArgs {
    Number n_seq_q = 0, n_seq_k = 0, d_k = 0, d_v = 0;
    Number q = 0, k = 0, v = 0;  // f32 [n_q, d_k], [n_k, d_k], [n_k, d_v]
    TextArg score, normalize;
    Number additive_dim = 0;
    Number w_q = 0, w_k = 0, w_v = 0;  // f32 [d_a, d_k], [d_a, d_k], [d_a] or 0
    Number key_padding = 0;            // u8 [n_k] or 0
    Number attn_mask = 0;              // f32 [n_q, n_k] or 0
    Number causal = 0;
    Number out = 0;      // f32 [n_q, d_v]
    Number weights = 0;  // f32 [n_q, n_k] or 0
};

}  // namespace simdformer::entry
