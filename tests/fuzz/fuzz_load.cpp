// libFuzzer target: the safetensors + config loader (nn.Transformer dialect and the Hugging Face
// bert / roberta / distilbert adapters). The input is a config selector byte, then the bytes of a
// safetensors file. Whatever the bytes, loading must return a Status or a model
// (never crash, hang, leak or read out of bounds), and a loaded model must run.
#include <cstddef>
#include <cstdint>
#include <string>

#include "simdformer/simdformer.h"

namespace {

const char* const kConfigs[] = {
    "",  // from the file's metadata
    R"({"model_type":"multihead_attention","embed_dim":16,"num_heads":4})",
    R"({"model_type":"encoder_layer","d_model":16,"nhead":2,"dim_feedforward":24})",
    R"({"model_type":"encoder","d_model":12,"nhead":3,"dim_feedforward":20,"num_layers":2})",
    R"({"model_type":"decoder_layer","d_model":16,"nhead":4,"dim_feedforward":24})",
    R"({"model_type":"transformer","d_model":16,"nhead":2,"dim_feedforward":32,"num_encoder_layers":2,
        "num_decoder_layers":2,"vocab_size":11,"max_len":16,"bos_token":1,"eos_token":2})",
    R"({"architectures":["BertForMaskedLM"],"model_type":"bert","hidden_size":8,"num_hidden_layers":1,
        "num_attention_heads":2,"intermediate_size":16,"vocab_size":10,"max_position_embeddings":8,"type_vocab_size":2})",
    R"({"architectures":["RobertaForMaskedLM"],"model_type":"roberta","hidden_size":8,"num_hidden_layers":1,
        "num_attention_heads":2,"intermediate_size":16,"vocab_size":10,"max_position_embeddings":10,"type_vocab_size":1,
        "pad_token_id":1})",
    R"({"architectures":["DistilBertModel"],"model_type":"distilbert","dim":8,"n_layers":1,"n_heads":2,
        "hidden_dim":16,"vocab_size":10,"max_position_embeddings":8})",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const std::string config = kConfigs[data[0] % (sizeof(kConfigs) / sizeof(kConfigs[0]))];
    (void)simdformer::describe_safetensors(data + 1, size - 1);
    auto model = simdformer::Model::load(data + 1, size - 1, config);
    if (!model.is_ok()) return 0;
    const simdformer::Model& m = model.value();
    const simdformer::ModelConfig& c = m.config();
    auto ws = m.make_workspace({1, 4, 4, true});
    if (!ws.is_ok()) return 0;
    std::vector<float> x(4 * c.d_model, 0.5f);
    std::vector<int32_t> tokens(4, 0);
    simdformer::ForwardRequest r;
    r.src = {4, x.data(), tokens.data(), nullptr, nullptr, false};
    r.tgt = r.src;
    r.memory = x.data();
    r.n_seq_memory = 4;
    r.need_weights = true;
    if (c.src_vocab_size) r.src.embeddings = nullptr; else r.src.tokens = nullptr;
    if (c.tgt_vocab_size) r.tgt.embeddings = nullptr; else r.tgt.tokens = nullptr;
    (void)m.forward(r, ws.value());

    // Text models (the others refuse forward_text with a Status).
    simdformer::WorkspaceLimits limits;
    limits.max_batch = 2;
    limits.max_src_len = 4;
    limits.max_logits_rows = 2;
    auto text_ws = m.make_workspace(limits);
    if (!text_ws.is_ok()) return 0;
    const int32_t ids[8] = {1, 2, 3, 1, 0, 1, 1, 1}, rows[2] = {0, 7};
    const uint8_t mask[8] = {1, 1, 1, 0, 0, 0, 0, 0};
    simdformer::TextRequest t;
    t.n_batch = 2;
    t.n_seq = 4;
    t.tokens = ids;
    t.attention_mask = mask;
    t.need_weights = true;
    t.logits_rows = rows;
    t.n_logits_rows = 2;
    (void)m.forward_text(t, text_ws.value());
    (void)m.info_json();
    return 0;
}
