#!/usr/bin/python3
"""Exports the Hugging Face-shaped benchmark models (random weights, fixed seeds) into
bench/models/ (git-ignored). Run by bench/run.sh (`npm run bench`); `--quick` makes small shapes.

  bert-base/     BertModel 12 x 768, vocab 30522: config.json, model.safetensors (F32),
                 tokenizer.json (+ tokenizer_config.json, special_tokens_map.json, vocab.txt),
                 onnx/model.onnx  -> a local transformers.js model folder (feature-extraction),
                 onnx/model_quantized.onnx: its q8 (dynamic MatMulInteger) form
                 (quantize_dynamic_q8)
  minilm-l6/     the same at 6 x 384 (MiniLM-L6 shape), also a sentence-transformers folder
  minilm-l6-cls/ BertForSequenceClassification 6 x 384, labels negative / neutral / positive
                 (onnx/model.onnx outputs logits: transformers.js text-classification)
  minilm-l6-rerank/  the same with one label: an ms-marco-MiniLM-style cross-encoder
  gpt2-small/    GPT2LMHeadModel 12 x 768, vocab 50257: HF checkpoint + onnx/decoder_with_past.onnx
                 (inputs input_ids, attention_mask, position_ids, past_key_values.N.key/value;
                 outputs logits, present.N.key/value) for onnxruntime-web, and its q8 form
                 onnx/decoder_with_past_quantized.onnx (quantize_dynamic_q8; the LM head too)
  smollm2-135m/  LlamaForCausalLM in SmolLM2-135M's shape (30 x 576, 9 query heads over 3 key/value
                 heads, SwiGLU 1536, vocab 49152, rope_theta 100000, tied): HF checkpoint +
                 onnx/decoder_with_past.onnx with the same inputs and outputs as gpt2-small's (past
                 and present hold the key/value heads only), from scripts/reference/hf_llama.py
  bert-layer-int8/  one BERT-base layer: layer.safetensors (HF names, F32), model_f32.onnx and
                 model_int8.onnx (per-channel symmetric int8 weights, DynamicQuantizeLinear +
                 MatMulInteger, built with onnx.helper; onnxruntime's quantizer is not available)
Each folder has check.safetensors: inputs and the expected outputs of scripts/reference/hf_reference.py
(and, for the int8 layer, of a PyTorch emulation of the quantized graph). bench/verify-hf-onnx.mjs
runs every ONNX graph in onnxruntime-web and compares (onnx 1.12 has no reference evaluator).

  bench/export_hf.py [--quick] [--only gpt2-small[,bert-base...]]
"""
import json
import math
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "reference"))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "fixtures"))  # make_hf_fixtures
import hf_format as fmt  # noqa: E402
import hf_llama  # noqa: E402
import hf_reference as ref  # noqa: E402
import hf_tokenizers as tk  # noqa: E402
import hf_task_heads  # noqa: E402,F401  (registers the task-head classes with hf_reference)
from make_hf_fixtures import init_weights, write_sentence_transformers_files  # noqa: E402

OUT = os.path.join(HERE, "models")
TEXTS = ["The quick brown fox jumps over the lazy dog.", "Hello, world!",
         "Attention is what the model uses to read every word in the light of the others."]


def bert_tokenizer(vocab_size):
    """The fixture WordPiece vocabulary padded with [unusedK] entries to the model's vocab size."""
    vocab = tk.wordpiece_vocab()
    vocab += [f"[unused{k}]" for k in range(vocab_size - len(vocab))]
    return vocab, tk.wordpiece_tokenizer_json(vocab), tk.WordPieceOracle(vocab)


def gpt2_tokenizer(vocab_size):
    """The fixture byte-level BPE padded with <|unusedK|> entries; <|endoftext|> is the last id."""
    merges = tk.train_bpe(tk.bpe_training_counts(), 800)
    vocab = tk.byte_bpe_vocab(merges)
    vocab += [f"<|unused{k}|>" for k in range(vocab_size - 1 - len(vocab))] + ["<|endoftext|>"]
    return vocab, merges, tk.byte_bpe_tokenizer_json(vocab, merges, "gpt2")


def padded_batch(encodings, pad):
    n = max(len(e["ids"]) for e in encodings)
    ids = torch.full((len(encodings), n), pad, dtype=torch.long)
    mask = torch.zeros((len(encodings), n), dtype=torch.long)
    types = torch.zeros((len(encodings), n), dtype=torch.long)
    for b, e in enumerate(encodings):
        ids[b, :len(e["ids"])] = torch.tensor(e["ids"])
        mask[b, :len(e["ids"])] = 1
        types[b, :len(e["ids"])] = torch.tensor(e.get("type_ids", [0] * len(e["ids"])))
    return ids, mask, types


class Outputs(nn.Module):
    """Wraps a reference model so torch.onnx.export sees tensors in and a tuple out."""

    def __init__(self, model, kind, n_layers=0):
        super().__init__()
        self.model, self.kind, self.n_layers = model, kind, n_layers

    def forward(self, input_ids, attention_mask, third, *past_flat):
        if self.kind == "bert":
            return self.model(input_ids, attention_mask=attention_mask, token_type_ids=third)["last_hidden_state"]
        if self.kind == "cls":
            return self.model(input_ids, attention_mask=attention_mask, token_type_ids=third)["classifier_logits"]
        past = [(past_flat[2 * i], past_flat[2 * i + 1]) for i in range(self.n_layers)]
        out = self.model(input_ids, attention_mask=attention_mask, position_ids=third, past_key_values=past)
        return (out["logits"],) + tuple(t for kv in out["past_key_values"] for t in kv)


def export_bert(name, layers, d, heads, ff, seed, sentence_transformers):
    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    cfg = fmt.make_config("bert", "BertModel", hidden_size=d, num_attention_heads=heads, num_hidden_layers=layers,
                          intermediate_size=ff, max_position_embeddings=512, vocab_size=30522)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    model = ref.build_model(cfg)
    init_weights(model, seed)
    fmt.save_weights(folder, ref.hf_state_dict(model))
    vocab, tok_json, oracle = bert_tokenizer(30522)
    fmt.write_tokenizer_files(folder, tok_json, "bert", 512)
    if sentence_transformers:
        # The model's 512 positions, not the fixtures' 40: embed cuts at max_seq_length, as
        # sentence-transformers does, and the benchmarks' 46- and 128-token texts must run whole
        # (transformers.js's feature-extraction does not read it).
        write_sentence_transformers_files(folder, max_seq_length=512)
        fmt.write_json(os.path.join(folder, "1_Pooling", "config.json"),
                       dict(json.load(open(os.path.join(folder, "1_Pooling", "config.json"))),
                            word_embedding_dimension=d), sort_keys=False)

    ids, mask, types = padded_batch([oracle.encode(t) for t in TEXTS], pad=0)
    with torch.no_grad():
        out = model(ids, attention_mask=mask, token_type_ids=types)
    onnx_path = os.path.join(folder, "onnx", "model.onnx")
    torch.onnx.export(Outputs(model, "bert"), (ids, mask, types), onnx_path, opset_version=14,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state"], do_constant_folding=True,
                      dynamic_axes={k: {0: "batch_size", 1: "sequence_length"} for k in
                                    ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")})
    fmt.write_safetensors(os.path.join(folder, "check.safetensors"), {
        "input_ids": ids, "attention_mask": mask, "token_type_ids": types,
        "last_hidden_state": out["last_hidden_state"],
        "sentence_embedding": ref.mean_pool_normalize(out["last_hidden_state"], mask)})
    q8 = quantize_dynamic_q8(folder)
    return {"name": name, "kind": "bert", "layers": layers, "d_model": d, "heads": heads, "d_ff": ff,
            "vocab_size": 30522, "onnx": "onnx/model.onnx", "onnx_q8": "onnx/model_quantized.onnx",
            "q8_matmuls": q8, "texts": TEXTS}


PAIRS = [["How do plants grow?", "Plants grow toward the light of the sun."],
         ["How do plants grow?", "The quick brown fox jumps over the lazy dog."]]


def export_classifier(name, layers, d, heads, ff, seed, labels):
    """BertForSequenceClassification (MiniLM-shaped): the folder for simdformer's classify /
    rerank and onnx/model.onnx (logits) for transformers.js; check.safetensors has the logits of
    TEXTS and of PAIRS ([query, document] as a cross-encoder reads them)."""
    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    cfg = fmt.make_config("bert", "BertForSequenceClassification", hidden_size=d, num_attention_heads=heads,
                          num_hidden_layers=layers, intermediate_size=ff, max_position_embeddings=512, vocab_size=30522)
    cfg["id2label"] = {str(i): label for i, label in enumerate(labels)}
    cfg["label2id"] = {label: i for i, label in enumerate(labels)}
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    model = ref.build_model(cfg)
    init_weights(model, seed)
    fmt.save_weights(folder, ref.hf_state_dict(model))
    vocab, tok_json, oracle = bert_tokenizer(30522)
    fmt.write_tokenizer_files(folder, tok_json, "bert", 512)
    ids, mask, types = padded_batch([oracle.encode(t) for t in TEXTS], pad=0)
    pids, pmask, ptypes = padded_batch([oracle.encode(q, pair=doc) for q, doc in PAIRS], pad=0)
    with torch.no_grad():
        logits = model(ids, attention_mask=mask, token_type_ids=types)["classifier_logits"]
        pair_logits = model(pids, attention_mask=pmask, token_type_ids=ptypes)["classifier_logits"]
    torch.onnx.export(Outputs(model, "cls"), (ids, mask, types), os.path.join(folder, "onnx", "model.onnx"), opset_version=14,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      do_constant_folding=True,
                      dynamic_axes={**{k: {0: "batch_size", 1: "sequence_length"} for k in ("input_ids", "attention_mask", "token_type_ids")},
                                    "logits": {0: "batch_size"}})
    fmt.write_safetensors(os.path.join(folder, "check.safetensors"), {
        "input_ids": ids, "attention_mask": mask, "token_type_ids": types, "logits": logits,
        "pair_input_ids": pids, "pair_logits": pair_logits})
    return {"name": name, "kind": "classifier", "layers": layers, "d_model": d, "heads": heads, "d_ff": ff,
            "vocab_size": 30522, "labels": labels, "onnx": "onnx/model.onnx", "texts": TEXTS, "pairs": PAIRS}


def export_with_past(wrapped, folder, layers, past_heads, dh, vocab, seed):
    """onnx/decoder_with_past.onnx of a decoder: inputs input_ids, attention_mask, position_ids,
    past_key_values.N.key/value [B, past_heads, past, dh]; outputs logits, present.N.key/value.
    Traced with a non-empty past so no shape is folded to a constant; every axis is dynamic."""
    g = torch.Generator().manual_seed(seed)
    past_len, n = 3, 2
    ids = torch.randint(0, vocab, (1, n), generator=g)
    mask = torch.ones(1, past_len + n, dtype=torch.long)
    pos = torch.arange(past_len, past_len + n)[None, :]
    past = [torch.randn(1, past_heads, past_len, dh, generator=g) for _ in range(2 * layers)]
    in_names = ["input_ids", "attention_mask", "position_ids"]
    out_names = ["logits"]
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
            "position_ids": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"}}
    for i in range(layers):
        for kv in ("key", "value"):
            in_names.append(f"past_key_values.{i}.{kv}")
            out_names.append(f"present.{i}.{kv}")
            axes[in_names[-1]] = {0: "batch_size", 2: "past_sequence_length"}
            axes[out_names[-1]] = {0: "batch_size", 2: "total_sequence_length"}
    onnx_path = os.path.join(folder, "onnx", "decoder_with_past.onnx")
    torch.onnx.export(wrapped, (ids, mask, pos, *past), onnx_path, opset_version=14,
                      input_names=in_names, output_names=out_names, dynamic_axes=axes, do_constant_folding=True)


def write_decoder_check(model, folder, prompt):
    """check.safetensors: the prompt's logits with an empty past, then one cached step (which must
    equal the full recomputation)."""
    p = torch.tensor([prompt])
    with torch.no_grad():
        first = model(p)
        nxt = first["logits"][0, -1].argmax()[None, None]
        step = model(nxt, attention_mask=torch.ones(1, p.shape[1] + 1, dtype=torch.long),
                     position_ids=torch.tensor([[p.shape[1]]]), past_key_values=first["past_key_values"])
        full = model(torch.cat([p, nxt], dim=1))
    assert float((full["logits"][0, -1] - step["logits"][0, -1]).abs().max()) < 1e-4
    fmt.write_safetensors(os.path.join(folder, "check.safetensors"), {
        "prompt_ids": p, "prompt_logits": first["logits"], "step_id": nxt, "step_logits": step["logits"]})


def export_gpt2(name, layers, d, heads, positions, seed):
    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    cfg = fmt.make_config("gpt2", "GPT2LMHeadModel", n_embd=d, n_head=heads, n_layer=layers, n_positions=positions,
                          vocab_size=50257)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    model = ref.build_model(cfg)
    init_weights(model, seed)
    fmt.save_weights(folder, ref.hf_state_dict(model))
    vocab, merges, tok_json = gpt2_tokenizer(50257)
    fmt.write_tokenizer_files(folder, tok_json, "gpt2", positions)

    dh = d // heads
    export_with_past(Outputs(model, "gpt2", layers), folder, layers, heads, dh, 50257, seed)
    prompt = tk.ByteBPEOracle(vocab, merges, ["<|endoftext|>"]).encode("The quick brown fox jumps")["ids"]
    write_decoder_check(model, folder, prompt)
    q8 = quantize_dynamic_q8(folder, "decoder_with_past")
    return {"name": name, "kind": "gpt2", "layers": layers, "d_model": d, "heads": heads, "vocab_size": 50257,
            "n_positions": positions, "onnx": "onnx/decoder_with_past.onnx",
            "onnx_q8": "onnx/decoder_with_past_quantized.onnx", "q8_matmuls": q8, "prompt": "The quick brown fox jumps"}


def export_llama(name, layers, d, heads, kv_heads, ff, vocab, positions, seed):
    """A Llama-architecture decoder with past, exported like gpt2-small (random weights N/sqrt(fan_in),
    RMSNorm gains 1): the bench's SmolLM2-135M stand-in."""
    folder = os.path.join(OUT, name)
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    cfg = hf_llama.make_config("llama", "LlamaForCausalLM", hidden_size=d, num_hidden_layers=layers,
                               num_attention_heads=heads, num_key_value_heads=kv_heads, intermediate_size=ff,
                               vocab_size=vocab, max_position_embeddings=positions, rope_theta=100000.0,
                               tie_word_embeddings=True, bos_token_id=0, eos_token_id=0)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    model = hf_llama.build_model(cfg)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if p.dim() == 1:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) / p.shape[1] ** 0.5)
    fmt.save_weights(folder, hf_llama.hf_state_dict(model))
    bpe_vocab, merges, tok_json = gpt2_tokenizer(vocab)
    fmt.write_tokenizer_files(folder, tok_json, "gpt2", positions)

    dh = d // heads
    export_with_past(Outputs(model, "llama", layers), folder, layers, kv_heads, dh, vocab, seed)
    prompt = tk.ByteBPEOracle(bpe_vocab, merges, ["<|endoftext|>"]).encode("The quick brown fox jumps")["ids"]
    write_decoder_check(model, folder, prompt)
    q8 = quantize_dynamic_q8(folder, "decoder_with_past")
    return {"name": name, "kind": "llama", "layers": layers, "d_model": d, "heads": heads, "kv_heads": kv_heads,
            "head_dim": dh, "vocab_size": vocab, "n_positions": positions, "onnx": "onnx/decoder_with_past.onnx",
            "onnx_q8": "onnx/decoder_with_past_quantized.onnx", "q8_matmuls": q8, "prompt": "The quick brown fox jumps"}


# ---------------------------------------------------------------------------------------------
# One BERT layer, float and dynamically quantized, built node by node with onnx.helper
# ---------------------------------------------------------------------------------------------
def quantize_per_channel(w):
    """Symmetric int8 per output channel. w: nn.Linear weight [out, in] -> q [in, out] int8 (the
    MatMul B layout) and scale [out] float32 (max |w| / 127)."""
    scale = w.abs().amax(dim=1).clamp(min=1e-12) / 127.0
    q = torch.clamp(torch.round(w / scale[:, None]), -127, 127).to(torch.int8)
    return q.t().contiguous(), scale


def dynamic_quantize(x):
    """ONNX DynamicQuantizeLinear: uint8 with zero point, range widened to include 0, round half
    to even. Returns (q, scale, zero_point) as float tensors holding integers."""
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zp = float(np.clip(np.round(-lo / scale), 0, 255))
    q = torch.clamp(torch.round(x / scale) + zp, 0, 255)
    return q, scale, zp


class LayerGraph:
    """Accumulates ONNX nodes and initializers for one BERT layer; `linear` is float or int8."""

    def __init__(self, int8):
        self.nodes, self.inits, self.int8, self.k = [], [], int8, 0

    def name(self, base):
        self.k += 1
        return f"{base}_{self.k}"

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs if n_out > 1 else outs[0]

    def linear(self, x, lin):
        """y = x W^T + b. int8: DynamicQuantizeLinear(x) -> MatMulInteger(xq, Wq, x_zp) -> Cast ->
        * (x_scale * w_scale[out]) + b, the structure onnxruntime's dynamic quantizer emits."""
        w, b = lin.weight.detach(), lin.bias.detach().numpy()
        if not self.int8:
            return self.op("Add", [self.op("MatMul", [x, self.const("w", w.t().contiguous().numpy())]),
                                   self.const("b", b)])
        q, scale = quantize_per_channel(w)
        xq, xs, xzp = self.op("DynamicQuantizeLinear", [x], n_out=3)
        acc = self.op("MatMulInteger", [xq, self.const("wq", q.numpy()), xzp])
        f = self.op("Cast", [acc], to=TensorProto.FLOAT)
        s = self.op("Mul", [xs, self.const("ws", scale.numpy())])
        return self.op("Add", [self.op("Mul", [f, s]), self.const("b", b)])

    def layer_norm(self, x, ln):
        return self.op("LayerNormalization", [x, self.const("g", ln.weight.detach().numpy()),
                                              self.const("beta", ln.bias.detach().numpy())],
                       axis=-1, epsilon=ln.eps)


def bert_layer_graph(layer, heads, d, int8):
    """x [B, n, d] + additive mask [B, 1, 1, n] -> y [B, n, d], as BertLayer computes it."""
    g = LayerGraph(int8)
    dh = d // heads
    a = layer.attention

    def heads_first(t):  # [B, n, d] -> [B, h, n, dh]
        r = g.op("Reshape", [t, g.const("shape", np.array([0, 0, heads, dh], dtype=np.int64))])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])

    q, k, v = (heads_first(g.linear("x", m)) for m in (a.self.query, a.self.key, a.self.value))
    s = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
    s = g.op("Add", [g.op("Div", [s, g.const("sqrt_dh", np.array(math.sqrt(dh), dtype=np.float32))]), "mask"])
    ctx = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]),
                           g.const("shape", np.array([0, 0, d], dtype=np.int64))])
    h1 = g.layer_norm(g.op("Add", [g.linear(ctx, a.output.dense), "x"]), a.output.LayerNorm)
    u = g.linear(h1, layer.intermediate.dense)  # exact gelu: 0.5 u (1 + erf(u / sqrt 2))
    e = g.op("Erf", [g.op("Div", [u, g.const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))])])
    gelu = g.op("Mul", [g.op("Mul", [u, g.const("half", np.array(0.5, dtype=np.float32))]),
                        g.op("Add", [e, g.const("one", np.array(1.0, dtype=np.float32))])])
    out = g.layer_norm(g.op("Add", [g.linear(gelu, layer.output.dense), h1]), layer.output.LayerNorm)
    g.nodes.append(helper.make_node("Identity", [out], ["y"]))
    graph = helper.make_graph(
        g.nodes, "bert_layer_int8" if int8 else "bert_layer_f32",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d])], g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="simdformer-bench")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def emulate_int8_layer(layer, x, ext_mask):
    """The int8 graph's arithmetic in PyTorch (float64 accumulation of exact integers)."""
    def lin(t, m):
        q, scale = quantize_per_channel(m.weight.detach())
        xq, xs, xzp = dynamic_quantize(t)
        acc = (xq.double() - xzp) @ q.double()
        return (acc * (xs * scale.double())).float() + m.bias.detach()

    a = layer.attention
    B, n, d = x.shape
    h, dh = a.self.num_attention_heads, a.self.attention_head_size
    split = lambda t: t.view(B, n, h, dh).permute(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(lin(x, a.self.query)), split(lin(x, a.self.key)), split(lin(x, a.self.value))
    p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + ext_mask, dim=-1)
    ctx = (p @ v).permute(0, 2, 1, 3).reshape(B, n, d)
    h1 = a.output.LayerNorm(lin(ctx, a.output.dense) + x)
    return layer.output.LayerNorm(lin(torch.nn.functional.gelu(lin(h1, layer.intermediate.dense)), layer.output.dense) + h1)


def export_bert_layer_int8(name, d, heads, ff, seq, seed):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    cfg = fmt.make_config("bert", "BertModel", hidden_size=d, num_attention_heads=heads, num_hidden_layers=1,
                          intermediate_size=ff, vocab_size=8, max_position_embeddings=seq)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    model = ref.build_model(cfg)
    init_weights(model, seed)
    layer = model.encoder.layer[0]
    fmt.write_safetensors(os.path.join(folder, "layer.safetensors"),
                          {k: v for k, v in ref.hf_state_dict(model).items() if k.startswith("encoder.layer.0.")},
                          {"format": "pt"})
    onnx.save(bert_layer_graph(layer, heads, d, int8=False), os.path.join(folder, "model_f32.onnx"))
    onnx.save(bert_layer_graph(layer, heads, d, int8=True), os.path.join(folder, "model_int8.onnx"))
    g = torch.Generator().manual_seed(seed + 1)
    x = torch.randn(1, seq, d, generator=g)
    mask = torch.ones(1, seq, dtype=torch.long)
    mask[0, seq - seq // 4:] = 0  # a quarter of the keys are padding
    ext = ref.extended_attention_mask(mask)
    with torch.no_grad():
        y, _ = layer(x, ext)
        y8 = emulate_int8_layer(layer, x, ext)
    cos = torch.nn.functional.cosine_similarity(y8.reshape(-1, d), y.reshape(-1, d), dim=1)
    fmt.write_safetensors(os.path.join(folder, "check.safetensors"),
                          {"x": x, "mask": ext, "attention_mask": mask, "y": y, "y_int8_emulated": y8})
    return {"name": name, "kind": "bert_layer", "d_model": d, "heads": heads, "d_ff": ff, "seq": seq,
            "onnx": ["model_f32.onnx", "model_int8.onnx"], "weights": "per-output-channel symmetric int8",
            "int8_vs_f32_min_row_cosine": round(float(cos.min()), 6)}


# The whole model, dynamically quantized as transformers.js ships its q8 files
# ---------------------------------------------------------------------------------------------
def quantize_dynamic_q8(folder, graph="model"):
    """onnx/<graph>.onnx -> onnx/<graph>_quantized.onnx (what transformers.js loads for dtype 'q8'):
    every MatMul whose B is a 2-D float initializer becomes DynamicQuantizeLinear(A) ->
    MatMulInteger(A_q, W_q, A_zp) -> Cast -> * (A_scale * W_scale[out]), the structure
    onnxruntime's quantize_dynamic writes (per-channel, reduce-range, symmetric int8 weights in
    [-64, 63]: reduce-range keeps one bit free for the u8 x s8 pair products of its x86 kernels).
    The embedding tables stay float (they are gathered, not multiplied). onnxruntime's quantizer
    is not available here, so the rewrite is done node by node."""
    src = os.path.join(folder, "onnx", f"{graph}.onnx")
    model = onnx.load(src)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    nodes, quantized = [], 0
    for node in g.node:
        w = inits.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) == 2 else None
        if w is None or len(w.dims) != 2 or w.data_type != TensorProto.FLOAT:
            nodes.append(node)
            continue
        wf = numpy_helper.to_array(w).astype(np.float32)           # [in, out]
        scale = np.maximum(np.abs(wf).max(axis=0), 1e-12) / 63.5    # per output column
        q = np.clip(np.round(wf / scale), -64, 63).astype(np.int8)
        base = node.output[0].replace("/", "_").strip("_") or f"mm{quantized}"
        wq, ws = f"{base}_Wq", f"{base}_Wscale"
        g.initializer.extend([numpy_helper.from_array(q, wq), numpy_helper.from_array(scale.astype(np.float32), ws)])
        xq, xs, xzp, acc, f, s = (f"{base}_{k}" for k in ("xq", "xs", "xzp", "acc", "f", "s"))
        nodes += [helper.make_node("DynamicQuantizeLinear", [node.input[0]], [xq, xs, xzp]),
                  helper.make_node("MatMulInteger", [xq, wq, xzp], [acc]),
                  helper.make_node("Cast", [acc], [f], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [xs, ws], [s]),
                  helper.make_node("Mul", [f, s], [node.output[0]])]
        quantized += 1
    used = {i for n in nodes for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, "onnx", f"{graph}_quantized.onnx"))
    return quantized


def main():
    quick = "--quick" in sys.argv
    # --only a,b: export just these folders (bench/decode.mjs needs only gpt2-small); the manifest
    # keeps the other entries it has for the same shapes.
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    if quick:
        jobs = [("bert-base", lambda: export_bert("bert-base", 2, 64, 4, 256, 11, False)),
                ("minilm-l6", lambda: export_bert("minilm-l6", 2, 32, 4, 128, 12, True)),
                ("minilm-l6-cls", lambda: export_classifier("minilm-l6-cls", 2, 32, 4, 128, 15, ["negative", "neutral", "positive"])),
                ("minilm-l6-rerank", lambda: export_classifier("minilm-l6-rerank", 2, 32, 4, 128, 16, ["LABEL_0"])),
                ("gpt2-small", lambda: export_gpt2("gpt2-small", 2, 64, 4, 512, 13)),
                ("smollm2-135m", lambda: export_llama("smollm2-135m", 2, 48, 3, 1, 96, 4096, 512, 17)),
                ("bert-layer-int8", lambda: export_bert_layer_int8("bert-layer-int8", 64, 4, 256, 16, 14))]
    else:
        jobs = [("bert-base", lambda: export_bert("bert-base", 12, 768, 12, 3072, 11, False)),
                ("minilm-l6", lambda: export_bert("minilm-l6", 6, 384, 12, 1536, 12, True)),
                ("minilm-l6-cls", lambda: export_classifier("minilm-l6-cls", 6, 384, 12, 1536, 15, ["negative", "neutral", "positive"])),
                ("minilm-l6-rerank", lambda: export_classifier("minilm-l6-rerank", 6, 384, 12, 1536, 16, ["LABEL_0"])),
                ("gpt2-small", lambda: export_gpt2("gpt2-small", 12, 768, 12, 1024, 13)),
                ("smollm2-135m", lambda: export_llama("smollm2-135m", 30, 576, 9, 3, 1536, 49152, 2048, 17)),
                ("bert-layer-int8", lambda: export_bert_layer_int8("bert-layer-int8", 768, 12, 3072, 128, 14))]
    if only:
        unknown = set(only) - {name for name, _ in jobs}
        if unknown:
            sys.exit(f"--only: unknown model(s) {sorted(unknown)}; known: {[name for name, _ in jobs]}")
        jobs = [(name, job) for name, job in jobs if name in only]
    manifest_path = os.path.join(OUT, "manifest.json")
    models = []
    if only and os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            old = json.load(f)
        if old.get("quick") == quick:
            models = [m for m in old["models"] if m["name"] not in only]
    for _, job in jobs:
        models.append(job())
        print(f"exported {models[-1]['name']} ({time.time() - t0:.0f} s)", flush=True)
    fmt.write_json(manifest_path, {"quick": quick, "models": models})


if __name__ == "__main__":
    main()
