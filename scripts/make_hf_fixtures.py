#!/usr/bin/python3
"""Writes tests/data/hf/: tiny random-initialised Hugging Face model folders and their goldens.

    scripts/setup.sh goldens && /usr/bin/python3 scripts/make_hf_fixtures.py

Each case folder holds what save_pretrained writes (config.json, model.safetensors or shards,
tokenizer.json and side files), plus:
  golden.safetensors  inputs and the expected outputs of scripts/hf_reference.py (float32)
  texts.json          the texts behind the inputs and the token ids an independent Python
                      oracle (scripts/hf_tokenizers.py) expects for them
tests/data/hf/README.md documents the layout. Everything is deterministic (fixed seeds); running
the script twice gives identical bytes.
"""
import json
import os
import shutil
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_format as fmt  # noqa: E402
import hf_reference as ref  # noqa: E402
import hf_tokenizers as tk  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "data", "hf")
SIZE_LIMIT = 1 << 20  # committed fixtures stay below 1 MB per folder

# Shared tiny shapes: d = 32 with 4 heads of 8, 2 layers, an FFN width that is not a multiple of
# the SIMD tile (48), short position tables.
D, HEADS, LAYERS, FF, MAXPOS = 32, 4, 2, 48, 40
BERT_SHAPE = dict(hidden_size=D, num_attention_heads=HEADS, num_hidden_layers=LAYERS, intermediate_size=FF,
                  max_position_embeddings=MAXPOS)

# Texts the tokenizer expectations cover: ordinary sentences, pieces, unknown characters, accents,
# CJK, contractions, digits, repeated spaces and newlines.
TOKENIZER_TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello, world!",
    "Transformers are walking quickly, aren't they?",
    "Café prices:  5€ today!\n\nNew line",
    "It's 2024 and we're testing   spaces ",
    "naïve résumé über 東京",
    "",
]
TOKENIZER_PAIRS = [["How old are you?", "I am six years old."], ["The cat sat.", "Where?"]]
TRUNCATE = {"text": "The quick brown fox jumps over the lazy dog and runs far away.", "max_length": 10}


# ---------------------------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------------------------
def init_weights(model, seed):
    """Random weights large enough that attention is far from uniform and every op matters:
    LayerNorm gains 1 + 0.2 N, biases 0.1 N, embeddings 0.5 N, projections N / sqrt(fan_in)
    (query/key x 1.6, so the softmax is peaked). named_parameters() lists each tied tensor once."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mod_name, mod in model.named_modules():
            for p_name, p in mod.named_parameters(recurse=False):
                full = f"{mod_name}.{p_name}"
                if isinstance(mod, nn.LayerNorm):
                    base = 1.0 if p_name == "weight" else 0.0
                    p.copy_(base + (0.2 if p_name == "weight" else 0.1) * torch.randn(p.shape, generator=g))
                elif p.dim() == 1:
                    p.copy_(0.1 * torch.randn(p.shape, generator=g))
                elif isinstance(mod, nn.Embedding):
                    p.copy_(0.5 * torch.randn(p.shape, generator=g))
                else:
                    fan_in = p.shape[0] if isinstance(mod, ref.Conv1D) else p.shape[1]
                    gain = 1.6 if any(s in full for s in (".query.", ".key.", "q_lin", "k_lin", "c_attn")) else 1.0
                    p.copy_(gain * torch.randn(p.shape, generator=g) / fan_in ** 0.5)


def round_params(model, dtype):
    """Rounds the weights to the stored dtype and back, so the float32 reference uses exactly the
    values in the file."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(dtype).to(torch.float32))


def stored_tensors(model, dtype, extra=None):
    """HF's saved tensors in the file dtype; integer buffers keep their dtype."""
    sd = ref.hf_state_dict(model)
    if extra:
        sd.update(extra)
    return {k: (v.to(dtype) if v.is_floating_point() and k not in (extra or {}) else v) for k, v in sd.items()}


# ---------------------------------------------------------------------------------------------
# Tokenizers (one per family, shared by the cases that use it)
# ---------------------------------------------------------------------------------------------
class Tok:
    """A tokenizer.json + its oracle + how to encode a batch for the model."""

    def __init__(self, kind):
        self.kind = kind
        if kind == "wordpiece":
            vocab = tk.wordpiece_vocab()
            self.json, self.oracle, self.n = tk.wordpiece_tokenizer_json(vocab), tk.WordPieceOracle(vocab), len(vocab)
            self.pad, self.mask, self.files = 0, "[MASK]", "bert"
        elif kind == "unigram":
            vocab = tk.unigram_vocab()
            self.json, self.oracle, self.n = tk.unigram_tokenizer_json(vocab), tk.UnigramOracle(vocab), len(vocab)
            self.pad, self.mask, self.files = 0, "[MASK]", "bert_unigram"
        elif kind in ("gpt2", "roberta"):
            merges = tk.train_bpe(tk.bpe_training_counts(), 800)
            if kind == "gpt2":
                specials = ["<|endoftext|>"]
                vocab = tk.byte_bpe_vocab(merges, tail=specials)
                self.oracle = tk.ByteBPEOracle(vocab, merges, specials)
                self.pad, self.mask = vocab.index("<|endoftext|>"), None
            else:
                specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
                vocab = tk.byte_bpe_vocab(merges, head=specials[:4], tail=specials[4:])
                self.oracle = tk.ByteBPEOracle(vocab, merges, specials, lstrip=("<mask>",))
                self.pad, self.mask = 1, "<mask>"
            self.json, self.n, self.files = tk.byte_bpe_tokenizer_json(vocab, merges, kind), len(vocab), kind
        else:
            raise ValueError(kind)

    def token(self, i):
        vocab = self.json["model"]["vocab"]
        if isinstance(vocab, list):
            return vocab[i][0]
        return next(t for t, j in vocab.items() if j == i)

    def encode(self, text, pair=None, max_length=None):
        if self.kind == "gpt2":
            return self.oracle.encode(text, pair, max_length=max_length)
        if self.kind == "roberta":
            return self.oracle.encode(text, pair, bos="<s>", eos="</s>", max_length=max_length)
        return self.oracle.encode(text, pair, max_length=max_length)

    def expectations(self):
        """texts.json "tokenizer" section: what a correct tokenizer.json implementation returns."""
        def enc(*args, **kw):
            e = self.encode(*args, **kw)
            if self.kind in ("gpt2", "roberta"):  # these models take no token types
                e.pop("type_ids", None)
            return e

        single = [dict(text=t, **enc(t)) for t in TOKENIZER_TEXTS]
        # GPT-2 has no pair template (and @huggingface/tokenizers 0.2 drops the second text of a
        # pair under the ByteLevel post-processor), so it gets no pair expectations.
        pairs = [] if self.kind == "gpt2" else [dict(text=a, text_pair=b, **enc(a, b)) for a, b in TOKENIZER_PAIRS]
        trunc = dict(TRUNCATE, **enc(TRUNCATE["text"], max_length=TRUNCATE["max_length"]))
        return {"add_special_tokens": self.kind != "gpt2", "single": single, "pairs": pairs, "truncation": trunc}

    def batch(self, items):
        """Right-padded batch from texts or [a, b] pairs: input_ids, attention_mask, token_type_ids."""
        enc = [self.encode(*it) if isinstance(it, list) else self.encode(it) for it in items]
        n = max(len(e["ids"]) for e in enc)
        ids = torch.full((len(enc), n), self.pad, dtype=torch.long)
        mask = torch.zeros((len(enc), n), dtype=torch.long)
        types = torch.zeros((len(enc), n), dtype=torch.long)
        for b, e in enumerate(enc):
            k = len(e["ids"])
            ids[b, :k] = torch.tensor(e["ids"])
            mask[b, :k] = 1
            types[b, :k] = torch.tensor(e.get("type_ids", [0] * k))
        return ids, mask, types


# ---------------------------------------------------------------------------------------------
# Goldens
# ---------------------------------------------------------------------------------------------
def run_reference(model, ids, mask, types, use_types):
    """Runs the reference with gradients off and returns the golden tensors (float32)."""
    with torch.no_grad():
        out = model(ids, attention_mask=mask, token_type_ids=types if use_types else None)
    g = {"input_ids": ids, "attention_mask": mask, "last_hidden_state": out["last_hidden_state"]}
    if use_types:
        g["token_type_ids"] = types
    for i, h in enumerate(out["hidden_states"]):
        g[f"hidden_states.{i}"] = h
    for i, a in enumerate(out["attentions"]):
        g[f"attentions.{i}"] = a
    for k in ("pooler_output", "logits", "seq_relationship_logits"):
        if k in out:
            g[k] = out[k]
    return g, out


def position_ids_used(model, ids):
    if isinstance(model, ref.RobertaForMaskedLM):
        return ref.create_position_ids_from_input_ids(ids, model.config.pad_token_id)
    return torch.arange(ids.shape[1])[None, :].expand(ids.shape[0], -1).contiguous()


def greedy(model, prompt_ids, steps):
    """Greedy continuation by full recomputation: every step re-runs the whole sequence. Returns
    the new ids, the logits of each step [steps, V] and the smallest top-1 / top-2 margin."""
    seq = list(prompt_ids)
    new, logits, margin = [], [], float("inf")
    with torch.no_grad():
        for _ in range(steps):
            row = model(torch.tensor([seq]))["logits"][0, -1]
            top = torch.topk(row, 2)
            margin = min(margin, float(top.values[0] - top.values[1]))
            nxt = int(top.indices[0])
            new.append(nxt)
            logits.append(row)
            seq.append(nxt)
    return new, torch.stack(logits), margin


def cached_steps(model, prompt_ids, new_ids):
    """The same continuation with a KV cache (one token per step after the prompt); returns the
    step logits, to prove cached decoding equals full recomputation."""
    rows = []
    with torch.no_grad():
        out = model(torch.tensor([prompt_ids]))
        rows.append(out["logits"][0, -1])
        past = out["past_key_values"]
        for t in new_ids[:-1]:
            out = model(torch.tensor([[t]]), past_key_values=past)
            rows.append(out["logits"][0, -1])
            past = out["past_key_values"]
    return torch.stack(rows)


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------
def encoder_batch(tok, mlm):
    """Three rows of different lengths, right-padded; the third is a sentence pair."""
    first = f"The quick brown fox jumps over the lazy {tok.mask}." if mlm else "The quick brown fox jumps over the lazy dog."
    return [first, "Hello, world!", ["How old are you?", "I am six years old."]]


CASES = {
    # name: (model_type, architecture, config overrides, dtype, tokenizer, options)
    "bert": ("bert", "BertModel", {}, torch.float32, "wordpiece", {"sentence_transformers": True}),
    "bert_mlm_f16": ("bert", "BertForMaskedLM", {}, torch.float16, "wordpiece",
                     {"position_ids_buffer": True, "version": "4.30.2"}),
    "bert_pretraining_bf16": ("bert", "BertForPreTraining", {"hidden_act": "gelu_new", "layer_norm_eps": 1e-7},
                              torch.bfloat16, "wordpiece", {}),
    "bert_sharded": ("bert", "BertForMaskedLM", {}, torch.float32, "wordpiece", {"shards": 2}),
    "bert_relu_unigram": ("bert", "BertModel", {"hidden_act": "relu", "layer_norm_eps": 1e-6}, torch.float32,
                          "unigram", {}),
    "roberta": ("roberta", "RobertaForMaskedLM", {"layer_norm_eps": 1e-05, "max_position_embeddings": MAXPOS + 2,
                                                  "type_vocab_size": 1}, torch.float32, "roberta", {}),
    "distilbert": ("distilbert", "DistilBertForMaskedLM", {}, torch.float32, "wordpiece", {}),
    "gpt2": ("gpt2", "GPT2LMHeadModel", {}, torch.float32, "gpt2", {}),
    "gpt2_legacy": ("gpt2", "GPT2LMHeadModel", {}, torch.float32, "gpt2", {"legacy": True}),
}


def case_config(model_type, arch, overrides, dtype, vocab_size, opts):
    if model_type in ("bert", "roberta"):
        shape = dict(BERT_SHAPE, vocab_size=vocab_size)
    elif model_type == "distilbert":
        shape = dict(dim=D, n_heads=HEADS, n_layers=LAYERS, hidden_dim=FF, max_position_embeddings=MAXPOS,
                     vocab_size=vocab_size)
    else:
        shape = dict(n_embd=D, n_head=HEADS, n_layer=LAYERS, n_positions=MAXPOS, vocab_size=vocab_size,
                     bos_token_id=vocab_size - 1, eos_token_id=vocab_size - 1)
    cfg = fmt.make_config(model_type, arch, dtype, opts.get("version", fmt.TRANSFORMERS_VERSION),
                          **dict(shape, **overrides))
    if opts.get("legacy"):
        # The original GPT-2 config.json: n_ctx, task_specific_params, no torch_dtype / version,
        # none of the keys added to GPT2Config later.
        for k in ("torch_dtype", "transformers_version", "n_inner", "reorder_and_upcast_attn",
                  "scale_attn_by_inverse_layer_idx", "scale_attn_weights", "use_cache"):
            cfg.pop(k)
        cfg["n_ctx"] = MAXPOS
        cfg["task_specific_params"] = {"text-generation": {"do_sample": True, "max_length": 50}}
    return cfg


def strip_prefix(tensors, prefix):
    return {k[len(prefix):] if k.startswith(prefix) else k: v for k, v in tensors.items()}


def write_sentence_transformers_files(folder):
    """modules.json / 1_Pooling as sentence-transformers saves a mean-pooling, normalised model."""
    fmt.write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}],
        sort_keys=False)
    fmt.write_json(os.path.join(folder, "sentence_bert_config.json"), {"max_seq_length": MAXPOS, "do_lower_case": False})
    fmt.write_json(os.path.join(folder, "config_sentence_transformers.json"),
                   {"__version__": {"sentence_transformers": "3.0.1", "transformers": fmt.TRANSFORMERS_VERSION,
                                    "pytorch": "2.3.1"}, "prompts": {}, "default_prompt_name": None,
                    "similarity_fn_name": None})
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    fmt.write_json(os.path.join(folder, "1_Pooling", "config.json"), {
        "word_embedding_dimension": D, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True},
        sort_keys=False)


def make_case(name, seed, toks):
    model_type, arch, overrides, dtype, tok_kind, opts = CASES[name]
    tok = toks[tok_kind]
    folder = os.path.join(OUT, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cfg = case_config(model_type, arch, overrides, dtype, tok.n, opts)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)

    kwargs = {}
    if opts.get("position_ids_buffer"):
        kwargs["persistent_position_ids"] = True
    if opts.get("legacy"):
        kwargs["legacy_buffers"] = True
    model = ref.build_model(cfg, **kwargs)
    init_weights(model, seed)
    round_params(model, dtype)

    extra = None
    if opts.get("legacy"):  # the buffers of the original checkpoints, as they were stored
        n = MAXPOS
        extra = {}
        for i in range(LAYERS):
            extra[f"transformer.h.{i}.attn.bias"] = torch.tril(torch.ones(n, n)).view(1, 1, n, n)
            extra[f"transformer.h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
    tensors = stored_tensors(model, dtype, extra)
    if opts.get("legacy"):
        tensors = strip_prefix(tensors, "transformer.")
    if opts.get("shards"):
        names = sorted(tensors)
        first = [k for k in names if ".embeddings." in k or ".layer.0." in k]
        fmt.save_weights(folder, tensors, [first, [k for k in names if k not in first]])
    else:
        fmt.save_weights(folder, tensors)
    fmt.write_tokenizer_files(folder, tok.json, tok.files, MAXPOS)
    if opts.get("sentence_transformers"):
        write_sentence_transformers_files(folder)

    # Round trip: load what was written into a fresh reference model and run that one, so the
    # goldens are the outputs of the files' own weights.
    check = ref.build_model(cfg, **kwargs)
    files = [f for f in os.listdir(folder) if f.endswith(".safetensors")]
    loaded = {}
    for f in files:
        loaded.update(fmt.read_safetensors(os.path.join(folder, f))[0])
    if opts.get("legacy"):
        loaded = {("transformer." + k): v for k, v in loaded.items()}
    ref.load_hf_state_dict(check, loaded)

    texts = {"case": name, "architecture": arch, "tokenizer": tok.expectations()}
    if model_type == "gpt2":
        batch = ["The quick brown fox jumps over the lazy dog.", "Hello, world!"]
        ids, mask, types = tok.batch(batch)
        g, _ = run_reference(check, ids, mask, types, use_types=False)
        prompt = "The quick brown fox"
        prompt_ids = tok.encode(prompt)["ids"]
        new, step_logits, margin = greedy(check, prompt_ids, 8)
        cached = cached_steps(check, prompt_ids, new)
        kv_diff = float((cached - step_logits).abs().max())
        assert kv_diff <= 1e-5, f"{name}: cached decoding differs from recomputation by {kv_diff}"
        assert margin > 1e-3, f"{name}: greedy step too close to a tie ({margin})"
        # Row 2 again, left-padded: HF still uses positions arange(n), so the real tokens sit at
        # shifted positions and the outputs differ from the right-padded row.
        k = int(mask[1].sum())
        left_ids = torch.cat([torch.full((1, ids.shape[1] - k), tok.pad), ids[1:2, :k]], dim=1)
        left_mask = torch.cat([torch.zeros(1, ids.shape[1] - k, dtype=torch.long), mask[1:2, :k]], dim=1)
        with torch.no_grad():
            left = check(left_ids, attention_mask=left_mask)
        g.update({"left_padded.input_ids": left_ids, "left_padded.attention_mask": left_mask,
                  "left_padded.last_hidden_state": left["last_hidden_state"], "left_padded.logits": left["logits"]})
        g.update({"generate.prompt_ids": torch.tensor(prompt_ids), "generate.new_ids": torch.tensor(new),
                  "generate.step_logits": step_logits})
        texts["generate"] = {"prompt": prompt, "prompt_ids": prompt_ids, "new_ids": new, "max_new_tokens": 8,
                             "new_tokens": [tok.token(i) for i in new],
                             "min_top1_margin": round(margin, 4), "kv_cache_max_abs_diff": kv_diff}
    else:
        batch = encoder_batch(tok, mlm=arch != "BertModel")
        ids, mask, types = tok.batch(batch)
        use_types = model_type == "bert"
        g, out = run_reference(check, ids, mask, types, use_types)
        g["sentence_embedding"] = ref.mean_pool_normalize(out["last_hidden_state"], mask)
    g["position_ids"] = position_ids_used(check, ids)
    texts["batch"] = batch
    texts["lengths"] = [int(x) for x in mask.sum(1)]
    fmt.write_safetensors(os.path.join(folder, "golden.safetensors"),
                          {k: (v.float() if v.is_floating_point() else v) for k, v in g.items()},
                          {"format": "pt"})
    fmt.write_json(os.path.join(folder, "texts.json"), texts, sort_keys=False)
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(folder) for f in fs)
    assert size < SIZE_LIMIT, f"{name}: {size} bytes"
    print(f"{name}: {sum(v.numel() for v in tensors.values())} values stored, folder {size // 1024} KiB")
    return cfg, tensors


def main():
    os.makedirs(OUT, exist_ok=True)
    toks = {k: Tok(k) for k in ("wordpiece", "unigram", "gpt2", "roberta")}
    made = {}
    for seed, name in enumerate(CASES):
        made[name] = make_case(name, 100 + seed, toks)
    import make_hf_broken  # noqa: E402  (the error cases reuse the bert case's files)
    make_hf_broken.main(OUT, made["bert"], toks["wordpiece"])
    print("torch", torch.__version__, file=sys.stderr)


if __name__ == "__main__":
    main()
