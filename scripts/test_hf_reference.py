#!/usr/bin/python3
"""Checks scripts/hf_reference.py and the committed tests/data/hf fixtures (python3 -m unittest).

    /usr/bin/python3 scripts/test_hf_reference.py

* BERT's layer equals torch.nn.TransformerEncoderLayer (post-LN, gelu, padding mask) with the
  same weights; GPT-2's block equals a pre-LN TransformerEncoderLayer with a causal mask and the
  Conv1D weights transposed. These are independent implementations of the same equations.
* DistilBERT's block (q scaled first, masked_fill) equals BERT's layer on the same weights.
* RoBERTa position ids and GPT-2 KV-cache decoding on small hand-checked examples.
* Every fixture folder reloads and reproduces its golden.safetensors bit for bit, and the
  tokenizer oracles reproduce texts.json.
"""
import json
import math
import os
import sys
import unittest

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402
import make_hf_fixtures as mk  # noqa: E402

HF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "hf")


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def bert_cfg(**kw):
    c = fmt.make_config("bert", "BertModel", hidden_size=16, num_attention_heads=4, num_hidden_layers=1,
                        intermediate_size=24, max_position_embeddings=12, vocab_size=30, **kw)
    return c


class LayerEquivalence(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def test_bert_layer_is_post_ln_transformer_layer(self):
        model = ref.build_model(bert_cfg(layer_norm_eps=1e-5))
        mk.init_weights(model, 1)
        layer = model.encoder.layer[0]
        t = nn.TransformerEncoderLayer(16, 4, 24, dropout=0.0, activation="gelu", batch_first=True,
                                       layer_norm_eps=1e-5).eval()
        with torch.no_grad():
            a = layer.attention
            t.self_attn.in_proj_weight.copy_(torch.cat([a.self.query.weight, a.self.key.weight, a.self.value.weight]))
            t.self_attn.in_proj_bias.copy_(torch.cat([a.self.query.bias, a.self.key.bias, a.self.value.bias]))
            t.self_attn.out_proj.weight.copy_(a.output.dense.weight)
            t.self_attn.out_proj.bias.copy_(a.output.dense.bias)
            t.norm1.load_state_dict(a.output.LayerNorm.state_dict())
            t.linear1.load_state_dict(layer.intermediate.dense.state_dict())
            t.linear2.load_state_dict(layer.output.dense.state_dict())
            t.norm2.load_state_dict(layer.output.LayerNorm.state_dict())
        x = torch.randn(2, 7, 16)
        mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3])
        ours, _ = layer(x, ref.extended_attention_mask(mask))
        theirs = t(x, src_key_padding_mask=mask == 0)  # grad on: PyTorch's reference path
        self.assertLess(float((ours - theirs).abs().max()), 1e-5)

    def test_gpt2_block_is_pre_ln_causal_layer(self):
        cfg = fmt.make_config("gpt2", "GPT2Model", n_embd=16, n_head=4, n_layer=1, n_positions=12, vocab_size=30)
        model = ref.build_model(cfg)
        mk.init_weights(model, 2)
        blk = model.h[0]
        t = nn.TransformerEncoderLayer(16, 4, 64, dropout=0.0, activation=ref.gelu_new, batch_first=True,
                                       norm_first=True, layer_norm_eps=1e-5).eval()
        with torch.no_grad():
            t.self_attn.in_proj_weight.copy_(blk.attn.c_attn.weight.t())  # Conv1D [in, out] -> Linear [out, in]
            t.self_attn.in_proj_bias.copy_(blk.attn.c_attn.bias)
            t.self_attn.out_proj.weight.copy_(blk.attn.c_proj.weight.t())
            t.self_attn.out_proj.bias.copy_(blk.attn.c_proj.bias)
            t.norm1.load_state_dict(blk.ln_1.state_dict())
            t.norm2.load_state_dict(blk.ln_2.state_dict())
            t.linear1.weight.copy_(blk.mlp.c_fc.weight.t())
            t.linear1.bias.copy_(blk.mlp.c_fc.bias)
            t.linear2.weight.copy_(blk.mlp.c_proj.weight.t())
            t.linear2.bias.copy_(blk.mlp.c_proj.bias)
        x = torch.randn(2, 6, 16)
        ours, _, _ = blk(x, None)
        theirs = t(x, src_mask=torch.triu(torch.full((6, 6), float("-inf")), diagonal=1))
        self.assertLess(float((ours - theirs).abs().max()), 1e-5)

    def test_distilbert_block_equals_bert_layer(self):
        bert = ref.build_model(bert_cfg())
        mk.init_weights(bert, 3)
        dcfg = fmt.make_config("distilbert", "DistilBertForMaskedLM", dim=16, n_heads=4, n_layers=1, hidden_dim=24,
                               max_position_embeddings=12, vocab_size=30)
        dist = ref.build_model(dcfg)
        b, d = bert.encoder.layer[0], dist.distilbert.transformer.layer[0]
        with torch.no_grad():
            for dst, src in ((d.attention.q_lin, b.attention.self.query), (d.attention.k_lin, b.attention.self.key),
                             (d.attention.v_lin, b.attention.self.value), (d.attention.out_lin, b.attention.output.dense),
                             (d.sa_layer_norm, b.attention.output.LayerNorm), (d.ffn.lin1, b.intermediate.dense),
                             (d.ffn.lin2, b.output.dense), (d.output_layer_norm, b.output.LayerNorm)):
                dst.load_state_dict(src.state_dict())
        x = torch.randn(2, 5, 16)
        mask = torch.tensor([[1] * 5, [1, 1, 0, 0, 0]])
        ob, pb = b(x, ref.extended_attention_mask(mask))
        od, pd = d(x, mask)
        self.assertLess(float((ob - od).abs().max()), 1e-5)
        self.assertLess(float((pb - pd).abs().max()), 1e-6)
        self.assertEqual(float(pd[1, :, :, 2:].abs().max()), 0.0)  # padded keys get exactly zero weight

    def test_fully_padded_row_is_uniform(self):
        """finfo.min, not -inf: a query whose keys are all padding averages them uniformly."""
        model = ref.build_model(bert_cfg())
        mk.init_weights(model, 4)
        out = model(torch.tensor([[2, 5, 6]]), attention_mask=torch.tensor([[0, 0, 0]]))
        self.assertTrue(torch.allclose(out["attentions"][0], torch.full((1, 4, 3, 3), 1 / 3)))

    def test_roberta_position_ids(self):
        ids = torch.tensor([[0, 5, 6, 2, 1, 1], [0, 7, 2, 1, 1, 1]])
        pos = ref.create_position_ids_from_input_ids(ids, padding_idx=1)
        self.assertEqual(pos.tolist(), [[2, 3, 4, 5, 1, 1], [2, 3, 4, 1, 1, 1]])

    def test_gelu_forms(self):
        x = torch.tensor([-3.0, -1.0, 0.0, 0.5, 2.0])
        exact = 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
        self.assertLess(float((ref.ACT2FN["gelu"](x) - exact).abs().max()), 1e-6)
        self.assertLess(float((ref.gelu_new(x) - torch.nn.functional.gelu(x, approximate="tanh")).abs().max()), 1e-6)
        self.assertGreater(float((ref.gelu_new(x) - exact).abs().max()), 1e-5)  # the two forms do differ

    def test_gpt2_kv_cache_with_padding_mask(self):
        cfg = fmt.make_config("gpt2", "GPT2LMHeadModel", n_embd=16, n_head=4, n_layer=2, n_positions=12, vocab_size=30)
        model = ref.build_model(cfg)
        mk.init_weights(model, 5)
        ids = torch.tensor([[3, 4, 5, 6, 7]])
        full = model(ids)["logits"]
        out = model(ids[:, :3])
        step = model(ids[:, 3:], past_key_values=out["past_key_values"])["logits"]
        self.assertLess(float((full[:, 3:] - step).abs().max()), 1e-5)


class Fixtures(unittest.TestCase):
    def test_every_case_reproduces_its_golden(self):
        for name in mk.CASES:
            with self.subTest(case=name):
                folder = os.path.join(HF, name)
                cfg = load_json(os.path.join(folder, "config.json"))
                golden, meta = fmt.read_safetensors(os.path.join(folder, "golden.safetensors"))
                self.assertEqual(meta, {"format": "pt"})
                tensors = {}
                for f in sorted(os.listdir(folder)):
                    if f.startswith("model") and f.endswith(".safetensors"):
                        t, m = fmt.read_safetensors(os.path.join(folder, f))
                        self.assertEqual(m, {"format": "pt"})
                        tensors.update(t)
                if name == "gpt2_legacy":
                    tensors = {"transformer." + k: v for k, v in tensors.items()}
                model = ref.build_model(cfg)
                ref.load_hf_state_dict(model, tensors)
                # Every stored parameter arrived (GPT-2's h.N.attn.c_attn.bias is not the
                # h.N.attn.bias buffer HF skips).
                own = model.state_dict()
                for k, t in tensors.items():
                    if k in own:
                        self.assertTrue(torch.equal(own[k], t.to(own[k].dtype)), k)
                    else:
                        self.assertRegex(k, ref.IGNORED_ON_LOAD)
                types = golden.get("token_type_ids")
                with torch.no_grad():
                    out = model(golden["input_ids"], attention_mask=golden["attention_mask"], token_type_ids=types)
                self.assertTrue(torch.equal(out["last_hidden_state"], golden["last_hidden_state"]))
                for i, a in enumerate(out["attentions"]):
                    self.assertTrue(torch.equal(a, golden[f"attentions.{i}"]))
                if "logits" in golden:
                    self.assertTrue(torch.equal(out["logits"], golden["logits"]))
                if "pooler_output" in golden:
                    self.assertTrue(torch.equal(out["pooler_output"], golden["pooler_output"]))
                # attention rows sum to 1 and padded keys get (numerically) zero weight
                mask = golden["attention_mask"]
                for i in range(cfg.get("num_hidden_layers", cfg.get("n_layer", cfg.get("n_layers")))):
                    a = golden[f"attentions.{i}"]
                    self.assertLess(float((a.sum(-1) - 1).abs().max()), 1e-5)
                    self.assertEqual(float((a * (mask[:, None, None, :] == 0)).max()), 0.0)

    def test_tokenizer_expectations_match_oracles(self):
        toks = {}
        for name, (_, _, _, _, kind, _) in mk.CASES.items():
            tok = toks.setdefault(kind, mk.Tok(kind))
            with self.subTest(case=name):
                texts = load_json(os.path.join(HF, name, "texts.json"))
                self.assertEqual(texts["tokenizer"], json.loads(json.dumps(tok.expectations())))
                tj = load_json(os.path.join(HF, name, "tokenizer.json"))
                self.assertEqual(tj, json.loads(json.dumps(tok.json)))

    def test_hand_checked_tokens(self):
        wp = mk.Tok("wordpiece").oracle
        self.assertEqual(wp.encode("Walking quickly!")["tokens"], ["[CLS]", "walk", "##ing", "quick", "##ly", "!", "[SEP]"])
        self.assertEqual(wp.encode("5€")["tokens"], ["[CLS]", "[UNK]", "[SEP]"])  # € is not punctuation
        gpt = mk.Tok("gpt2").oracle
        self.assertEqual("".join(gpt.encode("Hi  there\n")["tokens"]), "HiĠĠthereĊ")


if __name__ == "__main__":
    unittest.main(verbosity=1)
