#!/usr/bin/python3
"""Reference q, k, v and per-head context of every attention layer, for the step-by-step view.

For each Hugging Face fixture in tests/data/hf/<case>/ this runs the from-spec PyTorch reference
(hf_reference.py) on the first single text of texts.json (its token ids as the fixture recorded
them) and captures, per layer, what the attention computes:
  q, k, v   the outputs of the query / key / value projections (bias added, not scaled)
  context   the input of the output projection: head h's Σ_j α_ij v_j in columns h*dh .. (h+1)*dh
  weights   the softmax weights [h, n, n]
and writes tests/data/attention-steps/<case>.safetensors (F32; input_ids I64). The JavaScript test
tests/js/attention-steps.test.mjs checks TextModel.attentionSteps against these within 1e-4.

    /usr/bin/python3 scripts/make_attention_steps.py [case ...]   (default: bert distilbert roberta gpt2)
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HF = os.path.join(ROOT, "tests", "data", "hf")
OUT = os.path.join(ROOT, "tests", "data", "attention-steps")

# (q, k, v, output projection) module-name suffixes per family; GPT-2 fuses q|k|v in c_attn.
PROJECTIONS = {
    "bert": ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"),
    "roberta": ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"),
    "distilbert": ("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"),
    "gpt2": ("attn.c_attn", None, None, "attn.c_proj"),
}


def layer_of(name):
    """The layer index in a module name such as encoder.layer.3.attention.self.query / h.3.attn."""
    parts = name.split(".")
    for i, p in enumerate(parts[:-1]):
        if p in ("layer", "h") and parts[i + 1].isdigit():
            return int(parts[i + 1])
    raise ValueError(f"no layer index in {name}")


def capture(model, family, n_layers):
    """Registers hooks; returns a dict layer -> {q, k, v, context} filled by the next forward."""
    q_name, k_name, v_name, out_name = PROJECTIONS[family]
    got = {i: {} for i in range(n_layers)}

    def save(key, layer, split=None):
        def hook(module, inputs, output):
            if split is None:
                got[layer][key] = output.detach()[0].clone()
            else:
                d = output.shape[-1] // 3
                for j, part in enumerate(("q", "k", "v")):
                    got[layer][part] = output.detach()[0, :, j * d:(j + 1) * d].clone()
        return hook

    def save_input(layer):
        def hook(module, inputs):
            got[layer]["context"] = inputs[0].detach()[0].clone()
        return hook

    for name, module in model.named_modules():
        if name.endswith(q_name):
            module.register_forward_hook(save("q", layer_of(name), split=family == "gpt2" or None))
        elif k_name and name.endswith(k_name):
            module.register_forward_hook(save("k", layer_of(name)))
        elif v_name and name.endswith(v_name):
            module.register_forward_hook(save("v", layer_of(name)))
        elif name.endswith(out_name):
            module.register_forward_pre_hook(save_input(layer_of(name)))
    return got


def make(case):
    folder = os.path.join(HF, case)
    cfg = json.load(open(os.path.join(folder, "config.json")))
    texts = json.load(open(os.path.join(folder, "texts.json")))
    first = texts["tokenizer"]["single"][0]
    tensors, _ = fmt.read_safetensors(os.path.join(folder, "model.safetensors"))
    model = ref.load_hf_state_dict(ref.build_model(cfg), tensors)
    family = cfg["model_type"]
    n_layers = cfg.get("num_hidden_layers", cfg.get("n_layers", cfg.get("n_layer")))
    got = capture(model, family, n_layers)
    ids = torch.tensor([first["ids"]], dtype=torch.int64)
    with torch.no_grad():
        out = model(ids, attention_mask=torch.ones_like(ids))
    result = {"input_ids": ids[0]}
    for layer in range(n_layers):
        for key in ("q", "k", "v", "context"):
            result[f"{key}.{layer}"] = got[layer][key].float().contiguous()
        result[f"weights.{layer}"] = out["attentions"][layer][0].float().contiguous()
    os.makedirs(OUT, exist_ok=True)
    fmt.write_safetensors(os.path.join(OUT, f"{case}.safetensors"), result, {"text": first["text"]})
    print(f"{case}: {len(first['ids'])} tokens, {n_layers} layers -> tests/data/attention-steps/{case}.safetensors")


if __name__ == "__main__":
    for case in sys.argv[1:] or ["bert", "distilbert", "roberta", "gpt2"]:
        make(case)
