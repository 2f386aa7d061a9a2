#!/usr/bin/env python3
"""Writes a pre-quantized copy of a checkpoint: every linear weight as int8 per output channel,
about 4x smaller, loaded by simdformer without dequantizing.

    /usr/bin/python3 scripts/quantize.py [--config-only] SRC DST

SRC is a checkpoint folder (config.json + model.safetensors, or shards + model.safetensors.index.json)
or a single .safetensors file (the nn.Transformer dialect, config in its metadata). For a folder,
DST is a folder that receives every other file unchanged (only config.json with --config-only)
and one model.safetensors; for a file, DST is the output file.

Format (what simdformer's Linear reads; see src/simdformer/layers/linear_int8.h):
    <name>        I8  the weight as it was stored ([out, in] for nn.Linear, [in, out] for GPT-2's
                      Conv1D), q = round_half_even(w / scale) clamped to [-127, 127]
    <name>_scale  F32 [out]: scale = max |w| over the output channel / 127 (0 for a zero channel)
Every other tensor (biases, LayerNorms, position and token-type embeddings, the nn.Transformer
dialect's token embeddings and additive-attention weights) is kept as stored. The arithmetic is
float32 like simdformer's quantize-at-load path, so both give the same int8 values and scales.
The metadata gains "quantization": "int8 per output channel (symmetric)".
"""
import json
import os
import re
import shutil
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
from hf_format import read_safetensors, write_safetensors  # noqa: E402

FLOATS = (torch.float32, torch.float16, torch.bfloat16, torch.float64)
# 2-D weights that simdformer reads as tables, not through a linear layer: they stay as stored.
KEEP = re.compile(r"(position_embeddings|token_type_embeddings|pos_embedding|(^|\.)embedding\.weight$|"
                  r"(^|\.)wpe\.weight$|additive\.)")
# GPT-2's Conv1D weights are [in, out]: their output channels are columns.
CONV1D = re.compile(r"(^|\.)(c_attn|c_proj|c_fc)\.weight$")
QUANTIZATION = "int8 per output channel (symmetric)"


def is_linear_weight(name, t):
    return t.dtype in FLOATS and t.dim() == 2 and name.endswith("weight") and not KEEP.search(name)


def quantize(w, channel_axis):
    """int8 [same shape] and float32 scales [channels] of a weight, per output channel."""
    w = w.to(torch.float32)
    rows = w if channel_axis == 0 else w.t()               # [channels, in]
    scale = rows.abs().amax(dim=1) / 127.0                 # float32, as the C++ loader
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(rows / safe[:, None]).clamp_(-127, 127)  # torch.round: half to even
    q[scale == 0] = 0
    q = q.to(torch.int8)
    return (q if channel_axis == 0 else q.t()).contiguous(), scale.contiguous()


def quantize_tensors(tensors, gpt2):
    out = {}
    for name, t in tensors.items():
        if not is_linear_weight(name, t):
            out[name] = t
            continue
        axis = 1 if gpt2 and CONV1D.search(name) else 0
        out[name], out[name + "_scale"] = quantize(t, axis)
    return out


def read_checkpoint(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    tensors, meta = {}, None
    for name in files:
        t, m = read_safetensors(os.path.join(folder, name))
        tensors.update(t)
        meta = meta if meta is not None else m
    return tensors, meta or {}, files


def main(argv):
    args = [a for a in argv[1:] if a != "--config-only"]
    config_only = len(args) != len(argv) - 1
    if len(args) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    src, dst = args
    if os.path.isdir(src):
        config = {}
        if os.path.exists(os.path.join(src, "config.json")):
            with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
                config = json.load(f)
        tensors, meta, files = read_checkpoint(src)
        os.makedirs(dst, exist_ok=True)
        skip = set(files) | {"model.safetensors.index.json"}
        for entry in os.listdir(src):
            if entry in skip or (config_only and entry != "config.json"):
                continue
            s = os.path.join(src, entry)
            (shutil.copytree if os.path.isdir(s) else shutil.copy2)(s, os.path.join(dst, entry))
        out_file = os.path.join(dst, "model.safetensors")
        gpt2 = config.get("model_type") == "gpt2"
    else:
        tensors, meta = read_safetensors(src)
        meta = meta or {}
        out_file, gpt2 = dst, False
    out = quantize_tensors(tensors, gpt2)
    write_safetensors(out_file, out, dict(meta, quantization=QUANTIZATION))
    before = sum(t.numel() * t.element_size() for t in tensors.values())
    after = sum(t.numel() * t.element_size() for t in out.values())
    n = sum(1 for k in out if k.endswith("_scale") and k[:-6] in out and out[k[:-6]].dtype == torch.int8)
    print(f"{out_file}: {n} weights quantized, tensor data {before} -> {after} bytes ({after / before:.3f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
