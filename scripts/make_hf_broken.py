"""Writes tests/data/hf/broken/: model folders that a loader must reject with a clear error.

Called by make_hf_fixtures.py with the `bert` case's config and tensors. Each folder is a copy of
that case with one thing wrong; broken/expected.json says, per folder, the status code we expect
(a suggestion in simdformer's StatusCode names) and words the message must contain (the file,
tensor or model type and the values involved), which is what the error tests assert.
"""
import os
import shutil

import torch

import hf_format as fmt

LLAMA_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 1,
    "eos_token_id": 2, "head_dim": 8, "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
    "intermediate_size": 64, "max_position_embeddings": 64, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 4, "num_hidden_layers": 1, "num_key_value_heads": 2, "pretraining_tp": 1,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 10000.0, "tie_word_embeddings": False,
    "torch_dtype": "float32", "transformers_version": fmt.TRANSFORMERS_VERSION, "use_cache": True,
    "vocab_size": 64,
}


def _folder(out, name, cfg, tok=None):
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    fmt.write_json(os.path.join(folder, "config.json"), cfg)
    if tok is not None:
        fmt.write_tokenizer_files(folder, tok.json, tok.files, cfg.get("max_position_embeddings", 512))
    return folder


def main(out_root, bert_case, tok):
    cfg, tensors = bert_case
    out = os.path.join(out_root, "broken")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    expected = {}
    g = torch.Generator().manual_seed(7)

    _folder(out, "missing_weights", cfg, tok)
    expected["missing_weights"] = {"code": "io_error", "mentions": ["model.safetensors"],
                                   "what": "config.json and tokenizer.json but no weights file"}

    folder = _folder(out, "unsupported_llama", LLAMA_CONFIG)
    llama = {"model.embed_tokens.weight": torch.randn(64, 32, generator=g),
             "model.norm.weight": torch.ones(32), "lm_head.weight": torch.randn(64, 32, generator=g)}
    fmt.save_weights(folder, llama)
    expected["unsupported_llama"] = {"code": "unsupported", "mentions": ["llama", "bert", "roberta", "distilbert",
                                                                         "gpt2"],
                                     "what": "a llama config: the message names it and lists what is supported"}

    folder = _folder(out, "pytorch_bin_only", cfg, tok)
    torch.save({k: v.clone() for k, v in tensors.items()}, os.path.join(folder, "pytorch_model.bin"))
    expected["pytorch_bin_only"] = {"code": "unsupported", "mentions": ["pytorch_model.bin", "safetensors"],
                                    "what": "only a pickled PyTorch checkpoint, which is never unpickled"}

    name = "encoder.layer.1.attention.self.query.weight"
    folder = _folder(out, "wrong_shape", cfg, tok)
    fmt.save_weights(folder, dict(tensors, **{name: tensors[name][:, :16].contiguous()}))
    expected["wrong_shape"] = {"code": "shape_mismatch", "mentions": [name, "32", "16"],
                               "what": f"{name} stored as [32, 16] instead of [32, 32]"}

    name = "encoder.layer.1.output.dense.bias"
    folder = _folder(out, "missing_tensor", cfg, tok)
    fmt.save_weights(folder, {k: v for k, v in tensors.items() if k != name})
    expected["missing_tensor"] = {"code": "invalid_argument", "mentions": [name],
                                  "what": f"{name} absent from model.safetensors"}

    folder = _folder(out, "missing_shard", cfg, tok)
    names = sorted(tensors)
    first = [k for k in names if k.startswith("embeddings.")]
    fmt.save_weights(folder, tensors, [first, [k for k in names if k not in first]])
    os.remove(os.path.join(folder, "model-00002-of-00002.safetensors"))
    expected["missing_shard"] = {"code": "io_error", "mentions": ["model-00002-of-00002.safetensors"],
                                 "what": "the index names a second shard that is not in the folder"}

    folder = _folder(out, "truncated_weights", cfg, tok)
    fmt.save_weights(folder, tensors)
    path = os.path.join(folder, "model.safetensors")
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    expected["truncated_weights"] = {"code": "io_error", "mentions": ["model.safetensors", str(size // 2)],
                                     "what": f"model.safetensors cut to {size // 2} of {size} bytes"}

    small = dict(cfg, vocab_size=cfg["vocab_size"] - 26)
    folder = _folder(out, "tokenizer_vocab_too_large", small, tok)
    fmt.save_weights(folder, dict(tensors, **{"embeddings.word_embeddings.weight":
                                              tensors["embeddings.word_embeddings.weight"][:small["vocab_size"]]}))
    expected["tokenizer_vocab_too_large"] = {
        "code": "invalid_argument", "mentions": [str(tok.n), str(small["vocab_size"])],
        "what": f"tokenizer.json has {tok.n} tokens, the embedding table {small['vocab_size']} rows"}

    fmt.write_json(os.path.join(out, "expected.json"), expected)
    print(f"broken: {len(expected)} cases")
