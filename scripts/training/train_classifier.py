#!/usr/bin/python3
"""Trains the demo page's text classifier and saves it as a Hugging Face folder in web/models/:

  fortune-topics/  BertForSequenceClassification: which of four Debian fortune files (computers,
                   politics, science, work) a fortune comes from. The encoder starts as the
                   bundled fortune-bert (the masked LM of train_text_models.py, same WordPiece
                   vocabulary), the pooler and classifier from N(0, 0.02); then every weight is
                   fine-tuned on the topic labels -- the usual BERT recipe (pre-train on text,
                   fine-tune on labels), small enough for a CPU in a few minutes.

    bash scripts/setup.sh train
    nice -n 10 /usr/bin/python3 scripts/training/train_classifier.py [--steps N] [--out DIR]

Labels come from the data: the file a fortune is in (a fortune in two of the four files is left
out). The split is the corpus's own (by CRC32 of the text, 1 in 20 test, 1 in 20 dev), so no test
fortune was seen by fortune-bert's pre-training either. Fixed seeds and steps, one thread
(SF_TRAIN_THREADS): same machine + same thread count -> same weights. Next to the model,
metrics.json: test accuracy (per label too) against the majority-label baseline, on the F16
weights reloaded from the saved folder; the data, recipe, CPU seconds, the dev curve, and
examples with their probabilities (tests/js compares simdformer's with them).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see train_text_models.py

import json  # noqa: E402
import sys  # noqa: E402
import zlib  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import fortune_corpus as corpus  # noqa: E402
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402
import train_text_models as ttm  # noqa: E402

LABELS = ["computers", "politics", "science", "work"]
RECIPE = dict(steps=600, lr=3e-4, warmup=60, final_lr=0.1, wd=0.01, batch=32, ctx=128, seed=20260)
EXAMPLES = [
    "The program crashed because the compiler ran out of memory on the old disk.",
    "The senator promised lower taxes and the voters elected him again.",
    "The physicist measured the speed of light with a laser and a mirror.",
    "My boss called a meeting about the meeting we had on Monday.",
]


def topic_fortunes():
    """(train, dev, test): (text, label id) for every fortune of one of the four files, split as
    fortune_corpus.load_fortunes splits the corpus."""
    seen = {}
    for label, name in enumerate(LABELS):
        with open(os.path.join(corpus.FORTUNES, name), encoding="latin-1") as f:
            for entry in f.read().split("\n%\n"):
                t = corpus.clean(entry)
                if len(t) >= corpus.MIN_CHARS and all(32 <= ord(c) < 127 for c in t):
                    seen.setdefault(t, set()).add(label)
    split = {0: [], 1: [], 2: []}
    for t in sorted(seen):
        if len(seen[t]) == 1:
            r = zlib.crc32(t.encode()) % 20
            split[r if r < 2 else 2].append((t, next(iter(seen[t]))))
    return split[2], split[1], split[0]


def encode(vocab, text, ctx):
    """[CLS] pieces [SEP], cut to ctx tokens as the tokenizer's truncation does."""
    return [vocab.CLS] + vocab.pieces(text)[:ctx - 2] + [vocab.SEP]


def accuracy(model, seqs, labels):
    """(correct, per-label [correct, total]) of the argmax over batches of 64."""
    correct, per = 0, [[0, 0] for _ in LABELS]
    with torch.no_grad():
        for k in range(0, len(seqs), 64):
            ids, mask = ttm.pad(seqs[k:k + 64])
            pred = model(ids, attention_mask=mask)["classifier_logits"].argmax(dim=-1).tolist()
            for p, y in zip(pred, labels[k:k + 64]):
                correct += p == y
                per[y][0] += p == y
                per[y][1] += 1
    return correct, per


def main():
    torch.set_num_threads(int(os.environ.get("SF_TRAIN_THREADS", "1")))
    args = sys.argv[1:]
    opt = {k: args[args.index(k) + 1] for k in ("--steps", "--out") if k in args}
    r = dict(RECIPE, steps=int(opt.get("--steps", RECIPE["steps"])))
    out = opt.get("--out", ttm.OUT)
    torch.manual_seed(r["seed"])

    # The encoder and vocabulary of the bundled fortune-bert (its vocabulary rebuilt from the same
    # training fortunes must be the one it ships).
    bert_folder = os.path.join(ttm.OUT, "fortune-bert")
    corpus_train, _, _ = corpus.load_fortunes()
    vocab = corpus.BertVocab.train(corpus_train, ttm.BERT["vocab"])
    with open(os.path.join(bert_folder, "vocab.txt"), encoding="utf-8") as f:
        assert f.read().split("\n")[:len(vocab.vocab)] == vocab.vocab, "fortune-bert's vocab.txt is not the rebuilt vocabulary"
    mlm = ttm.reload_f16(bert_folder)

    train, dev, test = topic_fortunes()
    counts = [sum(1 for _, y in train if y == k) for k in range(len(LABELS))]
    print(f"topics: {len(train)} training, {len(dev)} dev and {len(test)} test fortunes; per label {dict(zip(LABELS, counts))}", flush=True)

    with open(os.path.join(bert_folder, "config.json")) as f:
        base = json.load(f)
    cfg = dict(base, architectures=["BertForSequenceClassification"],
               id2label={str(i): n for i, n in enumerate(LABELS)}, label2id={n: i for i, n in enumerate(LABELS)},
               problem_type="single_label_classification")
    model = ref.build_model(cfg)
    g = torch.Generator().manual_seed(r["seed"])
    with torch.no_grad():
        own = model.state_dict()
        for k, v in mlm.state_dict().items():
            if k.startswith("bert.") and k in own:
                own[k].copy_(v)
        for name in ("bert.pooler.dense.weight", "classifier.weight"):
            own[name].copy_(0.02 * torch.randn(own[name].shape, generator=g))
        for name in ("bert.pooler.dense.bias", "classifier.bias"):
            own[name].zero_()

    seqs = [encode(vocab, t, r["ctx"]) for t, _ in train]
    ys = torch.tensor([y for _, y in train])
    dev_seqs, dev_ys = [encode(vocab, t, r["ctx"]) for t, _ in dev], [y for _, y in dev]
    order = []

    def batch_loss(step):
        nonlocal order
        if len(order) < r["batch"]:
            order += torch.randperm(len(seqs), generator=g).tolist()
        take, order = order[:r["batch"]], order[r["batch"]:]
        ids, mask = ttm.pad([seqs[i] for i in take])
        return F.cross_entropy(model(ids, attention_mask=mask)["classifier_logits"], ys[take])

    def probe():
        c, _ = accuracy(model, dev_seqs, dev_ys)
        return {"dev_accuracy": round(c / len(dev_seqs), 4)}

    curve, cpu, wall = ttm.train_loop(model, r, batch_loss, probe, "topics")
    folder = os.path.join(out, "fortune-topics")
    size = ttm.save_folder(folder, cfg, model, vocab.tokenizer_json(), "bert", r["ctx"])

    shipped = ttm.reload_f16(folder)
    test_seqs, test_ys = [encode(vocab, t, r["ctx"]) for t, _ in test], [y for _, y in test]
    correct, per = accuracy(shipped, test_seqs, test_ys)
    majority = max(range(len(LABELS)), key=lambda k: counts[k])
    examples = []
    with torch.no_grad():
        for text in EXAMPLES + [t for t, _ in test[::41][:4]]:
            ids = vocab.encode(text)["ids"]
            logits = shipped(torch.tensor([ids]))["classifier_logits"][0]
            probs = F.softmax(logits, dim=-1)
            examples.append({"text": text, "ids": ids, "logits": [round(float(x), 6) for x in logits],
                             "probabilities": {LABELS[k]: round(float(p), 6) for k, p in enumerate(probs)}})
    metrics = {
        "model": "fortune-topics", "architecture": "BertForSequenceClassification", "labels": LABELS,
        "test": {"fortunes": len(test), "accuracy": round(correct / len(test), 4),
                 "per_label": {LABELS[k]: {"accuracy": round(c / n, 4), "fortunes": n} for k, (c, n) in enumerate(per)},
                 "baseline_majority_label": {"label": LABELS[majority],
                                             "accuracy": round(sum(1 for y in test_ys if y == majority) / len(test), 4)},
                 "weights": "F16 as shipped (reloaded from model.safetensors)"},
        "training": {
            "data": f"the fortunes of Debian's fortune files {', '.join(LABELS)} (ASCII, >= {corpus.MIN_CHARS} "
                    "characters, whitespace collapsed; a fortune in two of them left out), labelled by file; "
                    "split by CRC32 of the text as fortune-bert's corpus (1 in 20 test, 1 in 20 dev)",
            "train_fortunes": len(train), "dev_fortunes": len(dev), "train_per_label": dict(zip(LABELS, counts)),
            "start": "encoder and embeddings of web/models/fortune-bert (F16 as shipped); pooler and classifier N(0, 0.02)",
            "batches": f"{r['batch']} fortunes, [CLS] pieces [SEP] cut to {r['ctx']} tokens, a fresh random order every epoch",
            "optimizer": f"AdamW betas (0.9, 0.95), peak lr {r['lr']}, linear warmup {r['warmup']} steps, cosine to "
                         f"{r['final_lr']} x peak, weight decay {r['wd']} on matrices, grad clip 1.0, no dropout",
            "steps": r["steps"], "seed": r["seed"], "cpu_seconds": round(cpu), "wall_seconds": round(wall), **ttm.cpu_note(),
            "curve": curve,
        },
        "parameters": sum(p.numel() for p in model.parameters()),
        "file_bytes": size,
        "examples": examples,
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    print(json.dumps(metrics["test"]), flush=True)


if __name__ == "__main__":
    main()
