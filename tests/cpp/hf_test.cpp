// Hugging Face checkpoints (tests/data/hf/<case>/, written by scripts/make_hf_fixtures.py in
// exact HF format) against the from-spec PyTorch reference's outputs in golden.safetensors:
// last hidden state, every layer's attention weights, pooler output and MLM logits, <= 1e-4.
#include <memory>

#include "test_util.h"

namespace simdformer::test {
namespace {

constexpr double kTolerance = 1e-4;

std::string hf_path(const std::string& rel) { return data_path("hf/" + rel); }

// A checkpoint folder opened with one FileSource per weights file.
struct Folder {
    std::string config, index;
    std::vector<std::unique_ptr<FileSource>> files;
    std::vector<CheckpointShard> shards;
};

Folder open_folder(const std::string& name, const std::vector<std::string>& weight_files, bool sharded = false) {
    Folder f;
    f.config = read_text(hf_path(name + "/config.json"));
    if (sharded) f.index = read_text(hf_path(name + "/model.safetensors.index.json"));
    for (const std::string& w : weight_files) {
        auto source = FileSource::open(hf_path(name + "/" + w));
        EXPECT_TRUE(source.is_ok()) << source.status().message();
        if (!source.is_ok()) continue;
        f.files.push_back(std::make_unique<FileSource>(std::move(source).value()));
        f.shards.push_back({w, f.files.back().get()});
    }
    return f;
}

Result<Model> load_folder(const std::string& name, const std::vector<std::string>& files = {"model.safetensors"},
                          bool sharded = false, const LoadOptions& options = {}) {
    Folder f = open_folder(name, files, sharded);
    return Model::load_checkpoint(f.config, f.shards, f.index, options);
}

struct Case {
    std::string name;
    std::vector<std::string> files = {"model.safetensors"};
    bool sharded = false;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class HfGolden : public ::testing::TestWithParam<Case> {};

TEST_P(HfGolden, HiddenStatesAttentionsPoolerAndLogitsMatchTheReference) {
    const Case& c = GetParam();
    auto loaded = load_folder(c.name, c.files, c.sharded);
    SF_ASSERT_OK(loaded.status());
    const Model& m = loaded.value();
    const Golden g = load_golden("hf/" + c.name + "/golden.safetensors");
    const Shape& shape = g.shapes.at("input_ids");
    const size_t B = shape[0], n = shape[1], d = m.config().d_model, L = m.config().num_encoder_layers;
    const std::vector<int32_t> ids = g.tokens("input_ids");
    const std::vector<uint8_t> mask = g.mask("attention_mask");
    std::vector<int32_t> types;
    if (g.values.count("token_type_ids")) types = g.tokens("token_type_ids");
    const bool pooler = g.values.count("pooler_output") > 0, logits = g.values.count("logits") > 0;
    std::vector<int32_t> rows;
    for (size_t i = 0; logits && i < B * n; ++i) rows.push_back(int32_t(i));

    WorkspaceLimits limits;
    limits.max_batch = B;
    limits.max_src_len = n;
    limits.max_logits_rows = rows.size();
    auto ws = m.make_workspace(limits);
    SF_ASSERT_OK(ws.status());
    TextRequest r;
    r.n_batch = B;
    r.n_seq = n;
    r.tokens = ids.data();
    r.token_types = types.empty() ? nullptr : types.data();
    r.attention_mask = mask.data();
    r.need_weights = true;
    r.need_pooler = pooler;
    r.logits_rows = rows.data();
    r.n_logits_rows = rows.size();
    SF_ASSERT_OK(m.forward_text(r, ws.value()));
    const Workspace& w = ws.value();

    ASSERT_EQ(w.output_rows(), B * n);
    EXPECT_LT(max_abs_diff(w.output(), g.at("last_hidden_state").data(), B * n * d), kTolerance) << "last_hidden_state";
    ASSERT_EQ(w.encoder_attention().size(), L);
    for (size_t l = 0; l < L; ++l) {
        const AttentionMap& a = w.encoder_attention()[l];
        const std::vector<float>& want = g.at("attentions." + std::to_string(l));
        ASSERT_EQ(a.n_batch * a.nhead * a.n_seq_q * a.n_seq_k, want.size());
        EXPECT_LT(max_abs_diff(a.data, want.data(), want.size()), kTolerance) << "attentions." << l;
    }
    if (pooler) {
        ASSERT_NE(w.pooler(), nullptr);
        EXPECT_LT(max_abs_diff(w.pooler(), g.at("pooler_output").data(), B * d), kTolerance) << "pooler_output";
    }
    if (logits) {
        ASSERT_NE(w.logits(), nullptr);
        const std::vector<float>& want = g.at("logits");
        ASSERT_EQ(rows.size() * w.logits_cols(), want.size());
        EXPECT_LT(max_abs_diff(w.logits(), want.data(), want.size()), kTolerance) << "logits";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HfGolden,
    ::testing::Values(Case{"bert"}, Case{"bert_mlm_f16"}, Case{"bert_pretraining_bf16"}, Case{"bert_relu_unigram"},
                      Case{"bert_sharded", {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}, true},
                      Case{"roberta"}, Case{"distilbert"}),
    case_name);

}  // namespace
}  // namespace simdformer::test
