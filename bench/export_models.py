#!/usr/bin/python3
"""Exports the benchmark workloads from PyTorch (Debian python3-torch, fixed seed, eval mode):
for each, the weights as safetensors + config (simdformer, and read by the TF.js graph builder),
the same module as ONNX (onnxruntime-web), the inputs, and PyTorch's output for the cross-check.
Writes bench/.cache/ (git-ignored). Run by bench/run.sh; `--quick` exports only small shapes.
"""
import json
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "fixtures"))  # make_goldens
from make_goldens import write_safetensors  # noqa: E402

OUT = os.path.join(HERE, ".cache")


def causal(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


class Gemm(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.linear = nn.Linear(k, n)

    def forward(self, x):
        return self.linear(x)


class SelfAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class EncoderLayer(nn.Module):
    def __init__(self, d, h, ff, activation, mask):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, activation=activation, batch_first=True)
        self.mask = mask

    def forward(self, x, padding=None):
        if self.mask == "causal":
            return self.layer(x, src_mask=causal(x.shape[1]))
        if self.mask == "padding":
            return self.layer(x, src_key_padding_mask=padding)
        return self.layer(x)


class Encoder(nn.Module):
    def __init__(self, d, h, ff, layers):
        super().__init__()
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True), layers,
                                             enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class EncDec(nn.Module):
    def __init__(self, d, h, ff, layers):
        super().__init__()
        self.transformer = nn.Transformer(d, h, layers, layers, ff, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        return self.transformer(src, tgt, tgt_mask=causal(tgt.shape[1]))


def strip(state, prefix):
    return {k[len(prefix):] if k.startswith(prefix) else k: v for k, v in state.items()}


def workloads(quick):
    d, h, ff = (64, 4, 256) if quick else (768, 12, 3072)
    s = 16 if quick else 128
    gemm = [(s, 768 if not quick else 64, 768 if not quick else 64), (s, d, ff), (s, ff, d)]
    for m, k, n in gemm:
        yield (f"gemm_{m}x{k}x{n}", Gemm(k, n), strip(Gemm(k, n).state_dict(), ""), None, [torch.randn(1, m, k)],
               {"kind": "gemm", "m": m, "k": k, "n": n, "flops": 2 * m * k * n})
    for seq in ([16] if quick else [128, 512]):
        mod = SelfAttention(d, h)
        cfg = {"model_type": "multihead_attention", "embed_dim": d, "num_heads": h, "max_len": 1024}
        flops = 2 * seq * d * 3 * d + 2 * 2 * seq * seq * d + 2 * seq * d * d
        yield (f"mha_d{d}_s{seq}", mod, strip(mod.state_dict(), "attn."), cfg, [torch.randn(1, seq, d)],
               {"kind": "mha", "seq": seq, "flops": flops})
    layer_flops = 2 * s * d * 4 * d + 2 * 2 * s * s * d + 2 * 2 * s * d * ff
    for mask in ["none", "padding", "causal"]:
        torch.manual_seed(99)  # the same weights for the three mask variants
        mod = EncoderLayer(d, h, ff, "gelu", mask)
        cfg = {"model_type": "encoder_layer", "d_model": d, "nhead": h, "dim_feedforward": ff, "activation": "gelu",
               "max_len": 1024}
        inputs = [torch.randn(1, s, d)]
        if mask == "padding":
            pad = torch.zeros(1, s, dtype=torch.bool)
            pad[0, s - s // 4:] = True
            inputs.append(pad)
        yield (f"bert_layer_{mask}", mod, strip(mod.state_dict(), "layer."), cfg, inputs,
               {"kind": "encoder_layer", "mask": mask, "seq": s, "flops": layer_flops})
    d6, h6, ff6, s6 = (64, 4, 256, 16) if quick else (256, 4, 1024, 64)
    mod = Encoder(d6, h6, ff6, 6)
    cfg = {"model_type": "encoder", "d_model": d6, "nhead": h6, "dim_feedforward": ff6, "num_layers": 6, "max_len": 1024}
    yield ("encoder6", mod, strip(mod.state_dict(), "encoder."), cfg, [torch.randn(1, s6, d6)],
           {"kind": "encoder", "seq": s6, "flops": 6 * (2 * s6 * d6 * 4 * d6 + 4 * s6 * s6 * d6 + 4 * s6 * d6 * ff6)})
    mod = EncDec(64, 4, 256, 2)
    cfg = {"model_type": "transformer", "d_model": 64, "nhead": 4, "dim_feedforward": 256, "num_encoder_layers": 2,
           "num_decoder_layers": 2, "max_len": 1024}
    st, tt = 16, 16
    flops = 2 * (2 * st * 64 * 4 * 64 + 4 * st * st * 64 + 4 * st * 64 * 256) + \
        2 * (2 * tt * 64 * 8 * 64 + 4 * tt * tt * 64 + 4 * tt * st * 64 + 4 * tt * 64 * 256)
    yield ("encdec_d64", mod, strip(mod.state_dict(), "transformer."), cfg, [torch.randn(1, st, 64), torch.randn(1, tt, 64)],
           {"kind": "transformer", "src": st, "tgt": tt, "flops": flops})


def main():
    quick = "--quick" in sys.argv
    torch.manual_seed(2024)
    os.makedirs(OUT, exist_ok=True)
    manifest = []
    for name, module, state, config, inputs, info in workloads(quick):
        module.eval()
        if info["kind"] == "gemm":  # the module built the weights; use those
            state = module.state_dict()
            state = {"weight": state["linear.weight"], "bias": state["linear.bias"]}
        with torch.no_grad():
            output = module(*inputs)
        names = ["x", "padding"] if info["kind"] == "encoder_layer" else ["src", "tgt"] if info["kind"] == "transformer" else ["x"]
        torch.onnx.export(module, tuple(inputs), os.path.join(OUT, name + ".onnx"), input_names=names[: len(inputs)],
                          output_names=["y"], opset_version=14, do_constant_folding=True)
        write_safetensors(os.path.join(OUT, name + ".safetensors"), {k: v for k, v in state.items()})
        tensors = {n: t.float() for n, t in zip(names, inputs)}
        tensors["expected"] = output
        write_safetensors(os.path.join(OUT, name + ".io.safetensors"), tensors)
        if config:
            with open(os.path.join(OUT, name + ".json"), "w") as f:
                json.dump(config, f)
        manifest.append({"name": name, **info, "inputs": names[: len(inputs)]})
        print(f"exported {name}", flush=True)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"quick": quick, "workloads": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
