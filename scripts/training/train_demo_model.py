#!/usr/bin/python3
"""Trains the demo's model: an encoder-decoder Transformer that reverses a digit string.

Its cross-attention should form the anti-diagonal: output position i looks at input position
n - 1 - i. Debian python3-torch (1.13), fixed seed, 2 CPU threads, a few minutes.
Writes web/models/reverse/{model.safetensors (F16), config.json, vocab.json, metrics.json}.
Run: bash scripts/setup.sh goldens && /usr/bin/python3 scripts/training/train_demo_model.py
"""
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))  # make_goldens
from make_goldens import Seq2Seq, causal, write_safetensors  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web", "models", "reverse")
PAD, BOS, EOS = 0, 1, 2
DIGITS = [str(i) for i in range(10)]
VOCAB = ["<pad>", "<bos>", "<eos>"] + DIGITS
MIN_LEN, MAX_LEN = 2, 10
D, HEADS, FF, LAYERS, MAX_POS = 64, 4, 128, 2, 16


def encode(digits):
    return [3 + int(c) for c in digits]


def sample(rng, n):
    return "".join(rng.choice(DIGITS) for _ in range(n))


def batch(rng, size):
    strings = [sample(rng, rng.randint(MIN_LEN, MAX_LEN)) for _ in range(size)]
    src_len = max(len(s) for s in strings)
    src = torch.full((size, src_len), PAD)
    tgt = torch.full((size, src_len + 2), PAD)
    for i, s in enumerate(strings):
        src[i, : len(s)] = torch.tensor(encode(s))
        tgt[i, : len(s) + 2] = torch.tensor([BOS] + encode(s[::-1]) + [EOS])
    return src, tgt, strings


@torch.no_grad()
def greedy(model, src, max_steps):
    model.eval()
    skp = src == PAD
    out = torch.full((src.shape[0], 1), BOS)
    done = torch.zeros(src.shape[0], dtype=torch.bool)
    for _ in range(max_steps):
        nxt = model(src, out, skp)[:, -1].argmax(-1)
        nxt = torch.where(done, torch.full_like(nxt, EOS), nxt)
        done |= nxt == EOS
        out = torch.cat([out, nxt[:, None]], 1)
        if done.all():
            break
    return out


def decode(ids):
    s = ""
    for t in ids[1:]:
        if t == EOS:
            break
        s += VOCAB[t] if t >= 3 else "?"
    return s


def held_out_accuracy(model):
    """Exact-match accuracy on 1000 fresh random strings (a different generator than training)."""
    test_rng = random.Random(12345)
    correct = total = 0
    for _ in range(8):
        src, _, strings = batch(test_rng, 125)
        out = greedy(model, src, MAX_LEN + 2)
        for s, ids in zip(strings, out.tolist()):
            correct += decode(ids) == s[::-1]
            total += 1
    return correct, total


def main():
    torch.manual_seed(7)
    torch.set_num_threads(2)
    rng = random.Random(7)
    model = Seq2Seq(len(VOCAB), D, HEADS, FF, LAYERS, MAX_POS)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    steps, started = 3000, time.time()
    peak, warmup = 2e-3, 100
    for step in range(steps):
        model.train()
        src, tgt, _ = batch(rng, 128)
        logits = model(src, tgt[:, :-1], src == PAD)
        loss = loss_fn(logits.reshape(-1, len(VOCAB)), tgt[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        for g in opt.param_groups:  # linear warm-up, then cosine decay
            g["lr"] = peak * min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / steps))
        if step % 250 == 0:
            print(f"step {step} loss {loss.item():.4f} ({time.time() - started:.0f}s)", flush=True)

    correct, total = held_out_accuracy(model)
    print(f"held-out exact-match accuracy: {correct}/{total} = {correct / total:.4f}")

    os.makedirs(OUT, exist_ok=True)
    config = {"model_type": "transformer", "d_model": D, "nhead": HEADS, "dim_feedforward": FF,
              "num_encoder_layers": LAYERS, "num_decoder_layers": LAYERS, "vocab_size": len(VOCAB),
              "max_len": MAX_POS, "positional": "sinusoidal", "scale_embedding": True,
              "bos_token": BOS, "eos_token": EOS}
    model.eval()
    with torch.no_grad():
        for p in model.parameters():  # the file stores F16; keep the evaluated model identical
            p.copy_(p.half().float())
    write_safetensors(os.path.join(OUT, "model.safetensors"), model.state(), torch.float16,
                      metadata={"config": json.dumps(config), "task": "reverse a digit string"})
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(OUT, "vocab.json"), "w") as f:
        json.dump(VOCAB, f)
    correct16, total16 = held_out_accuracy(model)  # the F16 weights as shipped
    with open(os.path.join(OUT, "metrics.json"), "w") as f:
        json.dump({"task": f"reverse a digit string of length {MIN_LEN}-{MAX_LEN}", "train_steps": steps, "batch": 128,
                   "held_out_examples": total16, "held_out_exact_match": correct16 / total16,
                   "train_seconds": round(time.time() - started)}, f, indent=1)
    print(f"F16 weights: {correct16}/{total16}")


if __name__ == "__main__":
    main()
