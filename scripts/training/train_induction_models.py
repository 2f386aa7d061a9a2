#!/usr/bin/python3
"""Trains the demo page's two small decoders so that their heads do something you can see:
previous-token heads and induction heads (Olsson et al. 2022, "In-context learning and induction
heads": two layers or more, and text with repeated spans from the first step on).

  fortune-gpt2/   GPT2LMHeadModel, 2 layers x 64 (4 heads), context 64
  fortune-llama/  LlamaForCausalLM, 2 layers x 64, 4 query heads over 2 key/value heads
                  (grouped-query attention), RMSNorm, rotary positions, SwiGLU, tied embeddings

Both reuse the fortune models' byte-level BPE tokenizer (2048 ids, read from the tokenizer.json
already in the output folder, or in web/models/fortune-gpt2/) and train on Debian's fortunes
(scripts/training/fortune_corpus.py) mixed with repeat rows from step 0 (train_text_models.Gpt2Batches:
random merged-piece spans written over and over, and text windows with one span inserted twice).

    /usr/bin/python3 scripts/training/train_induction_models.py [gpt2|llama|all] [--steps N] [--out DIR]

One thread (torch.set_num_threads(1)), fixed seeds and step counts: same machine -> same weights.
Writes, next to each model, metrics.json (held-out perplexity, the recipe, the dev curve) and
heads.json (scripts/training/attention_patterns.py, measured on held-out fortunes and random
repeats, on the F16 weights as shipped).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import attention_patterns as pat  # noqa: E402
import fortune_corpus as corpus  # noqa: E402
import hf_format as fmt  # noqa: E402
import hf_llama as llama  # noqa: E402
import hf_reference as ref  # noqa: E402
import train_text_models as ttm  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "web", "models")

# Small on purpose: 8 rows of 64 tokens per step, 5 of them repeats, on one thread.
COMMON = dict(ctx=64, text_rows=4, repeat_rows=12, lr=3e-3, warmup=50, final_lr=0.1, wd=0.1,
              span=(4, 24), gap=(0, 8))
GPT2 = dict(COMMON, d=64, layers=2, heads=4, steps=10000, seed=34001)
LLAMA = dict(COMMON, d=64, layers=2, heads=4, kv_heads=2, ff=192, steps=2000, seed=34002)


def load_vocab(folder):
    with open(os.path.join(folder, "tokenizer.json")) as f:
        tok = json.load(f)["model"]
    vocab = [t for t, _ in sorted(tok["vocab"].items(), key=lambda kv: kv[1])]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in tok["merges"]]
    return corpus.Gpt2Vocab(vocab, merges)  # <|endoftext|> is the last id


def gpt2_config(r, v):
    return fmt.make_config("gpt2", "GPT2LMHeadModel", dtype=torch.float16, n_embd=r["d"], n_head=r["heads"],
                           n_layer=r["layers"], n_positions=r["ctx"], vocab_size=len(v.vocab),
                           bos_token_id=v.eot, eos_token_id=v.eot, attn_pdrop=0.0, embd_pdrop=0.0,
                           resid_pdrop=0.0)


def llama_config(r, v):
    return llama.make_config("llama", "LlamaForCausalLM", "float16", hidden_size=r["d"],
                             num_attention_heads=r["heads"], num_key_value_heads=r["kv_heads"],
                             num_hidden_layers=r["layers"], intermediate_size=r["ff"],
                             max_position_embeddings=r["ctx"], vocab_size=len(v.vocab), bos_token_id=v.eot,
                             eos_token_id=v.eot, tie_word_embeddings=True, rms_norm_eps=1e-5)


def init_llama(model, seed):
    """N(0, 0.02) matrices, unit RMSNorm weights."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.fill_(1.0)
            else:
                p.copy_(0.02 * torch.randn(p.shape, generator=g))


def save(folder, cfg, model, state_dict, tokenizer_json, ctx):
    os.makedirs(folder, exist_ok=True)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    fmt.save_weights(folder, {k: v.detach().to(torch.float16) for k, v in state_dict(model).items()})
    fmt.write_tokenizer_files(folder, tokenizer_json, "gpt2", ctx)
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    assert size <= ttm.MAX_FILE_BYTES, f"model.safetensors is {size} bytes"
    return size


def reload(folder, build):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    model = build(cfg)
    tensors = fmt.read_safetensors(os.path.join(folder, "model.safetensors"))[0]
    own = model.state_dict()
    with torch.no_grad():
        for k, t in tensors.items():
            own[k].copy_(t.to(torch.float32))
    return model.eval()


def tokenizer_check(v, test, samples):
    """Texts with the ids the Python oracle gives (held-out fortunes and the sample prompts), as
    train_text_models.py writes them: check_model_tokenizers.mjs compares them with the npm tokenizer."""
    return [{"text": t, "ids": v.encode(t)} for t in test[::97][:8] + [s["prompt"] for s in samples]]


def train_one(kind, r, out, v, tokenizer_json, train, dev, test):
    name = f"fortune-{kind}"
    folder = os.path.join(out, name)
    if kind == "gpt2":
        cfg, build, state_dict = gpt2_config(r, v), ref.build_model, ref.hf_state_dict
        model = build(cfg)
        ttm.init_small(model, r["seed"])
        arch, weights = "GPT2LMHeadModel", "scripts/reference/hf_reference.py"
    else:
        cfg, build, state_dict = llama_config(r, v), llama.build_model, llama.hf_state_dict
        model = build(cfg)
        init_llama(model, r["seed"])
        arch, weights = "LlamaForCausalLM", "scripts/reference/hf_llama.py"
    docs = [v.encode(t) for t in train]
    data = ttm.Gpt2Batches(docs, v.eot, r)
    dev_docs = [v.encode(t) for t in dev[:100]]
    probe_text = [t for t in dev if len(v.encode(t)) >= 64]

    def batch_loss(step):
        x_text = data.text(r["text_rows"])
        x_rep, w_rep = data.repeat(r["repeat_rows"])
        x = torch.cat([x_text, x_rep])
        w = torch.cat([torch.ones(x_text.shape[0], x.shape[1] - 1), w_rep])
        return ttm.lm_loss(model, x, w)

    def probe():
        nll, count = ttm.lm_test_nll(model, dev_docs, v.eot, r["ctx"])
        s = pat.gpt2_report(model, v, probe_text, seed=r["seed"] + 5, n=16)["scores"]
        return {"dev_loss": round(nll / count, 4),
                "max_previous_token": max(max(x) for x in s["previous_token_text"]),
                "max_induction_random": max(max(x) for x in s["induction_random"]),
                "max_induction_text": max(max(x) for x in s["induction_text"])}

    curve, cpu, wall = ttm.train_loop(model, r, batch_loss, probe, kind)
    size = save(folder, cfg, model, state_dict, tokenizer_json, r["ctx"])
    shipped = reload(folder, build)
    nll, count = ttm.lm_test_nll(shipped, [v.encode(t) for t in test], v.eot, r["ctx"])
    heads = pat.gpt2_report(shipped, v, test, seed=r["seed"] + 2, name=name, weights=weights,
                            n_kv_heads=cfg.get("num_key_value_heads"))
    g = torch.Generator().manual_seed(r["seed"] + 3)
    samples = []
    for prompt in ("The meaning of life is", "Never trust a", "You will be"):
        ids = v.encode(prompt)
        samples.append({"prompt": prompt, "greedy": v.decode(ttm.generate(shipped, ids, 32, r["ctx"], v.eot)),
                        "top_k_40_t_0.8": v.decode(ttm.generate(shipped, ids, 32, r["ctx"], v.eot, top_k=40,
                                                                temperature=0.8, g=g))})
    metrics = {
        "model": name, "architecture": arch,
        "test": {"fortunes": len(test), "tokens": count, "perplexity": round(math.exp(nll / count), 3),
                 "cross_entropy_nats": round(nll / count, 4),
                 "scoring": "each fortune alone as <|endoftext|> text <|endoftext|> (train_text_models.lm_test_nll)",
                 "weights": "F16 as shipped (reloaded from model.safetensors)"},
        "attention_heads": {"previous_token": heads["labels"]["previous_token"],
                            "induction": heads["labels"]["induction"], "details": "heads.json"},
        "training": {"recipe": "scripts/training/train_induction_models.py", "corpus": ttm.CORPUS_NOTE,
                     "data_mix": f"{r['text_rows']} text rows + {r['repeat_rows']} repeat rows of {r['ctx']} "
                                 f"tokens per step from step 0; repeat spans L = {r['span'][0]}..{r['span'][1]}, "
                                 f"gap {r['gap'][0]}..{r['gap'][1]} (train_text_models.Gpt2Batches)",
                     "steps": r["steps"], "seed": r["seed"], "cpu_seconds": round(cpu),
                     "wall_seconds": round(wall), "threads": torch.get_num_threads(), "curve": curve},
        "config": {k: r[k] for k in ("d", "layers", "heads", "ctx") } | ({"kv_heads": r["kv_heads"], "ff": r["ff"]}
                                                                           if kind == "llama" else {}),
        "file_bytes": size, "samples": samples,
        "tokenizer_check": tokenizer_check(v, test, samples),
    }
    fmt.write_json(os.path.join(folder, "metrics.json"), metrics, sort_keys=False)
    fmt.write_json(os.path.join(folder, "heads.json"), heads, sort_keys=False)
    print(name, json.dumps(metrics["test"]), json.dumps(metrics["attention_heads"]), flush=True)


def main():
    torch.set_num_threads(1)
    args = sys.argv[1:]
    opt = {k: args[args.index(k) + 1] for k in ("--steps", "--out") if k in args}
    which = [a for a in args if a in ("gpt2", "llama")] or ["gpt2", "llama"]
    out = opt.get("--out", OUT)
    tok_src = os.path.join(out, "fortune-gpt2")
    if not os.path.exists(os.path.join(tok_src, "tokenizer.json")):
        tok_src = os.path.join(OUT, "fortune-gpt2")
    v = load_vocab(tok_src)
    with open(os.path.join(tok_src, "tokenizer.json")) as f:
        tokenizer_json = json.load(f)
    train, dev, test = corpus.load_fortunes()
    for kind, recipe in (("gpt2", GPT2), ("llama", LLAMA)):
        if kind in which:
            r = dict(recipe, steps=int(opt.get("--steps", recipe["steps"])))
            torch.manual_seed(r["seed"])
            train_one(kind, r, out, v, tokenizer_json, train, dev, test)


if __name__ == "__main__":
    main()
