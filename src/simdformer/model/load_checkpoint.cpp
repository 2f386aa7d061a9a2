// Model::load_checkpoint: config.json + safetensors shard(s) -> a Model, through the adapter the
// config names (arch/registry.h). Hugging Face text models are built here; the torch dialect
// goes through Model::load(reader, ModelConfig) (model/model.cpp).
#include <nlohmann/json.hpp>
#include <set>

#include "simdformer/arch/registry.h"
#include "simdformer/io/checkpoint.h"
#include "simdformer/model/model_impl.h"

namespace simdformer {
namespace {

using nlohmann::json;

// The layer-stack shape of a text encoder, in the terms the layers and the workspace use.
ModelConfig encoder_shape(const TextConfig& t) {
    ModelConfig c;
    c.kind = ModelKind::kEncoder;
    c.d_model = t.d_model;
    c.nhead = t.n_heads;
    c.dim_feedforward = t.d_ff;
    c.activation = t.activation;
    c.norm_first = t.pre_norm;  // BERT-family layers are post-norm, GPT-2's blocks pre-norm
    c.layer_norm_eps = t.layer_norm_eps;
    c.num_encoder_layers = t.n_layers;
    c.max_len = t.max_positions;
    return c;
}

// Builds every part of a text encoder from the names the adapter gives.
Status build_text_model(WeightReader& r, const TextConfig& t, const TextModelRef& ref, ModelImpl& m) {
    m.text = t;
    m.config = encoder_shape(t);
    SF_RETURN_IF_ERROR(m.config.validate().with_context("config"));
    SF_ASSIGN_OR_RETURN(TextEmbeddings e, TextEmbeddings::load(r, ref.embeddings, t.vocab_size, t.d_model,
                                                                t.max_position_embeddings, t.type_vocab_size,
                                                                t.layer_norm_eps));
    m.text_embeddings = std::move(e);
    for (const EncoderLayerRef& layer_ref : ref.layers) {
        SF_ASSIGN_OR_RETURN(EncoderLayer layer, EncoderLayer::load(r, layer_ref, m.config));
        m.encoder.push_back(std::move(layer));
    }
    if (ref.has_pooler) {
        SF_ASSIGN_OR_RETURN(Linear pooler, Linear::load(r, ref.pooler, t.d_model, t.d_model));
        m.pooler = std::move(pooler);
    }
    if (ref.has_mlm_head) {
        SF_ASSIGN_OR_RETURN(MlmHead head, MlmHead::load(r, ref.mlm, t.d_model, t.vocab_size, t.layer_norm_eps));
        m.mlm = std::move(head);
    }
    if (ref.has_final_norm) {  // GPT-2's ln_f: run_encoder_layers applies it after the last block
        SF_ASSIGN_OR_RETURN(LayerNorm norm, LayerNorm::load(r, ref.final_norm, t.d_model, t.layer_norm_eps));
        m.encoder_norm = std::move(norm);
    }
    if (ref.has_lm_head) {
        m.has_lm_head = true;
        if (!ref.lm_head_weight.empty()) {  // untied: its own [vocab, d]
            SF_ASSIGN_OR_RETURN(Linear head, Linear::load(r, LinearRef{ref.lm_head_weight, ""}, t.d_model, t.vocab_size));
            m.lm_head = std::move(head);
        }
    }
    for (const std::string& name : ref.ignored) r.ignore(name);
    // Like Hugging Face's from_pretrained, tensors of heads simdformer does not run (a
    // classifier, say) are not an error; info_json() lists them.
    m.unused_tensors = r.unused();
    m.parameters = r.elements_taken();
    return Status::ok();
}

// "F32", "F16", ... when every floating-point tensor has that dtype, else "mixed".
std::string stored_dtype(const Checkpoint& c) {
    std::set<std::string> seen;
    for (const TensorInfo& t : c.tensors())
        if (dtype_is_float(t.dtype)) seen.insert(dtype_name(t.dtype));
    return seen.size() == 1 ? *seen.begin() : seen.empty() ? "none" : "mixed";
}

bool has_int8_tensors(const Checkpoint& c) {
    for (const TensorInfo& t : c.tensors())
        if (t.dtype == DType::kI8) return true;
    return false;
}

}  // namespace

Result<Model> Model::load_checkpoint(const std::string& config_json, const std::vector<CheckpointShard>& shards,
                                     const std::string& index_json, const LoadOptions& options) {
    // The config first: an unsupported architecture is reported before any weight is touched.
    json config;
    ArchitectureChoice choice;
    if (!config_json.empty()) {
        config = json::parse(config_json, nullptr, /*allow_exceptions=*/false);
        if (config.is_discarded()) return Status::invalid("config is not valid JSON");
        SF_ASSIGN_OR_RETURN(choice, choose_architecture(config));
    }
    SF_ASSIGN_OR_RETURN(Checkpoint checkpoint, Checkpoint::open(shards, index_json, options));

    Model model;
    if (!choice.adapter) {  // the nn.Transformer dialect; its config may live in the file's metadata
        std::string text = config_json.empty() ? checkpoint.metadata("config") : config_json;
        if (text.empty()) return Status::invalid("no config given and the safetensors metadata has no \"config\" entry");
        SF_ASSIGN_OR_RETURN(ModelConfig c, parse_model_config(text));
        SF_ASSIGN_OR_RETURN(model, load(checkpoint, c));
        model.impl_->config_json = text;
    } else {
        const HfConfig hf(config);
        SF_ASSIGN_OR_RETURN(TextConfig t, choice.adapter->normalize(hf));
        SF_ASSIGN_OR_RETURN(TextModelRef ref, choice.adapter->names(t, checkpoint));
        SF_RETURN_IF_ERROR(build_text_model(checkpoint, t, ref, *model.impl_));
        model.impl_->config_json = config_json;
    }
    model.impl_->stored_dtype = stored_dtype(checkpoint);
    model.impl_->int8_weights = options.weights == WeightFormat::kInt8 || has_int8_tensors(checkpoint);
    SF_RETURN_IF_ERROR(checkpoint.report_done());
    return model;
}

Result<Model> Model::load(const uint8_t* data, size_t size, const std::string& config_json) {
    MemorySource source(data, data ? size : 0);
    return load_checkpoint(config_json, {{"model.safetensors", &source}}, "");
}

}  // namespace simdformer
