#!/usr/bin/python3
"""Writes the PyTorch reference vectors in tests/data/ (run: scripts/setup.sh goldens && scripts/make_goldens.py).

Each case <name> has:
  <name>.safetensors         the module's state_dict (PyTorch names; some cases in F16/BF16)
  <name>.json                the simdformer config (PyTorch argument names)
  <name>.golden.safetensors  inputs, masks (as 0/1 floats), token ids (as floats) and outputs
PyTorch 1.13 (Debian python3-torch), float32, eval mode, fixed seed. Gradients stay enabled so
that PyTorch takes its reference ("slow") path rather than the fused fast path, whose outputs at
padded positions are zeros instead of the computed values.
"""
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors, dtype=torch.float32, metadata=None):
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        t = t.detach().to(dtype).contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if dtype == torch.bfloat16 else t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # align the data section
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def round_params(module, dtype):
    """Rounds the weights to dtype and back, so the float32 reference uses exactly the stored values."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(p.to(dtype).to(torch.float32))


def save_case(name, module, config, golden, dtype=torch.float32, state=None):
    state = state if state is not None else module.state_dict()
    write_safetensors(os.path.join(OUT, name + ".safetensors"), state, dtype)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(config, f, indent=1, sort_keys=True)
        f.write("\n")
    write_safetensors(os.path.join(OUT, name + ".golden.safetensors"),
                      {k: (v.float() if v.dtype != torch.float32 else v) for k, v in golden.items()})
    print(f"{name}: {sum(v.numel() for v in state.values())} parameters")


def padding(batch, n, lengths):
    """key_padding_mask: True (1) marks padding, as in PyTorch."""
    m = torch.zeros(batch, n, dtype=torch.bool)
    for b, length in enumerate(lengths):
        m[b, length:] = True
    return m


def causal(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


def mha_cases():
    d, h = 16, 4
    mha = nn.MultiheadAttention(d, h, batch_first=True).eval()
    x = torch.randn(2, 5, d)
    kp = padding(2, 5, [5, 3])
    out, w = mha(x, x, x, key_padding_mask=kp, need_weights=True, average_attn_weights=False)
    save_case("mha_self", mha, {"model_type": "multihead_attention", "embed_dim": d, "num_heads": h},
              {"x": x, "key_padding": kp, "out": out, "weights": w})

    # Cross-attention with distinct key and value, an additive float mask and padding; stored as F16.
    mha = nn.MultiheadAttention(d, h, batch_first=True).eval()
    round_params(mha, torch.float16)
    q, k, v = torch.randn(2, 3, d), torch.randn(2, 6, d), torch.randn(2, 6, d)
    am = torch.randn(3, 6) * 0.5
    am[0, 5] = float("-inf")
    kp = padding(2, 6, [6, 4])
    out, w = mha(q, k, v, key_padding_mask=kp, attn_mask=am, need_weights=True, average_attn_weights=False)
    save_case("mha_cross_f16", mha, {"model_type": "multihead_attention", "embed_dim": d, "num_heads": h},
              {"query": q, "key": k, "value": v, "attn_mask": am, "key_padding": kp, "out": out, "weights": w},
              dtype=torch.float16)


def encoder_layer_cases():
    d, h, ff = 16, 2, 24
    layer = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True).eval()
    x = torch.randn(2, 6, d)
    kp = padding(2, 6, [6, 4])
    out = layer(x, src_key_padding_mask=kp)
    save_case("encoder_layer_post", layer,
              {"model_type": "encoder_layer", "d_model": d, "nhead": h, "dim_feedforward": ff},
              {"x": x, "key_padding": kp, "out": out})

    layer = nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, activation="gelu", norm_first=True,
                                       layer_norm_eps=1e-6, batch_first=True).eval()
    round_params(layer, torch.bfloat16)
    x = torch.randn(2, 5, d)
    out = layer(x, src_mask=causal(5))
    save_case("encoder_layer_pre_gelu_bf16", layer,
              {"model_type": "encoder_layer", "d_model": d, "nhead": h, "dim_feedforward": ff,
               "activation": "gelu", "norm_first": True, "layer_norm_eps": 1e-6},
              {"x": x, "out": out}, dtype=torch.bfloat16)


def encoder_case():
    d, h, ff = 12, 3, 20
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True), 2,
                                norm=nn.LayerNorm(d), enable_nested_tensor=False).eval()
    x = torch.randn(3, 7, d)
    kp = padding(3, 7, [7, 5, 2])
    out = enc(x, src_key_padding_mask=kp)
    save_case("encoder", enc, {"model_type": "encoder", "d_model": d, "nhead": h, "dim_feedforward": ff,
                               "num_layers": 2}, {"x": x, "key_padding": kp, "out": out})


def decoder_layer_case():
    d, h, ff = 16, 4, 24
    layer = nn.TransformerDecoderLayer(d, h, ff, dropout=0.0, batch_first=True).eval()
    tgt, mem = torch.randn(2, 5, d), torch.randn(2, 6, d)
    mkp = padding(2, 6, [6, 3])
    out = layer(tgt, mem, tgt_mask=causal(5), memory_key_padding_mask=mkp)
    save_case("decoder_layer", layer,
              {"model_type": "decoder_layer", "d_model": d, "nhead": h, "dim_feedforward": ff},
              {"tgt": tgt, "memory": mem, "memory_key_padding": mkp, "out": out})


def transformer_case():
    d, h, ff = 12, 2, 20
    model = nn.Transformer(d, h, 2, 2, ff, dropout=0.0, batch_first=True, norm_first=True).eval()
    src, tgt = torch.randn(2, 6, d), torch.randn(2, 4, d)
    skp = padding(2, 6, [6, 4])
    out = model(src, tgt, tgt_mask=causal(4), src_key_padding_mask=skp, memory_key_padding_mask=skp)
    save_case("transformer_prenorm", model,
              {"model_type": "transformer", "d_model": d, "nhead": h, "dim_feedforward": ff,
               "num_encoder_layers": 2, "num_decoder_layers": 2, "norm_first": True},
              {"src": src, "tgt": tgt, "src_key_padding": skp, "out": out})


class Seq2Seq(nn.Module):
    """nn.Transformer with token embeddings (scaled by sqrt(d)), sinusoidal positions and a generator."""

    def __init__(self, vocab, d, h, ff, layers, max_len):
        super().__init__()
        self.d = d
        self.src_embedding = nn.Embedding(vocab, d)
        self.tgt_embedding = nn.Embedding(vocab, d)
        self.transformer = nn.Transformer(d, h, layers, layers, ff, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(d, vocab)
        pos = torch.arange(max_len, dtype=torch.float64)[:, None]
        two_j = (torch.arange(d) // 2 * 2).to(torch.float64)
        angle = pos / torch.pow(10000.0, two_j / d)
        pe = torch.where(torch.arange(d) % 2 == 0, torch.sin(angle), torch.cos(angle))
        self.register_buffer("pe", pe.float(), persistent=False)

    def embed(self, emb, tokens):
        return emb(tokens) * math.sqrt(self.d) + self.pe[: tokens.shape[1]]

    def forward(self, src, tgt, src_kp):
        out = self.transformer(self.embed(self.src_embedding, src), self.embed(self.tgt_embedding, tgt),
                               tgt_mask=causal(tgt.shape[1]), src_key_padding_mask=src_kp,
                               memory_key_padding_mask=src_kp)
        return self.generator(out)

    def state(self):
        s = {}
        for k, v in self.state_dict().items():
            s[k.replace("transformer.", "")] = v  # encoder.layers.N..., decoder.layers.N...
        return s


def seq2seq_case():
    vocab, d, h, ff, bos, eos, max_len = 11, 16, 2, 32, 1, 2, 16
    model = Seq2Seq(vocab, d, h, ff, 2, max_len).eval()
    src = torch.tensor([[3, 4, 5, 6, 7, 8], [9, 10, 3, 4, 0, 0]])
    skp = src == 0
    # Greedy decoding by full recomputation: the reference for the KV-cached decoder.
    tgt = torch.full((2, 1), bos)
    steps, min_margin = 7, float("inf")
    finished = torch.zeros(2, dtype=torch.bool)
    for _ in range(steps):
        logits = model(src, tgt, skp)[:, -1]
        top2 = logits.topk(2).values
        min_margin = min(min_margin, float((top2[:, 0] - top2[:, 1]).min()))
        nxt = logits.argmax(-1)
        nxt = torch.where(finished, torch.full_like(nxt, eos), nxt)
        finished |= nxt == eos
        tgt = torch.cat([tgt, nxt[:, None]], 1)
        if finished.all():
            break
    assert min_margin > 1e-3, f"argmax margin {min_margin} too small for a robust comparison; change the seed"
    logits = model(src, tgt[:, :-1], skp)
    save_case("seq2seq", model,
              {"model_type": "transformer", "d_model": d, "nhead": h, "dim_feedforward": ff,
               "num_encoder_layers": 2, "num_decoder_layers": 2, "vocab_size": vocab, "max_len": max_len,
               "positional": "sinusoidal", "scale_embedding": True, "bos_token": bos, "eos_token": eos},
              {"src": src.float(), "src_key_padding": skp, "generated": tgt.float(), "logits": logits},
              state=model.state())


def positional_case():
    n, d = 7, 9
    pe = torch.zeros(n, d, dtype=torch.float64)
    for i in range(n):
        for j in range(0, d, 2):
            pe[i, j] = math.sin(i / 10000 ** (j / d))
            if j + 1 < d:
                pe[i, j + 1] = math.cos(i / 10000 ** (j / d))
    write_safetensors(os.path.join(OUT, "positional.golden.safetensors"), {"pe": pe.float()})


def main():
    torch.manual_seed(1234)
    os.makedirs(OUT, exist_ok=True)
    mha_cases()
    encoder_layer_cases()
    encoder_case()
    decoder_layer_case()
    transformer_case()
    seq2seq_case()
    positional_case()
    import make_hf_fixtures  # tests/data/hf/: Hugging Face folders and their goldens
    make_hf_fixtures.main()
    print("torch", torch.__version__, file=sys.stderr)


if __name__ == "__main__":
    main()
