// The torch adapter: simdformer's own nn.Transformer dialect. Its config is parsed by
// parse_model_config (arch/torch_config.cpp); its tensor names are PyTorch's state_dict names of
// nn.MultiheadAttention / nn.TransformerEncoderLayer / ... as modules nest them, listed here.
// torch_adapter() (arch/adapter.h) reads a config.json, or the config a safetensors file keeps in
// its metadata under "config", into a TorchSpec.
#pragma once

#include <string>

#include "simdformer/config.h"
#include "simdformer/io/weight_reader.h"
#include "simdformer/layers/tensor_refs.h"

namespace simdformer {

// nn.MultiheadAttention at `prefix`: in_proj_weight [3d, d] (q|k|v) + in_proj_bias, out_proj,
// and simdformer's additive-score extension `additive.{q,k,v}_weight`.
AttentionRef torch_attention(const std::string& prefix);
// nn.TransformerEncoderLayer: self_attn, linear1/linear2, norm1/norm2.
EncoderLayerRef torch_encoder_layer(const std::string& prefix);
// nn.TransformerDecoderLayer: self_attn, multihead_attn, linear1/linear2, norm1/norm2/norm3.
DecoderLayerRef torch_decoder_layer(const std::string& prefix);
// Layer i of a stack at `stack` ("encoder." in nn.Transformer, "" for a bare stack).
std::string torch_layer_prefix(const std::string& stack, size_t i);
// The stack's optional final norm.
NormRef torch_norm(const std::string& prefix);

// simdformer's token layers: `<prefix>embedding.weight` [vocab, d], learned positions
// `<prefix>pos_embedding.weight` [max_len, d]; the output generator `generator.{weight,bias}`.
TokenEmbeddingRef torch_token_embedding(const std::string& prefix);
LinearRef torch_generator();

// Every tensor of the module `config` describes: layers `<stack>layers.<i>.`, each stack's final
// norm `<stack>norm.` when the file has it (nn.TransformerEncoder/Decoder(norm=None) have none),
// token layers and generator when the config has vocabularies.
TorchStackRef torch_stack_names(const ModelConfig& config, const WeightReader& checkpoint);

}  // namespace simdformer
