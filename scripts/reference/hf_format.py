"""Writes files the way Hugging Face's save_pretrained does: config.json, model.safetensors (or
shards + index), and the tokenizer side files. Also a safetensors reader for the scripts.

config.json: `PretrainedConfig.to_json_string(use_diff=True)` keeps every key of the model's
config class plus the base-class keys whose value differs from PretrainedConfig's default
(architectures, model_type, torch_dtype, pad/bos/eos ids, ...), sorted, indent 2, newline at
the end. The class defaults below are those of BertConfig, RobertaConfig, DistilBertConfig and
GPT2Config.

model.safetensors: header {"__metadata__": {"format": "pt"}, name: {dtype, shape,
data_offsets}}, padded with spaces to a multiple of 8; the data sorted as the safetensors library
does (wider dtypes first, then by name).
"""
import json
import os
import struct

import numpy as np
import torch

TRANSFORMERS_VERSION = "4.46.3"

BERT_DEFAULTS = {
    "attention_probs_dropout_prob": 0.1, "classifier_dropout": None, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
    "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "num_attention_heads": 12,
    "num_hidden_layers": 12, "pad_token_id": 0, "position_embedding_type": "absolute",
    "type_vocab_size": 2, "use_cache": True, "vocab_size": 30522,
}
ROBERTA_DEFAULTS = dict(BERT_DEFAULTS, pad_token_id=1, bos_token_id=0, eos_token_id=2)
DISTILBERT_DEFAULTS = {
    "activation": "gelu", "attention_dropout": 0.1, "dim": 768, "dropout": 0.1, "hidden_dim": 3072,
    "initializer_range": 0.02, "max_position_embeddings": 512, "n_heads": 12, "n_layers": 6,
    "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False,
    "tie_weights_": True, "vocab_size": 30522,
}
GPT2_DEFAULTS = {
    "activation_function": "gelu_new", "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1,
    "eos_token_id": 50256, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "n_embd": 768,
    "n_head": 12, "n_inner": None, "n_layer": 12, "n_positions": 1024, "reorder_and_upcast_attn": False,
    "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
    "summary_activation": None, "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
    "summary_type": "cls_index", "summary_use_proj": True, "use_cache": True, "vocab_size": 50257,
}
DEFAULTS = {"bert": BERT_DEFAULTS, "roberta": ROBERTA_DEFAULTS, "xlm-roberta": ROBERTA_DEFAULTS,  # XLMRobertaConfig
            "distilbert": DISTILBERT_DEFAULTS, "gpt2": GPT2_DEFAULTS}
TORCH_DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def make_config(model_type, architecture, dtype=torch.float32, version=TRANSFORMERS_VERSION, **overrides):
    """The config dict save_pretrained would write for this model."""
    unknown = set(overrides) - set(DEFAULTS[model_type])
    if unknown:
        raise KeyError(f"{model_type} config has no keys {sorted(unknown)}")
    cfg = dict(DEFAULTS[model_type], **overrides)
    cfg.update(architectures=[architecture], model_type=model_type, torch_dtype=TORCH_DTYPE_NAMES[dtype],
               transformers_version=version)
    return cfg


def write_json(path, obj, sort_keys=True):
    """HF's json style: indent 2, sorted keys (configs), newline at the end."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------------------------
ST_DTYPES = {torch.float32: ("F32", 4), torch.float16: ("F16", 2), torch.bfloat16: ("BF16", 2),
             torch.int64: ("I64", 8), torch.int32: ("I32", 4), torch.bool: ("BOOL", 1),
             torch.float64: ("F64", 8), torch.uint8: ("U8", 1), torch.int8: ("I8", 1)}
NP_FROM_ST = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32, "F64": np.float64,
              "U8": np.uint8, "I8": np.int8, "BOOL": np.bool_}


def _raw(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def safetensors_bytes(tensors, metadata=None):
    """tensors: name -> torch.Tensor in the dtype to store. Data order as the safetensors library
    writes it: by dtype width (widest first), then by name."""
    order = sorted(tensors, key=lambda k: (-ST_DTYPES[tensors[k].dtype][1], k))
    header = {"__metadata__": metadata} if metadata is not None else {}
    blobs, offset = [], 0
    for name in order:
        raw = _raw(tensors[name])
        header[name] = {"dtype": ST_DTYPES[tensors[name].dtype][0], "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_safetensors(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(safetensors_bytes(tensors, metadata))


def read_safetensors(path):
    """name -> torch.Tensor (F32/F16/BF16/I64/...), plus the __metadata__ dict."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        raw = data[8 + n + a:8 + n + b]
        if info["dtype"] == "BF16":
            t = torch.from_numpy(np.frombuffer(raw, dtype=np.int16).copy()).view(torch.bfloat16)
        else:
            t = torch.from_numpy(np.frombuffer(raw, dtype=NP_FROM_ST[info["dtype"]]).copy())
        out[name] = t.reshape(info["shape"])
    return out, meta


def save_weights(folder, tensors, shards=None):
    """model.safetensors, or with shards = [[names...], [names...]] the files
    model-0000k-of-0000n.safetensors plus model.safetensors.index.json (weight_map, total_size)."""
    if shards is None:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors, {"format": "pt"})
        return
    assert sorted(sum(shards, [])) == sorted(tensors), "every tensor in exactly one shard"
    weight_map, total = {}, 0
    for k, names in enumerate(shards):
        fname = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        write_safetensors(os.path.join(folder, fname), {n: tensors[n] for n in names}, {"format": "pt"})
        for n in names:
            weight_map[n] = fname
            total += tensors[n].numel() * tensors[n].element_size()
    write_json(os.path.join(folder, "model.safetensors.index.json"),
               {"metadata": {"total_size": total}, "weight_map": weight_map})


# ---------------------------------------------------------------------------------------------
# Tokenizer side files (what a fast tokenizer's save_pretrained writes next to tokenizer.json)
# ---------------------------------------------------------------------------------------------
def _decoder_entry(t, lstrip=False):
    return {"content": t, "lstrip": lstrip, "normalized": False, "rstrip": False, "single_word": False,
            "special": True}


def write_tokenizer_files(folder, tokenizer_json, kind, model_max_length):
    """tokenizer.json + tokenizer_config.json + special_tokens_map.json (+ vocab.txt for
    WordPiece, vocab.json + merges.txt for byte-level BPE, as HF writes the slow files too).
    kind: bert | bert_unigram | roberta | gpt2 | xlm-roberta."""
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer_json, sort_keys=False)
    added = {str(a["id"]): _decoder_entry(a["content"], a["lstrip"]) for a in tokenizer_json["added_tokens"]}
    model = tokenizer_json["model"]
    if kind in ("bert", "bert_unigram"):
        special = {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]",
                   "unk_token": "[UNK]"}
        cfg = dict(special, added_tokens_decoder=added, clean_up_tokenization_spaces=True,
                   model_max_length=model_max_length)
        if kind == "bert":
            cfg.update(do_lower_case=True, strip_accents=None, tokenize_chinese_chars=True,
                       tokenizer_class="BertTokenizer")
            vocab = sorted(model["vocab"], key=model["vocab"].get)
            with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
                f.write("".join(t + "\n" for t in vocab))
        else:
            cfg.update(do_lower_case=True, tokenizer_class="PreTrainedTokenizerFast")
    elif kind == "roberta":
        special = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>",
                   "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"}
        cfg = dict(special, added_tokens_decoder=added, add_prefix_space=False, clean_up_tokenization_spaces=True,
                   errors="replace", model_max_length=model_max_length, tokenizer_class="RobertaTokenizer",
                   trim_offsets=True)
        special = dict(special, mask_token={"content": "<mask>", "lstrip": True, "normalized": False,
                                            "rstrip": False, "single_word": False})
    elif kind == "gpt2":
        special = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
        cfg = dict(special, added_tokens_decoder=added, add_bos_token=False, add_prefix_space=False,
                   clean_up_tokenization_spaces=True, errors="replace", model_max_length=model_max_length,
                   pad_token=None, tokenizer_class="GPT2Tokenizer")
    elif kind == "xlm-roberta":
        special = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>",
                   "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"}
        cfg = dict(special, added_tokens_decoder=added, clean_up_tokenization_spaces=True,
                   model_max_length=model_max_length, tokenizer_class="XLMRobertaTokenizer")
        special = dict(special, mask_token={"content": "<mask>", "lstrip": True, "normalized": False,
                                            "rstrip": False, "single_word": False})
    else:
        raise ValueError(kind)
    write_json(os.path.join(folder, "tokenizer_config.json"), cfg)
    write_json(os.path.join(folder, "special_tokens_map.json"), special)
    if kind in ("roberta", "gpt2"):
        write_json(os.path.join(folder, "vocab.json"), model["vocab"])
        merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
        with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n" + "".join(m + "\n" for m in merges))
