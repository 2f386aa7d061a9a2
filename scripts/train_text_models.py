#!/usr/bin/python3
"""Trains the demo page's two text models on Debian's `fortunes` and saves them as Hugging Face
folders (config.json, model.safetensors in F16, tokenizer.json + side files) in web/models/:

  fortune-gpt2/  GPT2LMHeadModel, byte-level BPE vocabulary (2048) trained here, 3 x 128, ctx 128
  fortune-bert/  BertForMaskedLM, WordPiece vocabulary (2048) built here, 3 x 128, 128 positions

    bash scripts/setup.sh train
    nice -n 10 /usr/bin/python3 scripts/train_text_models.py [gpt2|bert]... [--steps N]

Fixed seeds, a fixed number of steps, 2 threads (SF_TRAIN_THREADS; the two models can also train
in parallel with 1 thread each). metrics.json records wall and CPU seconds.
Next to each model: metrics.json (held-out perplexity / masked-token accuracy, measured with the
F16 weights as shipped, training details, sample outputs) and heads.json (attention-pattern scores
per layer and head, measured on repeated random token sequences: previous-token and induction).
The models are written with scripts/hf_reference.py's modules, so their tensor names are HF's.
"""
import heapq
import json
import math
import os
import random
import sys
import time
import zlib
from collections import defaultdict

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402
import hf_tokenizers as tk  # noqa: E402

FORTUNES = "/usr/share/games/fortunes"
SKIP = {"ascii-art"}  # pictures, not text
OUT = os.path.join(HERE, "..", "web", "models")
VOCAB, D, LAYERS, HEADS, FF, CTX = 2048, 128, 3, 4, 512, 128
SEED = 20240


# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------
def load_fortunes():
    """Every fortune as one line of plain ASCII (overstrikes removed, whitespace collapsed, the
    '-- Author' attribution kept); 1 in 20 (by CRC of the text) is held out."""
    texts = []
    for name in sorted(os.listdir(FORTUNES)):
        path = os.path.join(FORTUNES, name)
        if "." in name or name in SKIP or not os.path.isfile(path):
            continue
        with open(path, encoding="latin-1") as f:
            raw = f.read()
        for entry in raw.split("\n%\n"):
            t = entry.replace("\r", "")
            while "\b" in t:  # "_\bx" overstrike -> "x"
                i = t.index("\b")
                t = t[:max(0, i - 1)] + t[i + 1:]
            t = " ".join(t.split())
            if 20 <= len(t) <= 600 and all(32 <= ord(c) < 127 for c in t):
                texts.append(t)
    texts = sorted(set(texts))
    held = [t for t in texts if zlib.crc32(t.encode()) % 20 == 0]
    train = [t for t in texts if zlib.crc32(t.encode()) % 20 != 0]
    return train, held


# ---------------------------------------------------------------------------------------------
# Tokenizers
# ---------------------------------------------------------------------------------------------
def train_bpe_fast(word_counts, n_merges):
    """The same merges as hf_tokenizers.train_bpe (most frequent pair, ties -> smallest pair),
    with incremental pair counts and a lazy max-heap so a few thousand merges take seconds."""
    words = [[tk.BYTE_CHAR[b] for b in w.encode("utf-8")] for w in word_counts]
    freqs = list(word_counts.values())
    counts, where = defaultdict(int), defaultdict(set)
    for i, syms in enumerate(words):
        for p in zip(syms, syms[1:]):
            counts[p] += freqs[i]
            where[p].add(i)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while heap and len(merges) < n_merges:
        c, best = heapq.heappop(heap)
        if counts.get(best, 0) != -c or c == 0:
            continue  # stale entry
        merges.append(best)
        changed = set()
        for i in sorted(where.pop(best)):
            syms, f = words[i], freqs[i]
            for p in zip(syms, syms[1:]):
                counts[p] -= f
                changed.add(p)
            out, j = [], 0
            while j < len(syms):
                if j + 1 < len(syms) and (syms[j], syms[j + 1]) == best:
                    out.append(syms[j] + syms[j + 1])
                    j += 2
                else:
                    out.append(syms[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                counts[p] += f
                where[p].add(i)
                changed.add(p)
        counts.pop(best, None)
        for p in changed:
            if counts.get(p, 0) > 0:
                heapq.heappush(heap, (-counts[p], p))
    return merges


def gpt2_tokenizer(train):
    counts = defaultdict(int)
    for t in train:
        for pre in tk.gpt2_pre_tokenize(t):
            counts[pre] += 1
    merges = train_bpe_fast(dict(sorted(counts.items())), VOCAB - 256 - 1)
    vocab = tk.byte_bpe_vocab(merges, tail=["<|endoftext|>"])
    assert len(vocab) <= VOCAB, len(vocab)
    return vocab, merges


def wordpiece_vocab(train):
    """Specials, every character seen (plain and ## form), then the most frequent words, then the
    most frequent word endings (as ## pieces) of the words that did not make it, to VOCAB."""
    words = defaultdict(int)
    for t in train:
        for w in tk.bert_pre_tokenize(tk.bert_normalize(t)):
            words[w] += 1
    chars = sorted({c for w in words for c in w})
    base = tk.BERT_SPECIALS + chars + ["##" + c for c in chars]
    ranked = sorted(words, key=lambda w: (-words[w], w))
    n_words = (VOCAB - len(base)) * 3 // 4
    top = [w for w in ranked if len(w) > 1][:n_words]
    chosen = set(top)
    endings = defaultdict(int)
    for w, c in words.items():
        if w not in chosen and len(w) > 3:
            for k in range(2, min(6, len(w) - 1) + 1):
                endings["##" + w[-k:]] += c
    rest = VOCAB - len(base) - len(top)
    ends = sorted(endings, key=lambda e: (-endings[e], e))[:rest]
    return tk._dedupe(base + top + ends)[:VOCAB]


# ---------------------------------------------------------------------------------------------
# Training helpers
# ---------------------------------------------------------------------------------------------
def lr_at(step, steps, peak, warmup=100):
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))


def init_small(model, seed):
    """GPT-2/BERT style initialisation: N(0, 0.02) weights, zero biases, unit LayerNorms."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mod in model.modules():
            for name, p in mod.named_parameters(recurse=False):
                if isinstance(mod, torch.nn.LayerNorm):
                    p.fill_(1.0 if name == "weight" else 0.0)
                elif p.dim() == 1:
                    p.zero_()
                else:
                    p.copy_(0.02 * torch.randn(p.shape, generator=g))


def train_loop(model, batch_fn, steps, peak_lr, log_name):
    opt = torch.optim.AdamW(model.parameters(), lr=peak_lr, betas=(0.9, 0.95), weight_decay=0.01)
    model.train()
    t0, c0, losses = time.time(), time.process_time(), []
    for step in range(steps):
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step, steps, peak_lr)
        loss = batch_fn(step)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
        if step % 100 == 0 or step == steps - 1:
            print(f"{log_name} step {step}/{steps} loss {sum(losses[-100:]) / len(losses[-100:]):.3f} "
                  f"({time.time() - t0:.0f} s)", flush=True)
    model.eval()
    return time.time() - t0, time.process_time() - c0, sum(losses[-100:]) / len(losses[-100:])


def save_f16(folder, model):
    fmt.save_weights(folder, {k: v.detach().to(torch.float16) for k, v in ref.hf_state_dict(model).items()})


def reload_f16(folder, cfg):
    """The shipped model: F16 weights from the file, computed in float32 by the reference."""
    model = ref.build_model(cfg)
    ref.load_hf_state_dict(model, fmt.read_safetensors(os.path.join(folder, "model.safetensors"))[0])
    return model


def head_scores(model, vocab_lo, vocab_hi, seq, causal, seed, n=64):
    """Mean attention of every layer/head on `n` random token sequences of length `seq` repeated
    twice: previous_token = weight on i-1; induction = weight (in the second copy) on the token
    after the earlier occurrence of the current token (i - seq + 1); next_token (bidirectional
    models) = weight on i+1."""
    g = torch.Generator().manual_seed(seed)
    half = torch.randint(vocab_lo, vocab_hi, (n, seq), generator=g)
    ids = torch.cat([half, half], dim=1)
    with torch.no_grad():
        att = model(ids)["attentions"]
    out = []
    for layer, a in enumerate(att):  # a: [n, h, 2 seq, 2 seq]
        for h in range(a.shape[1]):
            w = a[:, h]
            i = torch.arange(1, 2 * seq)
            prev = float(w[:, i, i - 1].mean())
            j = torch.arange(seq, 2 * seq)
            ind = float(w[:, j, j - seq + 1].mean())
            row = {"layer": layer, "head": h, "previous_token": round(prev, 4), "induction": round(ind, 4)}
            if not causal:
                k = torch.arange(0, 2 * seq - 1)
                row["next_token"] = round(float(w[:, k, k + 1].mean()), 4)
            kind = []
            if prev >= 0.4:
                kind.append("previous-token")
            if ind >= 0.3:
                kind.append("induction")
            if not causal and row["next_token"] >= 0.4:
                kind.append("next-token")
            row["pattern"] = kind
            out.append(row)
    return {"method": f"{n} random sequences of {seq} tokens (ids {vocab_lo}..{vocab_hi - 1}), each repeated twice; "
                      "mean attention weight on the previous token, on the token after the earlier occurrence of "
                      "the current token (induction, second copy only), and on the next token (BERT); pattern "
                      "labels at >= 0.4 (previous/next) and >= 0.3 (induction)",
            "heads": out}


# ---------------------------------------------------------------------------------------------
# GPT-2
# ---------------------------------------------------------------------------------------------
def train_gpt2(train, held, steps):
    folder = os.path.join(OUT, "fortune-gpt2")
    os.makedirs(folder, exist_ok=True)
    t_tok = time.time()
    vocab, merges = gpt2_tokenizer(train)
    oracle = tk.ByteBPEOracle(vocab, merges, ["<|endoftext|>"])
    cache = {}

    def encode(t):
        ids = []
        for pre in tk.gpt2_pre_tokenize(t):
            if pre not in cache:
                cache[pre] = [oracle.vocab[s] for s in oracle.bpe(pre)]
            ids.extend(cache[pre])
        return ids

    eot = len(vocab) - 1
    stream = torch.tensor([i for t in train for i in encode(t) + [eot]])
    held_ids = [encode(t) for t in held]
    print(f"gpt2: vocabulary {len(vocab)}, {len(stream)} training tokens ({time.time() - t_tok:.0f} s)", flush=True)

    cfg = fmt.make_config("gpt2", "GPT2LMHeadModel", n_embd=D, n_head=HEADS, n_layer=LAYERS, n_positions=CTX,
                          vocab_size=len(vocab), bos_token_id=eot, eos_token_id=eot)
    model = ref.build_model(cfg)
    init_small(model, SEED)
    g = torch.Generator().manual_seed(SEED + 1)

    def batch(step):
        starts = torch.randint(0, len(stream) - CTX - 1, (16,), generator=g)
        x = torch.stack([stream[s:s + CTX + 1] for s in starts])
        logits = model(x[:, :-1])["logits"]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))

    seconds, cpu, final_loss = train_loop(model, batch, steps, 3e-3, "gpt2")
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    save_f16(folder, model)
    fmt.write_tokenizer_files(folder, tk.byte_bpe_tokenizer_json(vocab, merges, "gpt2"), "gpt2", CTX)

    shipped = reload_f16(folder, cfg)
    nll, count = 0.0, 0
    with torch.no_grad():
        for ids in held_ids:  # each held-out fortune on its own: <|endoftext|> then the text
            x = torch.tensor([[eot] + ids[:CTX - 1] + [eot]])[:, :CTX + 1]
            logits = shipped(x[:, :-1])["logits"]
            nll += float(F.cross_entropy(logits[0], x[0, 1:], reduction="sum"))
            count += x.shape[1] - 1
    samples = []
    with torch.no_grad():
        for prompt in ("The meaning of life is", "A programmer", "Never trust"):
            seq = encode(prompt)
            for _ in range(30):
                nxt = int(shipped(torch.tensor([seq[-CTX:]]))["logits"][0, -1].argmax())
                if nxt == eot:
                    break
                seq.append(nxt)
            text = b"".join(bytes([{c: b for b, c in tk.BYTE_CHAR.items()}[ch] for ch in vocab[i]]) for i in seq)
            samples.append({"prompt": prompt, "greedy": text.decode("utf-8", "replace")})
    metrics = {
        "model": "fortune-gpt2", "architecture": "GPT2LMHeadModel",
        "held_out": {"fortunes": len(held), "tokens": count, "perplexity": round(math.exp(nll / count), 3),
                     "cross_entropy_nats": round(nll / count, 4), "weights": "F16 as shipped"},
        "training": {"corpus": "Debian fortunes (all files but ascii-art), 1 in 20 fortunes held out by CRC32",
                     "train_fortunes": len(train), "train_tokens": int(len(stream)), "steps": steps,
                     "batch": "16 x 128 tokens", "optimizer": "AdamW 3e-3 cosine, warmup 100, wd 0.01",
                     "seed": SEED, "threads": torch.get_num_threads(), "wall_seconds": round(seconds),
                     "cpu_seconds": round(cpu), "machine": "2 cores shared with other jobs (wall time inflated)",
                     "final_train_loss": round(final_loss, 4)},
        "parameters": sum(p.numel() for p in model.parameters()),
        "file_bytes": os.path.getsize(os.path.join(folder, "model.safetensors")),
        "samples": samples,
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    fmt.write_json(os.path.join(folder, "heads.json"),
                   head_scores(shipped, 256, eot, 24, causal=True, seed=SEED + 2), sort_keys=False)
    print(json.dumps(metrics["held_out"]), flush=True)


# ---------------------------------------------------------------------------------------------
# BERT masked LM
# ---------------------------------------------------------------------------------------------
def mask_tokens(ids, special, n_vocab, g, p=0.15, all_mask=False):
    """BERT's masking: 15 % of real tokens are targets; of those 80 % -> [MASK], 10 % -> random,
    10 % kept (all_mask: every target becomes [MASK], the fill-mask evaluation)."""
    target = (torch.rand(ids.shape, generator=g) < p) & ~special
    labels = torch.where(target, ids, torch.full_like(ids, -100))
    x = ids.clone()
    r = torch.rand(ids.shape, generator=g)
    to_mask = target & ((r < 0.8) | all_mask)
    x[to_mask] = 4  # [MASK]
    to_rand = target & (r >= 0.8) & (r < 0.9) & (not all_mask)
    x[to_rand] = torch.randint(5, n_vocab, ids.shape, generator=g)[to_rand]
    return x, labels


def train_bert(train, held, steps):
    folder = os.path.join(OUT, "fortune-bert")
    os.makedirs(folder, exist_ok=True)
    vocab = wordpiece_vocab(train)
    oracle = tk.WordPieceOracle(vocab)
    cache = {}

    def encode(t):
        ids = [2]
        for w in tk.bert_pre_tokenize(tk.bert_normalize(t)):
            if w not in cache:
                cache[w] = [oracle.vocab[p] for p in oracle.word_pieces(w)]
            ids.extend(cache[w])
        return ids[:CTX - 1] + [3]

    def pad(seqs):
        n = max(len(s) for s in seqs)
        ids = torch.zeros(len(seqs), n, dtype=torch.long)
        mask = torch.zeros(len(seqs), n, dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, :len(s)] = torch.tensor(s)
            mask[i, :len(s)] = 1
        return ids, mask

    train_ids = [encode(t) for t in train]
    held_ids = [encode(t) for t in held]
    unk = sum(s.count(1) for s in train_ids) / sum(len(s) for s in train_ids)
    print(f"bert: vocabulary {len(vocab)}, {sum(len(s) for s in train_ids)} training tokens, [UNK] {unk:.4f}",
          flush=True)

    cfg = fmt.make_config("bert", "BertForMaskedLM", hidden_size=D, num_attention_heads=HEADS,
                          num_hidden_layers=LAYERS, intermediate_size=FF, max_position_embeddings=CTX,
                          vocab_size=len(vocab))
    model = ref.build_model(cfg)
    init_small(model, SEED + 10)
    g = torch.Generator().manual_seed(SEED + 11)

    by_length = sorted(range(len(train_ids)), key=lambda i: (len(train_ids[i]), i))

    def batch(step):
        # 32 fortunes of similar length (little padding); the MLM head runs on the targets only.
        start = int(torch.randint(0, len(by_length) - 32, (1,), generator=g))
        ids, mask = pad([train_ids[i] for i in by_length[start:start + 32]])
        x, labels = mask_tokens(ids, (ids < 5), len(vocab), g)
        hidden = model.bert(x, attention_mask=mask)["last_hidden_state"]
        sel = labels != -100
        return F.cross_entropy(model.cls(hidden[sel]), labels[sel])

    seconds, cpu, final_loss = train_loop(model, batch, steps, 2e-3, "bert")
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    save_f16(folder, model)
    fmt.write_tokenizer_files(folder, tk.wordpiece_tokenizer_json(vocab), "bert", CTX)

    shipped = reload_f16(folder, cfg)
    ge = torch.Generator().manual_seed(SEED + 12)
    top1 = top5 = total = 0
    with torch.no_grad():
        for k in range(0, len(held_ids), 64):
            ids, mask = pad(held_ids[k:k + 64])
            x, labels = mask_tokens(ids, (ids < 5), len(vocab), ge, all_mask=True)
            logits = shipped(x, attention_mask=mask)["logits"]
            sel = labels != -100
            best = logits[sel].topk(5, dim=-1).indices
            want = labels[sel]
            top1 += int((best[:, 0] == want).sum())
            top5 += int((best == want[:, None]).any(dim=1).sum())
            total += int(sel.sum())
    examples = []
    with torch.no_grad():
        for text in ("The [MASK] of life is to be happy.", "A [MASK] in the hand is worth two in the bush.",
                     "You will meet a tall dark [MASK]."):
            toks = oracle.encode(text)
            logits = shipped(torch.tensor([toks["ids"]]))["logits"][0, toks["tokens"].index("[MASK]")]
            examples.append({"text": text, "top5": [vocab[i] for i in logits.topk(5).indices.tolist()]})
    metrics = {
        "model": "fortune-bert", "architecture": "BertForMaskedLM",
        "held_out": {"fortunes": len(held), "masked_tokens": total, "top1_accuracy": round(top1 / total, 4),
                     "top5_accuracy": round(top5 / total, 4),
                     "masking": "15 % of non-special tokens, all replaced by [MASK], fixed seed",
                     "weights": "F16 as shipped"},
        "training": {"corpus": "Debian fortunes (all files but ascii-art), 1 in 20 fortunes held out by CRC32",
                     "train_fortunes": len(train), "unk_rate": round(unk, 5), "steps": steps,
                     "batch": "32 fortunes of similar length (<= 128 tokens), 15 % masked (80/10/10)",
                     "optimizer": "AdamW 2e-3 cosine, warmup 100, wd 0.01", "seed": SEED + 10,
                     "threads": torch.get_num_threads(), "wall_seconds": round(seconds), "cpu_seconds": round(cpu),
                     "machine": "2 cores shared with other jobs (wall time inflated)",
                     "final_train_loss": round(final_loss, 4)},
        "parameters": sum(p.numel() for p in model.parameters()),
        "file_bytes": os.path.getsize(os.path.join(folder, "model.safetensors")),
        "fill_mask_examples": examples,
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    fmt.write_json(os.path.join(folder, "heads.json"),
                   head_scores(shipped, 5, len(vocab), 24, causal=False, seed=SEED + 13), sort_keys=False)
    print(json.dumps(metrics["held_out"]), flush=True)


def main():
    torch.set_num_threads(int(os.environ.get("SF_TRAIN_THREADS", "2")))
    torch.manual_seed(SEED)
    random.seed(SEED)
    args = sys.argv[1:]
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else None
    which = [a for a in args if a in ("gpt2", "bert")] or ["gpt2", "bert"]
    os.makedirs(OUT, exist_ok=True)
    train, held = load_fortunes()
    print(f"corpus: {len(train)} training and {len(held)} held-out fortunes", flush=True)
    if "gpt2" in which:
        train_gpt2(train, held, steps or 1200)
    if "bert" in which:
        train_bert(train, held, steps or 2400)


if __name__ == "__main__":
    main()
