// The argument objects of the entry points, exactly as they cross from JavaScript: every size,
// address and flag a Number (double), every name a TextArg. The entry points check each field
// (numbers.h) before building the C++ request, so nothing here is trusted.
//
// Each object's fields are written once, in the tables below: X(kind, member, jsName, init).
// kind is number (a JS number), flag (true / false), text ({ptr, length} of UTF-8 bytes in wasm
// memory) or sequence (a nested SequenceArgs object). The structs are declared from the tables;
// bindings/embind.cpp reads the JS objects by them (SF_READ_ARGS), and the checks of
// model_entry.cpp name a field in their messages by the same JS name (Args::member_js). A new
// option is one line of a table, plus its check.
#pragma once

#include "numbers.h"

namespace simdformer::entry {

// One side (src or tgt) of a model call.
#define SF_SEQUENCE_ARGS(X)                                                                   \
    X(number, n_seq, nSeq, 0)                                                                 \
    X(number, embeddings, embeddings, 0)  /* f32 [B, n, d_model] or 0 */                     \
    X(number, tokens, tokens, 0)          /* i32 [B, n] or 0 */                              \
    X(number, key_padding, keyPadding, 0) /* u8 [B, n] (1 = masked) or 0 */                  \
    X(number, attn_mask, attnMask, 0)     /* f32 [n, n] ([n, n_seq_k] with own keys) or 0 */ \
    X(flag, causal, causal, 0)

struct SequenceArgs;

#define SF_FORWARD_ARGS(X)                                                                          \
    X(number, n_batch, nBatch, 0)                                                                   \
    X(sequence, src, src, {})                                                                       \
    X(sequence, tgt, tgt, {})                                                                       \
    X(number, key, key, 0)     /* multihead_attention: f32 [B, n_seq_k, d_model] or 0 */           \
    X(number, value, value, 0) /* the same */                                                      \
    X(number, n_seq_k, nSeqK, 0)                                                                    \
    X(number, key_padding_k, keyPaddingK, 0) /* u8 [B, n_seq_k] or 0 */                             \
    X(number, memory, memory, 0)             /* decoders: f32 [B, n_seq_memory, d_model] or 0 */   \
    X(number, n_seq_memory, nSeqMemory, 0)                                                          \
    X(number, memory_key_padding, memoryKeyPadding, 0) /* u8 [B, n_seq_memory] or 0 */              \
    X(text, score, score, {})                          /* attention option names */                \
    X(text, normalize, normalize, {})                                                               \
    X(flag, need_weights, needWeights, 0)                                                           \
    X(flag, encoder_only, encoderOnly, 0)

#define SF_GENERATE_ARGS(X)                                                \
    X(number, n_batch, nBatch, 0)                                          \
    X(sequence, src, src, {})                                              \
    X(number, max_length, maxLength, 0) /* 0: the workspace's target length */ \
    X(number, bos, bos, -1)             /* -1: the config's */             \
    X(number, eos, eos, -1)                                                \
    X(text, score, score, {})                                              \
    X(text, normalize, normalize, {})                                      \
    X(flag, need_weights, needWeights, 0)

// forwardText (Hugging Face text encoders).
#define SF_TEXT_ARGS(X)                                                                     \
    X(number, n_batch, nBatch, 0)                                                           \
    X(number, n_seq, nSeq, 0)                                                               \
    X(number, tokens, tokens, 0)                  /* i32 [B, n] */                          \
    X(number, token_types, tokenTypes, 0)         /* i32 [B, n] or 0 */                     \
    X(number, attention_mask, attentionMask, 0)   /* u8 [B, n] (1 = real token) or 0 */     \
    X(flag, need_weights, needWeights, 0)                                                   \
    X(flag, need_pooler, needPooler, 0)                                                     \
    X(flag, need_classifier, needClassifier, 0)                                             \
    X(flag, need_token_logits, needTokenLogits, 0)                                          \
    X(number, logits_rows, logitsRows, 0)         /* i32 [n_logits_rows] or 0 */            \
    X(number, n_logits_rows, nLogitsRows, 0)                                                \
    X(number, probe_out, probeOut, 0)             /* f32 [B * n * probe_width] or 0 */        \
    X(number, probe_layer, probeLayer, 0)         /* the layer probe_out views */

// decodeBegin (a causal language model's DecodeRequest).
#define SF_DECODE_ARGS(X)                                                               \
    X(number, n_batch, nBatch, 0)                                                       \
    X(number, n_seq, nSeq, 0)                                                           \
    X(number, tokens, tokens, 0)                /* i32 [B, n] prompts, padded on the left */ \
    X(number, attention_mask, attentionMask, 0) /* u8 [B, n] (1 = real token) or 0 */   \
    X(number, max_new_tokens, maxNewTokens, 0)                                          \
    X(number, temperature, temperature, 0)      /* SamplerOptions */                    \
    X(number, top_k, topK, 0)                                                           \
    X(number, top_p, topP, 1)                                                           \
    X(number, seed, seed, 0)                                                            \
    X(number, stop_tokens, stopTokens, 0)       /* i32 [n_stop_tokens] or 0 */          \
    X(number, n_stop_tokens, nStopTokens, 0)                                            \
    X(number, pad_token, padToken, -1)          /* -1: the first stop token, else 0 */

// The standalone attention operation.
#define SF_ATTENTION_ARGS(X)                                                    \
    X(number, n_seq_q, nSeqQ, 0)                                                \
    X(number, n_seq_k, nSeqK, 0)                                                \
    X(number, d_k, dK, 0)                                                       \
    X(number, d_v, dV, 0)                                                       \
    X(number, q, q, 0) /* f32 [n_q, d_k] */                                     \
    X(number, k, k, 0) /* f32 [n_k, d_k] */                                     \
    X(number, v, v, 0) /* f32 [n_k, d_v] */                                     \
    X(text, score, score, {})                                                   \
    X(text, normalize, normalize, {})                                           \
    X(number, additive_dim, additiveDim, 0)                                     \
    X(number, w_q, wQ, 0) /* f32 [d_a, d_k] or 0 */                             \
    X(number, w_k, wK, 0) /* f32 [d_a, d_k] or 0 */                             \
    X(number, w_v, wV, 0) /* f32 [d_a] or 0 */                                  \
    X(number, key_padding, keyPadding, 0) /* u8 [n_k] or 0 */                   \
    X(number, attn_mask, attnMask, 0)     /* f32 [n_q, n_k] or 0 */             \
    X(flag, causal, causal, 0)                                                  \
    X(number, out, out, 0)     /* f32 [n_q, d_v] */                             \
    X(number, weights, weights, 0) /* f32 [n_q, n_k] or 0 */

// The C++ type of each kind.
using number_arg = Number;
using flag_arg = Number;
using text_arg = TextArg;
using sequence_arg = SequenceArgs;

// A member and its JS name (`n_batch` and `n_batch_js` = "nBatch").
#define SF_DECLARE_ARG(kind, member, js, init) \
    kind##_arg member = init;                  \
    static constexpr const char* member##_js = #js;

struct SequenceArgs {
    SF_SEQUENCE_ARGS(SF_DECLARE_ARG)
};
struct ForwardArgs {
    SF_FORWARD_ARGS(SF_DECLARE_ARG)
};
struct GenerateArgs {
    SF_GENERATE_ARGS(SF_DECLARE_ARG)
};
struct TextArgs {
    SF_TEXT_ARGS(SF_DECLARE_ARG)
};
struct DecodeArgs {
    SF_DECODE_ARGS(SF_DECLARE_ARG)
};
struct AttentionArgs {
    SF_ATTENTION_ARGS(SF_DECLARE_ARG)
};

#undef SF_DECLARE_ARG

}  // namespace simdformer::entry
