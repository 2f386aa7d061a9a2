#!/usr/bin/python3
"""Trains the demo page's two text models on Debian's `fortunes` and saves them as Hugging Face
folders (config.json, model.safetensors in F16, tokenizer.json + side files) in web/models/:

  fortune-gpt2/  GPT2LMHeadModel: byte-level BPE (1024) learned here, 4 layers x 128 (4 heads), ctx 128
                 (the recipe before issue 34: it formed no previous-token or induction head, and the
                 shipped fortune-gpt2 now comes from train_induction_models.py gpt2; `heldout` still
                 writes its heldout.json)
  fortune-bert/  BertForMaskedLM: WordPiece (2048) built here, 4 layers x 128 (4 heads), 128 positions

    bash scripts/setup.sh train
    nice -n 10 /usr/bin/python3 scripts/training/train_text_models.py [gpt2|bert|all] [--steps N] [--out DIR]

Fixed seeds and step counts, 2 threads (SF_TRAIN_THREADS). Same machine + same thread count ->
same weights. --steps / --out are for trying a recipe without touching web/models.
Next to each model:
  metrics.json  held-out test perplexity (GPT-2) / masked-token top-1 and top-5 (BERT), measured
                on the F16 weights reloaded from the saved folder; the exact training data mix,
                steps, CPU and wall seconds, the dev curve, samples, and a tokenizer check list
                (texts with the ids our Python oracle gives; scripts/training/check_model_tokenizers.mjs
                compares them with the npm tokenizers package).
  heads.json    which heads do what, measured on held-out inputs (scripts/training/attention_patterns.py).
The models are scripts/reference/hf_reference.py's modules, so their tensor names are HF's.
"""
import os

# Idle OpenMP threads sleep instead of spinning: on a machine shared with other jobs a spinning
# thread burns CPU seconds that do no work. Must be set before torch loads libgomp.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import attention_patterns as pat  # noqa: E402
import fortune_corpus as corpus  # noqa: E402
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "web", "models")
MAX_FILE_BYTES = 2_000_000
CORPUS_NOTE = ("Debian fortunes (every file but ascii-art; ASCII fortunes of >= 20 characters, whitespace "
               "collapsed); by CRC32 of the text 1 in 20 is the test set, 1 in 20 the dev set")

GPT2 = dict(vocab=1024, d=128, layers=4, heads=4, ctx=128, text_rows=12, repeat_rows=4, steps=1200,
            lr=3e-3, warmup=100, final_lr=0.1, wd=0.1, seed=20240,
            span=(8, 40), gap=(0, 16))
BERT = dict(vocab=2048, d=128, layers=4, heads=4, ff=384, ctx=128, batch_tokens=2048, steps=1200,
            lr=2e-3, warmup=100, final_lr=0.1, wd=0.01, seed=20250, mask_p=0.15, train_mask_p=0.3)
# Position tables start as a sinusoidal table (Vaswani et al.) times POS_INIT_SCALE instead of
# noise: relative offsets are then linear maps of the table from step 0, so previous / next token
# heads (and the induction heads built on them) form within the short CPU budget. The tables are
# still ordinary learned GPT-2 / BERT weights.
POS_INIT_SCALE = 0.1


# ---------------------------------------------------------------------------------------------
# Shared training machinery
# ---------------------------------------------------------------------------------------------
def lr_at(step, r):
    """Linear warmup to r['lr'], then cosine down to r['final_lr'] * r['lr'] at the last step."""
    if step < r["warmup"]:
        return r["lr"] * (step + 1) / r["warmup"]
    t = (step - r["warmup"]) / max(1, r["steps"] - r["warmup"])
    return r["lr"] * (r["final_lr"] + (1 - r["final_lr"]) * 0.5 * (1 + math.cos(math.pi * t)))


def sinusoidal(n, d):
    """[n, d]: sin(pos / 10000^(2i/d)) in even columns, cos in odd ones."""
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    inv = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float32) / d)
    table = torch.zeros(n, d)
    table[:, 0::2] = torch.sin(pos * inv)
    table[:, 1::2] = torch.cos(pos * inv)
    return table


def init_small(model, seed):
    """GPT-2/BERT style initialisation: N(0, 0.02) weights, zero biases, unit LayerNorms; the
    position table sinusoidal (see POS_INIT_SCALE)."""
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
        for name, p in model.named_parameters():
            if name.endswith(("wpe.weight", "position_embeddings.weight")):
                p.copy_(POS_INIT_SCALE * sinusoidal(*p.shape))


def optimizer(model, r):
    """AdamW; weight decay on matrices (and embedding tables) only, not on biases / LayerNorms."""
    params = list({id(p): p for p in model.parameters()}.values())  # tied tables once
    decay = [p for p in params if p.dim() >= 2]
    rest = [p for p in params if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": r["wd"]}, {"params": rest, "weight_decay": 0.0}],
                             lr=r["lr"], betas=(0.9, 0.95))


def train_loop(model, r, batch_loss, probe, name):
    """Runs r['steps'] steps of batch_loss(step) -> loss; every 400 steps (and at the end) probe()
    -> dict of dev numbers. Returns (curve, cpu seconds and wall seconds of training alone)."""
    opt = optimizer(model, r)
    curve, losses = [], []
    train_cpu = train_wall = 0.0
    for step in range(r["steps"]):
        t0, c0 = time.time(), time.process_time()
        model.train()
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step, r)
        loss = batch_loss(step)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
        train_cpu += time.process_time() - c0
        train_wall += time.time() - t0
        if (step + 1) % 50 == 0:
            print(f"{name} step {step + 1} loss {sum(losses[-50:]) / 50:.4f} cpu {train_cpu:.0f} s", flush=True)
        if (step + 1) % 400 == 0 or step + 1 == r["steps"]:
            model.eval()
            point = dict(step=step + 1, train_loss=round(sum(losses[-400:]) / len(losses[-400:]), 4), **probe())
            curve.append(point)
            print(f"{name} {json.dumps(point)} cpu {train_cpu:.0f} s wall {train_wall:.0f} s", flush=True)
    model.eval()
    return curve, train_cpu, train_wall


def save_folder(folder, cfg, model, tokenizer_json, kind, ctx):
    """config.json, model.safetensors (F16, HF names, tied tables once), tokenizer files."""
    os.makedirs(folder, exist_ok=True)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    fmt.save_weights(folder, {k: v.detach().to(torch.float16) for k, v in ref.hf_state_dict(model).items()})
    fmt.write_tokenizer_files(folder, tokenizer_json, kind, ctx)
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    assert size <= MAX_FILE_BYTES, f"model.safetensors is {size} bytes, over {MAX_FILE_BYTES}"
    return size


def reload_f16(folder):
    """The shipped model: config.json and F16 weights read back from the folder, run in float32
    by the reference implementation."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    model = ref.build_model(cfg)
    tensors = fmt.read_safetensors(os.path.join(folder, "model.safetensors"))[0]
    # Every saved tensor back by its exact name, and exactly the set that was saved: this checks
    # what save_folder wrote (ref.load_hf_state_dict skips HF's ignored buffers by pattern; an
    # earlier suffix pattern there silently skipped GPT-2's h.N.attn.c_attn.bias).
    own = model.state_dict()
    expected = set(ref.hf_state_dict(model))
    assert set(tensors) == expected, (sorted(set(tensors) ^ expected))
    with torch.no_grad():
        for k, t in tensors.items():
            assert tuple(own[k].shape) == tuple(t.shape), (k, tuple(own[k].shape), tuple(t.shape))
            own[k].copy_(t.to(torch.float32))
    return model


def cpu_note():
    return {"threads": torch.get_num_threads(), "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "machine": "2 cores shared with other jobs while training (wall seconds inflated; CPU seconds "
                       "are the budget measure: 30 min on 2 idle cores = 3600 CPU s)"}


# ---------------------------------------------------------------------------------------------
# GPT-2: data
# ---------------------------------------------------------------------------------------------
class Gpt2Batches:
    """Training rows of ctx + 1 tokens.

    Text rows: every epoch the training fortunes are shuffled, written as one stream
    (<|endoftext|> before each fortune) and cut into consecutive windows; rows are taken in a
    shuffled order. Repeat rows (for induction heads), half of each kind: L random merged-piece
    ids written over and over to fill the row (loss not counted on the first copy: nothing there
    to learn), or a text window with L tokens from elsewhere in the stream inserted twice, `gap`
    text tokens apart: w[:a] S w[a:a+g] S w[a+g:]."""

    def __init__(self, docs, eot, r):
        self.docs, self.eot, self.r = docs, eot, r
        self.n = r["ctx"] + 1
        self.g = torch.Generator().manual_seed(r["seed"] + 1)
        self.epoch, self.rows, self.next = 0, None, 0
        self._new_epoch()

    def _new_epoch(self):
        order = torch.randperm(len(self.docs), generator=self.g).tolist()
        stream = []
        for i in order:
            stream.append(self.eot)
            stream.extend(self.docs[i])
        self.stream = torch.tensor(stream)
        off = int(torch.randint(0, self.n, (1,), generator=self.g))
        rows = self.stream[off:off + (len(stream) - off) // self.r["ctx"] * self.r["ctx"]]
        rows = rows.unfold(0, self.n, self.r["ctx"])  # windows overlap by one token (input/target)
        self.rows = rows[torch.randperm(rows.shape[0], generator=self.g)]
        self.next = 0
        self.epoch += 1

    def text(self, k):
        if self.next + k > self.rows.shape[0]:
            self._new_epoch()
        out = self.rows[self.next:self.next + k]
        self.next += k
        return out

    def _slice(self, length):
        s = int(torch.randint(0, len(self.stream) - length, (1,), generator=self.g))
        return self.stream[s:s + length]

    def repeat(self, k):
        """k rows [k, ctx + 1] and their loss weights [k, ctx] (0 = target not counted)."""
        x = torch.empty(k, self.n, dtype=torch.long)
        w = torch.ones(k, self.n - 1)
        for i in range(k):
            lo, hi = self.r["span"]
            L = int(torch.randint(lo, hi + 1, (1,), generator=self.g))
            gap = int(torch.randint(self.r["gap"][0], self.r["gap"][1] + 1, (1,), generator=self.g))
            a = int(torch.randint(0, self.n - 2 * L - gap + 1, (1,), generator=self.g))
            random_span = bool(torch.rand(1, generator=self.g) < 0.5)
            if random_span:
                span = torch.randint(256, self.eot, (L,), generator=self.g)
            else:
                span = self._slice(L)
            if random_span:  # the span written over and over from position 0 (Olsson et al.'s test)
                x[i] = span.repeat(self.n // L + 1)[:self.n]
                w[i, :L - 1] = 0.0  # targets x[1..L-1]: later random tokens of the first copy
                continue
            win = self._slice(self.n)
            x[i] = torch.cat([win[:a], span, win[a:a + gap], span, win[a + gap:]])[:self.n]
        return x, w


def lm_loss(model, x, w=None):
    logits = model(x[:, :-1])["logits"]
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="none")
    if w is None:
        return nll.mean()
    w = w.reshape(-1)
    return (nll * w).sum() / w.sum()


def lm_test_nll(model, docs, eot, ctx):
    """Sum of next-token NLL (nats) and count over held-out fortunes, each on its own as
    <|endoftext|> text <|endoftext|> (the closing token is predicted too). Fortunes longer than
    the context are scored in windows: each new window predicts ctx / 2 new tokens with at least
    ctx / 2 tokens of context."""
    nll, count = 0.0, 0
    with torch.no_grad():
        for ids in docs:
            seq = torch.tensor([eot] + ids + [eot])
            pos = 1  # first target not yet scored
            while pos < len(seq):
                end = min(len(seq), pos + (ctx if pos == 1 else ctx // 2))
                lo = max(0, end - ctx - 1)
                x = seq[lo:end]
                logits = model(x[None, :-1])["logits"][0]
                nll += float(F.cross_entropy(logits[pos - lo - 1:], x[pos - lo:], reduction="sum"))
                count += end - pos
                pos = end
    return nll, count


def generate(model, ids, steps, ctx, eot, top_k=None, temperature=1.0, g=None):
    """Greedy (top_k None) or top-k sampling at a temperature; stops at <|endoftext|>."""
    ids = list(ids)
    with torch.no_grad():
        for _ in range(steps):
            logits = model(torch.tensor([ids[-ctx:]]))["logits"][0, -1]
            if top_k is None:
                nxt = int(logits.argmax())
            else:
                val, idx = (logits / temperature).topk(top_k)
                nxt = int(idx[torch.multinomial(F.softmax(val, dim=-1), 1, generator=g)])
            if nxt == eot:
                break
            ids.append(nxt)
    return ids


# ---------------------------------------------------------------------------------------------
# GPT-2
# ---------------------------------------------------------------------------------------------
def gpt2_config(r, vocab):
    return fmt.make_config("gpt2", "GPT2LMHeadModel", dtype=torch.float16, n_embd=r["d"], n_head=r["heads"],
                           n_layer=r["layers"], n_positions=r["ctx"], vocab_size=len(vocab.vocab),
                           bos_token_id=vocab.eot, eos_token_id=vocab.eot,
                           attn_pdrop=0.0, embd_pdrop=0.0, resid_pdrop=0.0)


def train_gpt2(train, dev, test, r, out):
    folder = os.path.join(out, "fortune-gpt2")
    t_tok = time.process_time()
    vocab = corpus.Gpt2Vocab.train(train, r["vocab"])
    docs = [vocab.encode(t) for t in train]
    n_tokens = sum(len(d) + 1 for d in docs)
    tok_cpu = time.process_time() - t_tok
    print(f"gpt2: vocabulary {len(vocab.vocab)}, {n_tokens} training tokens per epoch ({tok_cpu:.0f} CPU s)",
          flush=True)

    cfg = gpt2_config(r, vocab)
    model = ref.build_model(cfg)
    init_small(model, r["seed"])
    data = Gpt2Batches(docs, vocab.eot, r)
    dev_docs = [vocab.encode(t) for t in dev[:200]]
    probe_text = [t for t in dev if len(vocab.encode(t)) >= 64]

    def batch_loss(step):
        x_text = data.text(r["text_rows"])
        x_rep, w_rep = data.repeat(r["repeat_rows"])
        x = torch.cat([x_text, x_rep])
        w = torch.cat([torch.ones(x_text.shape[0], x.shape[1] - 1), w_rep])
        return lm_loss(model, x, w)

    def probe():
        nll, count = lm_test_nll(model, dev_docs, vocab.eot, r["ctx"])
        rep = pat.gpt2_report(model, vocab, probe_text, seed=r["seed"] + 5, n=16)
        s = rep["scores"]
        return {"dev_loss": round(nll / count, 4), "epoch": data.epoch,
                "max_previous_token": max(max(layer) for layer in s["previous_token_text"]),
                "max_induction_random": max(max(layer) for layer in s["induction_random"]),
                "max_induction_text": max(max(layer) for layer in s["induction_text"])}

    curve, cpu, wall = train_loop(model, r, batch_loss, probe, "gpt2")
    size = save_folder(folder, cfg, model, vocab.tokenizer_json(), "gpt2", r["ctx"])

    shipped = reload_f16(folder)
    test_docs = [vocab.encode(t) for t in test]
    nll, count = lm_test_nll(shipped, test_docs, vocab.eot, r["ctx"])
    chars = sum(len(t) for t in test)
    heads = pat.gpt2_report(shipped, vocab, test, seed=r["seed"] + 2)
    g = torch.Generator().manual_seed(r["seed"] + 3)
    samples = []
    for prompt in ("The meaning of life is", "A programmer is", "Never trust a", "Q: What do you call",
                   "You will be"):
        ids = vocab.encode(prompt)
        samples.append({"prompt": prompt,
                        "greedy": vocab.decode(generate(shipped, ids, 40, r["ctx"], vocab.eot)),
                        "top_k_40_t_0.8": vocab.decode(generate(shipped, ids, 40, r["ctx"], vocab.eot,
                                                                top_k=40, temperature=0.8, g=g))})
    tokens_seen = r["steps"] * (r["text_rows"] + r["repeat_rows"]) * r["ctx"]
    metrics = {
        "model": "fortune-gpt2", "architecture": "GPT2LMHeadModel",
        "test": {"fortunes": len(test), "characters": chars, "tokens": count,
                 "perplexity": round(math.exp(nll / count), 3), "cross_entropy_nats": round(nll / count, 4),
                 "bits_per_character": round(nll / math.log(2) / chars, 4),
                 "scoring": "each fortune alone as <|endoftext|> text <|endoftext|>, every token after the first "
                            "predicted; long fortunes in windows with >= 64 tokens of context; bits per character "
                            "= total NLL / ln 2 / characters of text (comparable across vocabularies)",
                 "weights": "F16 as shipped (reloaded from model.safetensors)"},
        "attention_heads": {"previous_token": heads["labels"]["previous_token"],
                            "induction": heads["labels"]["induction"], "details": "heads.json"},
        "training": {
            "corpus": CORPUS_NOTE, "train_fortunes": len(train), "dev_fortunes": len(dev),
            "tokens_per_epoch": n_tokens, "vocabulary": f"byte-level BPE, {len(vocab.vocab)} ids (256 bytes, "
            f"{len(vocab.merges)} merges learned from the training fortunes, <|endoftext|>)",
            "data_mix": {
                "rows_per_step": r["text_rows"] + r["repeat_rows"], "tokens_per_row": r["ctx"],
                "text_rows": f"{r['text_rows']} per step: consecutive {r['ctx'] + 1}-token windows of the "
                             "shuffled training stream (<|endoftext|> before each fortune), a new shuffle every "
                             "epoch",
                "repeat_rows": f"{r['repeat_rows']} per step ({100 * r['repeat_rows'] / (r['text_rows'] + r['repeat_rows']):.0f} %"
                               f" of rows), L = {r['span'][0]}..{r['span'][1]}: half are L random merged-piece ids "
                               "written over and over to fill the row (first copy not in the loss), half a text "
                               "window with L tokens from elsewhere in the training stream inserted twice, "
                               f"{r['gap'][0]}..{r['gap'][1]} text tokens apart",
                "epochs_of_text": round(r["steps"] * r["text_rows"] * r["ctx"] / n_tokens, 2),
            },
            "steps": r["steps"], "tokens_seen": tokens_seen,
            "optimizer": f"AdamW betas (0.9, 0.95), peak lr {r['lr']}, linear warmup {r['warmup']} steps, cosine "
                         f"to {r['final_lr']} x peak, weight decay {r['wd']} on matrices, grad clip 1.0, no dropout",
            "seed": r["seed"], "cpu_seconds": round(cpu), "wall_seconds": round(wall),
            "tokenizer_cpu_seconds": round(tok_cpu), **cpu_note(),
            "curve": curve,
        },
        "config": {k: r[k] for k in ("vocab", "d", "layers", "heads", "ctx")},
        "parameters": sum(p.numel() for p in {id(p): p for p in model.parameters()}.values()),
        "file_bytes": size,
        "samples": samples,
        "samples_note": "prompt tokens only (no <|endoftext|> before them, as the page runs it); greedy and "
                        f"top-k 40 at temperature 0.8 with torch seed {r['seed'] + 3}, 40 new tokens at most",
        "tokenizer_check": [{"text": t, "ids": vocab.encode(t)} for t in test[::97][:8] + [s["prompt"] for s in samples]],
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    fmt.write_json(os.path.join(folder, "heads.json"), heads, sort_keys=False)
    print(json.dumps(metrics["test"]), json.dumps(metrics["attention_heads"]), flush=True)


# ---------------------------------------------------------------------------------------------
# BERT masked LM
# ---------------------------------------------------------------------------------------------
def mask_tokens(ids, n_special, n_vocab, g, p, all_mask=False):
    """BERT's masking: a fraction p of real tokens are targets; of those 80 % -> [MASK], 10 % ->
    a random word piece, 10 % kept (all_mask: every target becomes [MASK], the fill-mask test)."""
    special = ids < n_special
    target = (torch.rand(ids.shape, generator=g) < p) & ~special
    labels = torch.where(target, ids, torch.full_like(ids, -100))
    x = ids.clone()
    r = torch.rand(ids.shape, generator=g)
    to_mask = target & ((r < 0.8) | all_mask)
    x[to_mask] = corpus.BertVocab.MASK
    to_rand = target & (r >= 0.8) & (r < 0.9) & (not all_mask)
    x[to_rand] = torch.randint(n_special, n_vocab, ids.shape, generator=g)[to_rand]
    return x, labels


def pad(seqs):
    """[CLS] ... [SEP] id lists -> ids [B, n] (0 = [PAD]) and attention_mask [B, n]."""
    n = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), n, dtype=torch.long)
    mask = torch.zeros(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = 1
    return ids, mask


def bert_sequences(vocab, texts, ctx):
    """[CLS] pieces [SEP] per fortune; a fortune over ctx - 2 pieces becomes several sequences."""
    out = []
    for t in texts:
        p = vocab.pieces(t)
        for k in range(0, max(1, len(p)), ctx - 2):
            out.append([vocab.CLS] + p[k:k + ctx - 2] + [vocab.SEP])
    return out


class BertBatches:
    """Every epoch: sequences sorted by (length, random key), cut into batches of at most
    batch_tokens tokens (padding included), batches in a shuffled order."""

    def __init__(self, seqs, r):
        self.seqs, self.r = seqs, r
        self.g = torch.Generator().manual_seed(r["seed"] + 1)
        self.epoch, self.batches, self.next = 0, [], 0

    def _new_epoch(self):
        key = torch.rand(len(self.seqs), generator=self.g).tolist()
        order = sorted(range(len(self.seqs)), key=lambda i: (len(self.seqs[i]), key[i]))
        batches, cur = [], []
        for i in order:  # sorted ascending: the newest sequence is the longest of the batch
            if cur and (len(cur) + 1) * len(self.seqs[i]) > self.r["batch_tokens"]:
                batches.append(cur)
                cur = []
            cur.append(i)
        batches.append(cur)
        self.batches = [batches[i] for i in torch.randperm(len(batches), generator=self.g).tolist()]
        self.next = 0
        self.epoch += 1

    def take(self):
        if self.next >= len(self.batches):
            self._new_epoch()
        b = self.batches[self.next]
        self.next += 1
        return pad([self.seqs[i] for i in b])


def fill_mask_accuracy(model, seqs, n_vocab, seed, p):
    """Top-1 / top-5 accuracy on a fixed fraction p of the real tokens, all replaced by [MASK]."""
    g = torch.Generator().manual_seed(seed)
    top1 = top5 = total = 0
    with torch.no_grad():
        for k in range(0, len(seqs), 64):
            ids, mask = pad(seqs[k:k + 64])
            x, labels = mask_tokens(ids, corpus.BertVocab.N_SPECIAL, n_vocab, g, p, all_mask=True)
            logits = model(x, attention_mask=mask)["logits"]
            sel = labels != -100
            best = logits[sel].topk(5, dim=-1).indices
            want = labels[sel]
            top1 += int((best[:, 0] == want).sum())
            top5 += int((best == want[:, None]).any(dim=1).sum())
            total += int(sel.sum())
    return top1, top5, total


def bert_config(r, vocab):
    return fmt.make_config("bert", "BertForMaskedLM", dtype=torch.float16, hidden_size=r["d"],
                           num_attention_heads=r["heads"], num_hidden_layers=r["layers"],
                           intermediate_size=r["ff"], max_position_embeddings=r["ctx"],
                           vocab_size=len(vocab.vocab), attention_probs_dropout_prob=0.0, hidden_dropout_prob=0.0)


def train_bert(train, dev, test, r, out):
    folder = os.path.join(out, "fortune-bert")
    vocab = corpus.BertVocab.train(train, r["vocab"])
    V = len(vocab.vocab)
    seqs = bert_sequences(vocab, train, r["ctx"])
    n_tokens = sum(len(s) for s in seqs)
    unk = sum(s.count(vocab.UNK) for s in seqs) / n_tokens
    print(f"bert: vocabulary {V}, {len(seqs)} sequences, {n_tokens} tokens per epoch, [UNK] {unk:.4f}", flush=True)

    cfg = bert_config(r, vocab)
    model = ref.build_model(cfg)
    init_small(model, r["seed"])
    data = BertBatches(seqs, r)
    g = torch.Generator().manual_seed(r["seed"] + 2)
    dev_seqs = bert_sequences(vocab, dev[:300], r["ctx"])

    def batch_loss(step):
        ids, mask = data.take()
        x, labels = mask_tokens(ids, vocab.N_SPECIAL, V, g, r["train_mask_p"])
        hidden = model.bert(x, attention_mask=mask)["last_hidden_state"]
        sel = labels != -100  # the MLM head runs on the targets only
        return F.cross_entropy(model.cls(hidden[sel]), labels[sel])

    def probe():
        t1, t5, n = fill_mask_accuracy(model, dev_seqs, V, r["seed"] + 4, r["mask_p"])
        return {"dev_top1": round(t1 / n, 4), "dev_top5": round(t5 / n, 4), "epoch": data.epoch}

    curve, cpu, wall = train_loop(model, r, batch_loss, probe, "bert")
    size = save_folder(folder, cfg, model, vocab.tokenizer_json(), "bert", r["ctx"])

    shipped = reload_f16(folder)
    test_seqs = bert_sequences(vocab, test, r["ctx"])
    top1, top5, total = fill_mask_accuracy(shipped, test_seqs, V, r["seed"] + 3, r["mask_p"])
    freq = torch.bincount(torch.tensor([i for s in seqs for i in s]), minlength=V)
    freq[:vocab.N_SPECIAL] = 0
    common = [vocab.vocab[i] for i in freq.topk(5).indices.tolist()]
    base1, base5, _ = fill_mask_accuracy(lambda x, attention_mask: {"logits": freq.float().expand(
        x.shape + (V,))}, test_seqs, V, r["seed"] + 3, r["mask_p"])
    examples = []
    with torch.no_grad():
        for text in ("The [MASK] of life is to be happy.", "A [MASK] in the hand is worth two in the bush.",
                     "You will meet a tall dark [MASK].", "Never put off until tomorrow what you can do [MASK].",
                     "There is no place like [MASK].", "The computer is [MASK]."):
            enc = vocab.encode(text)
            logits = shipped(torch.tensor([enc["ids"]]))["logits"][0, enc["tokens"].index("[MASK]")]
            probs = F.softmax(logits, dim=-1)
            best = probs.topk(5)
            examples.append({"text": text, "top5": [[vocab.vocab[i], round(float(pr), 3)]
                                                    for pr, i in zip(best.values.tolist(), best.indices.tolist())]})
    heads = pat.bert_report(shipped, vocab, test, seed=r["seed"] + 5)
    metrics = {
        "model": "fortune-bert", "architecture": "BertForMaskedLM",
        "test": {"fortunes": len(test), "sequences": len(test_seqs), "masked_tokens": total,
                 "top1_accuracy": round(top1 / total, 4), "top5_accuracy": round(top5 / total, 4),
                 "masking": f"{r['mask_p']:.0%} of the real (non-special) word pieces, all replaced by [MASK], "
                            f"torch seed {r['seed'] + 3}",
                 "baseline_most_frequent": {"top1_accuracy": round(base1 / total, 4),
                                            "top5_accuracy": round(base5 / total, 4), "top5_pieces": common},
                 "weights": "F16 as shipped (reloaded from model.safetensors)"},
        "attention_heads": {k: v for k, v in heads["labels"].items()} | {"details": "heads.json"},
        "training": {
            "corpus": CORPUS_NOTE, "train_fortunes": len(train), "dev_fortunes": len(dev),
            "vocabulary": f"WordPiece, {V} pieces: 5 specials, every character (plain and ##), the most frequent "
                          "words, the most frequent word endings as ## pieces",
            "unk_rate": round(unk, 5),
            "data": f"each fortune as [CLS] pieces [SEP] (longer than {r['ctx'] - 2} pieces: cut into several); "
                    f"batches of similar length, <= {r['batch_tokens']} tokens with padding, reshuffled every "
                    f"epoch; {r['train_mask_p']:.0%} of real pieces are targets, 80 % [MASK] / 10 % random piece / "
                    "10 % unchanged, drawn anew every step",
            "sequences_per_epoch": len(seqs), "tokens_per_epoch": n_tokens,
            "epochs": data.epoch, "steps": r["steps"],
            "optimizer": f"AdamW betas (0.9, 0.95), peak lr {r['lr']}, linear warmup {r['warmup']} steps, cosine "
                         f"to {r['final_lr']} x peak, weight decay {r['wd']} on matrices, grad clip 1.0, no dropout",
            "seed": r["seed"], "cpu_seconds": round(cpu), "wall_seconds": round(wall), **cpu_note(),
            "curve": curve,
        },
        "config": {k: r[k] for k in ("vocab", "d", "layers", "heads", "ff", "ctx")},
        "parameters": sum(p.numel() for p in {id(p): p for p in model.parameters()}.values()),
        "file_bytes": size,
        "fill_mask_examples": examples,
        "tokenizer_check": [{"text": t, "ids": vocab.encode(t)["ids"]} for t in test[::97][:8] + [e["text"] for e in examples]],
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    fmt.write_json(os.path.join(folder, "heads.json"), heads, sort_keys=False)
    print(json.dumps(metrics["test"]), json.dumps(metrics["attention_heads"]), flush=True)


def reference(folder):
    """`reference FOLDER`: stdin JSON [ids, ...] -> stdout JSON, per id list the shipped model's
    float32 PyTorch outputs (scripts/reference/hf_reference.py on the F16 weights): last_hidden_state [n * d],
    attentions [layer][head][n * n] and, at every [MASK] id (BERT), the top 5 {id, score}
    softmax probabilities. scripts/training/check_model_tokenizers.mjs compares the engine with these."""
    model = reload_f16(folder)
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    mask_id = corpus.BertVocab.MASK if cfg["model_type"] == "bert" else None
    out = []
    with torch.no_grad():
        for ids in json.load(sys.stdin):
            x = torch.tensor([ids])
            r = model(x)
            hidden = r["last_hidden_state"]
            item = {"last_hidden_state": hidden[0].reshape(-1).tolist(),
                    "attentions": [[h.reshape(-1).tolist() for h in a[0]] for a in r["attentions"]]}
            if mask_id is not None:
                probs = F.softmax(r["logits"][0], dim=-1)
                item["masks"] = [[{"id": int(i), "score": float(p)} for p, i in zip(*probs[k].topk(5))]
                                 for k, t in enumerate(ids) if t == mask_id]
            out.append(item)
    json.dump(out, sys.stdout)


def heldout(folder, n_prompts=16, prompt_tokens=8, new_tokens=24):
    """`heldout FOLDER`: heldout.json next to the GPT-2 model, greedy continuations of prompts cut
    from held-out test fortunes (every 32nd with >= 32 tokens: its first prompt_tokens tokens),
    by the shipped F16 weights in float32 PyTorch. The ids are the truth (a prompt's text
    re-tokenized may split differently at the cut); for comparing engines and weight formats
    (f32 vs int8: same greedy tokens?)."""
    with open(os.path.join(folder, "tokenizer.json")) as f:
        tok = json.load(f)["model"]
    vocab = [t for t, _ in sorted(tok["vocab"].items(), key=lambda kv: kv[1])]
    v = corpus.Gpt2Vocab(vocab, [tuple(m) for m in tok["merges"]])  # <|endoftext|> is the last id
    model = reload_f16(folder)
    ctx = model.config.n_positions
    _, _, test = corpus.load_fortunes()
    long = [ids for ids in (v.encode(t) for t in test) if len(ids) >= 32]
    items = []
    for ids in long[::32][:n_prompts]:
        prompt = ids[:prompt_tokens]
        out = generate(model, prompt, new_tokens, ctx, v.eot)
        items.append({"prompt_ids": prompt, "prompt": v.decode(prompt), "greedy_ids": out[len(prompt):],
                      "greedy": v.decode(out[len(prompt):]), "stopped_at_eos": len(out) - len(prompt) < new_tokens})
    fmt.write_json(os.path.join(folder, "heldout.json"), {
        "model": "fortune-gpt2",
        "method": f"prompts: the first {prompt_tokens} tokens of every 32nd held-out test fortune with >= 32 tokens "
                  f"(no <|endoftext|> before them); greedy decoding of up to {new_tokens} new tokens, stop at "
                  "<|endoftext|> (not included); float32 PyTorch (scripts/reference/hf_reference.py) on the F16 weights as shipped",
        "items": items}, sort_keys=False)
    for it in items:
        print(json.dumps(it["prompt"]), "->", json.dumps(it["greedy"]))


def main():
    torch.set_num_threads(int(os.environ.get("SF_TRAIN_THREADS", "2")))
    args = sys.argv[1:]
    if args[:1] == ["reference"]:
        return reference(args[1])
    if args[:1] == ["heldout"]:
        return heldout(args[1])
    opt = {k: args[args.index(k) + 1] for k in ("--steps", "--out") if k in args}
    which = [a for a in args if a in ("gpt2", "bert")] or ["gpt2", "bert"]
    out = opt.get("--out", OUT)
    train, dev, test = corpus.load_fortunes()
    print(f"corpus: {len(train)} training, {len(dev)} dev and {len(test)} test fortunes", flush=True)
    for name, recipe, fn in (("gpt2", GPT2, train_gpt2), ("bert", BERT, train_bert)):
        if name in which:
            r = dict(recipe, steps=int(opt.get("--steps", recipe["steps"])))
            torch.manual_seed(r["seed"])
            fn(train, dev, test, r, out)


if __name__ == "__main__":
    main()
