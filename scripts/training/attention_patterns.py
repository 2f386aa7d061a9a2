"""Measures which attention heads do what (heads.json next to each demo text model).

Every score is a mean attention weight, per layer and head, over query positions of held-out
inputs that were never trained on:

  previous_token   weight on position i - 1 (queries i >= 1)
  next_token       weight on position i + 1 (bidirectional models only)
  induction        on a sequence repeated twice (span length L), for queries in the second copy:
                   weight on the token right after the earlier occurrence of the current token,
                   i - L + 1 (the "look back at what followed last time" head of Olsson et al.)
  duplicate_token  same queries: weight on the earlier occurrence itself, i - L
  cls / sep        (BERT) weight on the [CLS] (first) and the final [SEP] position

The models are hf_reference modules returning {"attentions": [B, h, n, n] per layer}.
"""
import torch
import torch.nn.functional as F

PREV, IND, NEXT, SINK = 0.4, 0.3, 0.4, 0.4  # label thresholds, stated in heads.json


def _mean(w, q, k, valid=None):
    """w: [B, h, n, n]; q, k: [B, m] query / key positions -> [h] mean weight (over valid)."""
    b = torch.arange(w.shape[0])[:, None].expand_as(q)
    vals = w[b, :, q, k]  # [B, m, h]
    if valid is None:
        return vals.mean(dim=(0, 1))
    valid = valid.to(vals.dtype)[..., None]
    return (vals * valid).sum(dim=(0, 1)) / valid.sum()


def _grid(per_layer):
    """[n_layers][h] floats -> nested lists rounded for the JSON file."""
    return [[round(float(x), 4) for x in layer] for layer in per_layer]


def previous_next(model, ids, attention_mask=None, causal=True):
    """Per layer [h] scores of previous (and, non-causal, next) token attention over real tokens."""
    with torch.no_grad():
        att = model(ids, attention_mask=attention_mask)["attentions"]
    n = ids.shape[1]
    lens = attention_mask.sum(1) if attention_mask is not None else torch.full((ids.shape[0],), n)
    q = torch.arange(1, n)[None].expand(ids.shape[0], n - 1)
    valid_prev = q < lens[:, None]
    qn = torch.arange(0, n - 1)[None].expand(ids.shape[0], n - 1)
    valid_next = qn + 1 < lens[:, None]
    prev = [_mean(a, q, q - 1, valid_prev) for a in att]
    nxt = None if causal else [_mean(a, qn, qn + 1, valid_next) for a in att]
    return att, prev, nxt


def repeated(model, ids, span):
    """ids [B, p + 2 span]: the last 2 span tokens are one span written twice (p tokens before it).
    Returns per layer [h] induction and duplicate scores, and the mean next-token loss (nats) on
    the first and on the second copy (how much the repeat helps the model)."""
    with torch.no_grad():
        out = model(ids)
    n = ids.shape[1]
    first = n - 2 * span
    q = torch.arange(n - span, n)[None].expand(ids.shape[0], span)
    ind = [_mean(a, q, q - span + 1) for a in out["attentions"]]
    dup = [_mean(a, q, q - span) for a in out["attentions"]]
    logits = out.get("logits")
    loss = None
    if logits is not None:  # predictions of copy tokens 2..span (the first token of a copy is unguessable)
        nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")  # [B, n - 1]
        loss = {"first_copy": round(float(nll[:, first:first + span - 1].mean()), 4),
                "second_copy": round(float(nll[:, n - span:n - 1].mean()), 4)}
    return ind, dup, loss


def _label(rows, key, thr):
    return [[li, h] for li, layer in enumerate(rows[key]) for h, x in enumerate(layer) if x >= thr]


def gpt2_report(model, vocab, test_texts, seed, span=32, n=64, name="fortune-gpt2",
                weights="scripts/reference/hf_reference.py", n_kv_heads=None):
    """heads.json for a causal LM (GPT-2 or Llama-architecture; n_kv_heads for grouped-query attention): previous-token on held-out text; induction / duplicate on (a)
    random token spans repeated twice, (b) spans of held-out fortunes repeated twice."""
    g = torch.Generator().manual_seed(seed)
    texts = [vocab.encode(t) for t in test_texts]
    # (0) held-out fortunes as they are, the first 64 tokens of the first n with >= 64 tokens
    plain = torch.tensor([t[:64] for t in texts if len(t) >= 64][:n])
    _, prev_text, _ = previous_next(model, plain)
    # (a) random tokens (the learned merges, never bytes-only symbols or <|endoftext|>)
    rand = torch.randint(256, vocab.eot, (n, span), generator=g)
    rand_ids = torch.cat([rand, rand], dim=1)
    _, prev_rand, _ = previous_next(model, rand_ids)
    ind_rand, dup_rand, loss_rand = repeated(model, rand_ids, span)
    # (b) held-out text: a span of `span` tokens from each long-enough test fortune, twice
    spans = torch.tensor([t[:span] for t in texts if len(t) >= span][n:2 * n])
    text_ids = torch.cat([spans, spans], dim=1)
    ind_text, dup_text, loss_text = repeated(model, text_ids, span)
    scores = {
        "previous_token_text": _grid(prev_text), "previous_token_random": _grid(prev_rand),
        "induction_random": _grid(ind_rand), "induction_text": _grid(ind_text),
        "duplicate_token_random": _grid(dup_rand), "duplicate_token_text": _grid(dup_text),
    }
    # Induction is labelled on random tokens repeated twice (Olsson et al.'s test: nothing but the
    # earlier copy predicts the token); the text-repeat score is reported next to it.
    labels = {
        "previous_token": _label(scores, "previous_token_text", PREV),
        "induction": _label(scores, "induction_random", IND),
    }
    report = {
        "model": name,
        "method": {
            "inputs": {
                "text": f"first 64 tokens of {len(plain)} held-out test fortunes (no <|endoftext|> before them)",
                "random": f"{n} sequences: {span} random token ids in {256}..{vocab.eot - 1} (merged pieces), "
                          f"written twice (length {2 * span}), torch seed {seed}",
                "repeated_text": f"{len(spans)} held-out test fortunes: their first {span} tokens written twice",
            },
            "scores": "mean attention weight over the query positions: previous_token -> i-1 (all i >= 1); "
                      "induction -> i-L+1 and duplicate_token -> i-L for queries in the second copy (L = span)",
            "labels": f"previous_token: previous_token_text >= {PREV}; induction: induction_random >= {IND}",
            "weights": f"F16 as shipped, computed in float32 by {weights}",
        },
        "thresholds": {"previous_token": PREV, "induction": IND},
        "label_scores": {"previous_token": "previous_token_text", "induction": "induction_random"},
        "labels": labels,
        "copy_loss_nats": {"random": loss_rand, "repeated_text": loss_text},
        "scores": scores,
    }
    if n_kv_heads:  # query head h reads key/value head h // (n_heads / n_kv_heads)
        n_heads = len(scores["previous_token_text"][0])
        report["n_kv_heads"] = n_kv_heads
        report["kv_head_of_query_head"] = [h // (n_heads // n_kv_heads) for h in range(n_heads)]
    report["examples"] = examples(model, vocab, test_texts, labels, span)
    return report


MAX_TOKENS = 64  # the scores above are measured on at most 64 tokens, the bundled decoders' context


def examples(model, vocab, test_texts, labels, span):
    """A sentence per labelled head that shows it: for previous-token heads a held-out fortune,
    for induction heads a held-out fortune's first span/2 tokens written twice; with the head's
    mean score on that very sentence (the page runs it and selects the head)."""
    out = []
    texts = [t for t in test_texts if 24 <= len(vocab.encode(t)) and len(t) <= 160]
    for kind in ("previous_token", "induction"):
        for layer, head in labels[kind]:
            best = None
            for t in texts[:40]:
                ids = vocab.encode(t)
                if kind == "induction":
                    half = ids[:span // 2]
                    text = vocab.decode(half) + vocab.decode(half)
                else:
                    text = t
                x = torch.tensor([vocab.encode(text)])
                if x.shape[1] > MAX_TOKENS:  # past the bundled decoders' 64 positions
                    continue
                with torch.no_grad():
                    a = model(x)["attentions"][layer][0, head]  # [n, n]
                n = x.shape[1]
                if kind == "induction":
                    L = len(vocab.encode(vocab.decode(half)))
                    if 2 * L != n:  # the two copies must tokenize alike
                        continue
                    q = torch.arange(n - L, n)
                    s = float(a[q, q - L + 1].mean())
                else:
                    q = torch.arange(1, n)
                    s = float(a[q, q - 1].mean())
                if best is None or s > best["score"]:
                    best = {"layer": layer, "head": head, "pattern": kind, "text": text, "score": round(s, 4)}
            if best:
                out.append(best)
    return out


def bert_report(model, vocab, test_texts, seed, span=24, n=64):
    """heads.json for a BERT MLM: previous / next / [CLS] / [SEP] attention on held-out fortunes
    ([CLS] text [SEP], padded batch with attention_mask), and induction-style scores on random
    repeated word pieces (bidirectional, so both copies can see each other)."""
    g = torch.Generator().manual_seed(seed)
    seqs = [vocab.encode(t)["ids"] for t in test_texts]
    seqs = [s for s in seqs if 12 <= len(s) <= 64][:n]
    width = max(len(s) for s in seqs)
    ids = torch.zeros(len(seqs), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = 1
    att, prev, nxt = previous_next(model, ids, mask, causal=False)
    lens = mask.sum(1)
    rows = torch.arange(width)[None].expand(len(seqs), width)
    real = rows < lens[:, None]  # [B, n] query positions that are real tokens
    cls = [_mean(a, rows, torch.zeros_like(rows), real) for a in att]
    sep = [_mean(a, rows, (lens - 1)[:, None].expand_as(rows), real) for a in att]
    rand = torch.randint(first_word_id(vocab), len(vocab.vocab), (n, span), generator=g)
    cls_col = torch.full((n, 1), vocab.CLS)
    sep_col = torch.full((n, 1), vocab.SEP)
    rep = torch.cat([cls_col, rand, rand, sep_col], dim=1)
    with torch.no_grad():
        ratt = model(rep)["attentions"]
    q = torch.arange(1 + span, 1 + 2 * span)[None].expand(n, span)
    ind = [_mean(a, q, q - span + 1) for a in ratt]
    dup = [_mean(a, q, q - span) for a in ratt]
    scores = {"previous_token": _grid(prev), "next_token": _grid(nxt), "cls": _grid(cls), "sep": _grid(sep),
              "induction_random": _grid(ind), "duplicate_token_random": _grid(dup)}
    labels = {"previous_token": _label(scores, "previous_token", PREV),
              "next_token": _label(scores, "next_token", NEXT),
              "cls": _label(scores, "cls", SINK), "sep": _label(scores, "sep", SINK)}
    return {
        "model": "fortune-bert",
        "method": {
            "inputs": {
                "text": f"{len(seqs)} held-out test fortunes of 12-64 word pieces as [CLS] text [SEP], padded, "
                        "attention_mask 1 on real tokens; means over real query tokens",
                "random": f"{n} sequences [CLS] + {span} random word-piece ids written twice + [SEP], torch seed {seed}",
            },
            "scores": "mean attention weight: previous_token -> i-1, next_token -> i+1, cls -> position 0, "
                      "sep -> the final [SEP]; induction -> i-L+1 and duplicate_token -> i-L for queries in the "
                      "second copy (L = span)",
            "labels": f"previous_token >= {PREV}, next_token >= {NEXT}, cls >= {SINK}, sep >= {SINK}",
            "weights": "F16 as shipped, computed in float32 by scripts/reference/hf_reference.py",
        },
        "labels": labels,
        "scores": scores,
    }


def first_word_id(vocab):
    """First id after the special tokens and the single characters (word pieces proper)."""
    return next(i for i, t in enumerate(vocab.vocab) if i >= vocab.N_SPECIAL and len(t.lstrip("#")) > 1)


def table(report):
    """Markdown table of a decoder's heads.json: one row per layer.head."""
    s = report["scores"]
    keys = ["previous_token_text", "previous_token_random", "induction_random", "induction_text",
            "duplicate_token_random", "duplicate_token_text"]
    kv = report.get("kv_head_of_query_head")
    head = "| head |" + (" kv head |" if kv else "") + "".join(f" {k} |" for k in keys)
    rows = [head, "|" + " --- |" * (len(keys) + 1 + bool(kv))]
    for li, layer in enumerate(s["previous_token_text"]):
        for h in range(len(layer)):
            rows.append(f"| {li}.{h} |" + (f" {kv[h]} |" if kv else "") + "".join(f" {s[k][li][h]:.2f} |" for k in keys))
    return "\n".join(rows)


def measure(folder):
    """`attention_patterns.py FOLDER`: measures a bundled decoder folder (GPT-2 or Llama) on the
    held-out test fortunes, writes FOLDER/heads.json and prints the table and the labels."""
    import json
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "reference"))
    import fortune_corpus as corpus
    import hf_format as fmt
    import hf_llama as llama
    import hf_reference as ref
    import train_induction_models as tim
    torch.set_num_threads(1)
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    is_llama = cfg["model_type"] in llama.DEFAULTS
    model = tim.reload(folder, llama.build_model if is_llama else ref.build_model)
    v = tim.load_vocab(folder)
    _, _, test = corpus.load_fortunes()
    seed = tim.LLAMA["seed"] if is_llama else tim.GPT2["seed"]
    name = os.path.basename(os.path.normpath(folder))
    rep = gpt2_report(model, v, test, seed=seed + 2, name=name,
                      weights="scripts/reference/hf_llama.py" if is_llama else "scripts/reference/hf_reference.py",
                      n_kv_heads=cfg.get("num_key_value_heads"))
    fmt.write_json(os.path.join(folder, "heads.json"), rep, sort_keys=False)
    print(table(rep))
    print("labels:", json.dumps(rep["labels"]))
    for e in rep["examples"]:
        print(f"L{e['layer']} H{e['head']} {e['pattern']} {e['score']:.2f}: {e['text']!r}")


if __name__ == "__main__":
    import sys
    measure(sys.argv[1])
