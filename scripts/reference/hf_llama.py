#!/usr/bin/python3
"""From-spec PyTorch reference of Hugging Face's Llama, Qwen2 and Mistral decoders.

Written after reading transformers' modeling_llama.py, modeling_qwen2.py, modeling_mistral.py and
modeling_rope_utils.py (the 4.46 eager attention path), not copied from them: each class names the
HF class whose forward it follows, and the module tree uses HF's attribute names, so that
state_dict() keys are exactly HF's tensor names (model.layers.N.self_attn.q_proj.weight, ...).

Semantics that matter for a port (see also /work/shared/HF-NOTES.md):
  * RMSNorm in float32: x * rsqrt(mean(x^2) + eps), then weight * (that); no bias, no mean.
  * Rotary positions, rotate-half: q' = q cos + rotate_half(q) sin, rotate_half(x) = cat(-x2, x1);
    cos/sin of position * inv_freq (float32 matmul), duplicated for both halves. rope_scaling:
    linear divides inv_freq by factor; dynamic recomputes theta from the longest sequence seen
    (HF keeps that state between calls); llama3 blends low and high frequencies.
  * Grouped-query attention: k/v have num_key_value_heads heads, repeated (repeat_kv) for the
    num_attention_heads query heads; scores * head_dim**-0.5.
  * The eager mask holds 0 or finfo.min (causal, sliding window and padding combined with
    masked_fill, never summed), so a row whose keys are all masked gets uniform weights over all
    keys. Mistral's (and Qwen2's with use_sliding_window) window: key k is seen by query q when
    q - sliding_window < k <= q, in cache positions.
  * MLP: down_proj(silu(gate_proj(x)) * up_proj(x)); Qwen2 has q/k/v biases, Llama biases only
    with attention_bias (q, k, v, o) / mlp_bias.
  * hidden_states: the input of every layer, then the final norm's output (as GPT-2).
Everything runs in float32 and eval mode.
"""
import math
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

NEG = torch.finfo(torch.float32).min

LLAMA_DEFAULTS = {
    "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "head_dim": None,
    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008,
    "max_position_embeddings": 2048, "mlp_bias": False, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": None, "pretraining_tp": 1, "rms_norm_eps": 1e-6, "rope_scaling": None,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "use_cache": True, "vocab_size": 32000,
}
QWEN2_DEFAULTS = {
    "attention_dropout": 0.0, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 22016, "max_position_embeddings": 32768, "max_window_layers": 28,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "rms_norm_eps": 1e-6,
    "rope_scaling": None, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": False,
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}
MISTRAL_DEFAULTS = {
    "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "head_dim": None, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": False, "use_cache": True,
    "vocab_size": 32000,
}
DEFAULTS = {"llama": LLAMA_DEFAULTS, "qwen2": QWEN2_DEFAULTS, "mistral": MISTRAL_DEFAULTS}


def config_namespace(cfg):
    """config.json as attributes, with each Config class's defaults and derived values."""
    c = dict(DEFAULTS[cfg["model_type"]], **cfg)
    if c.get("num_key_value_heads") is None:
        c["num_key_value_heads"] = c["num_attention_heads"]
    if c.get("head_dim") is None:
        c["head_dim"] = c["hidden_size"] // c["num_attention_heads"]
    if cfg["model_type"] == "qwen2" and not c.get("use_sliding_window"):
        c["sliding_window"] = None  # Qwen2Config: the window only applies with use_sliding_window
    if cfg["model_type"] == "llama":
        c["sliding_window"] = None
    c.setdefault("max_window_layers", 0)
    c.setdefault("rope_scaling", None)
    c.setdefault("attention_bias", False)
    c.setdefault("mlp_bias", False)
    if cfg["model_type"] != "qwen2":
        c["max_window_layers"] = 0
    return SimpleNamespace(**c)


# ---------------------------------------------------------------------------------------------
# modeling_rope_utils.py
# ---------------------------------------------------------------------------------------------
def default_inv_freq(c, base=None):
    """_compute_default_rope_parameters: 1 / base ** (arange(0, dim, 2).float() / dim)."""
    dim = c.head_dim
    base = c.rope_theta if base is None else base
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def rope_type(c):
    s = c.rope_scaling
    if s is None:
        return "default"
    return s.get("rope_type", s.get("type"))


def inv_freq_for(c, seq_len=None):
    """The inv_freq of c's rope_scaling type (attention_scaling is 1.0 for all four)."""
    kind = rope_type(c)
    if kind == "default":
        return default_inv_freq(c)
    s = c.rope_scaling
    factor = s["factor"]
    if kind == "linear":  # _compute_linear_scaling_rope_parameters
        return default_inv_freq(c) / factor
    if kind == "dynamic":  # _compute_dynamic_ntk_parameters
        dim, max_pos = c.head_dim, c.max_position_embeddings
        if seq_len is None:
            seq_len = max_pos
        else:
            seq_len = torch.maximum(seq_len, torch.tensor(max_pos, dtype=seq_len.dtype))
        base = c.rope_theta * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
        return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    if kind == "llama3":  # _compute_llama3_parameters
        inv_freq = default_inv_freq(c)
        low, high = s["low_freq_factor"], s["high_freq_factor"]
        old_len = s["original_max_position_embeddings"]
        low_freq_wavelen = old_len / low
        high_freq_wavelen = old_len / high
        wavelen = 2 * math.pi / inv_freq
        inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
        smooth_factor = (old_len / wavelen - low) / (high - low)
        smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
        is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
        return torch.where(is_medium, smoothed, inv_freq_llama)
    raise ValueError(f"rope type {kind!r}")


class LlamaRotaryEmbedding(nn.Module):
    """LlamaRotaryEmbedding: cos, sin [B, n, head_dim] of the position ids; the dynamic type
    grows its frequencies with the longest sequence seen and resets below the original length
    (dynamic_rope_update), which is state kept between calls."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.dynamic = rope_type(c) == "dynamic"
        self.register_buffer("inv_freq", inv_freq_for(c), persistent=False)
        self.original_inv_freq = self.inv_freq
        self.max_seq_len_cached = c.max_position_embeddings
        self.original_max_seq_len = c.max_position_embeddings

    def _dynamic_frequency_update(self, position_ids):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.max_seq_len_cached:
            self.inv_freq = inv_freq_for(self.config, seq_len=seq_len)
            self.max_seq_len_cached = seq_len
        if seq_len < self.original_max_seq_len and self.max_seq_len_cached > self.original_max_seq_len:
            self.inv_freq = self.original_inv_freq
            self.max_seq_len_cached = self.original_max_seq_len

    def reset(self):
        """The state of a freshly loaded model."""
        self.inv_freq = self.original_inv_freq
        self.max_seq_len_cached = self.original_max_seq_len

    def forward(self, position_ids):
        if self.dynamic:
            self._dynamic_frequency_update(position_ids)
        B = position_ids.shape[0]
        inv = self.inv_freq[None, :, None].float().expand(B, -1, 1)
        pos = position_ids[:, None, :].float()
        freqs = (inv.float() @ pos.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos() * 1.0, emb.sin() * 1.0


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(x, n_rep):
    """[B, kv_heads, n, dh] -> [B, kv_heads * n_rep, n, dh], each kv head n_rep times in a row."""
    if n_rep == 1:
        return x
    B, h, n, dh = x.shape
    return x[:, :, None, :, :].expand(B, h, n_rep, n, dh).reshape(B, h * n_rep, n, dh)


# ---------------------------------------------------------------------------------------------
# modeling_llama.py (Qwen2 and Mistral differ only where the config says)
# ---------------------------------------------------------------------------------------------
class LlamaRMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.variance_epsilon = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * x.to(dtype)


class LlamaMLP(nn.Module):
    def __init__(self, c, bias):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=bias)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=bias)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=bias)
        assert c.hidden_act in ("silu", "swish"), c.hidden_act

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaAttention(nn.Module):
    """LlamaAttention + eager_attention_forward. past = (k, v) [B, kv_heads, n_past, dh], keys
    already rotated, is concatenated before the new ones."""

    def __init__(self, c, qkv_bias, o_bias):
        super().__init__()
        self.h, self.kv, self.dh = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        self.scaling = self.dh ** -0.5
        self.q_proj = nn.Linear(c.hidden_size, self.h * self.dh, bias=qkv_bias)
        self.k_proj = nn.Linear(c.hidden_size, self.kv * self.dh, bias=qkv_bias)
        self.v_proj = nn.Linear(c.hidden_size, self.kv * self.dh, bias=qkv_bias)
        self.o_proj = nn.Linear(self.h * self.dh, c.hidden_size, bias=o_bias)

    def forward(self, x, cos, sin, mask, past=None):
        B, n, _ = x.shape
        q = self.q_proj(x).view(B, n, -1, self.dh).transpose(1, 2)
        k = self.k_proj(x).view(B, n, -1, self.dh).transpose(1, 2)
        v = self.v_proj(x).view(B, n, -1, self.dh).transpose(1, 2)
        self.projected = (q, k)  # before the rotation, [B, heads, n, dh] (attention steps)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        self.rotated = (q, k)
        if past is not None:
            k = torch.cat((past[0], k), dim=-2)
            v = torch.cat((past[1], v), dim=-2)
        present = (k, v)
        k, v = repeat_kv(k, self.h // self.kv), repeat_kv(v, self.h // self.kv)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        if mask is not None:
            w = w + mask[:, :, :, : k.shape[-2]]
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(B, n, -1)
        return self.o_proj(out), present, w


class LlamaDecoderLayer(nn.Module):
    def __init__(self, c, qkv_bias, o_bias, mlp_bias):
        super().__init__()
        self.self_attn = LlamaAttention(c, qkv_bias, o_bias)
        self.mlp = LlamaMLP(c, mlp_bias)
        self.input_layernorm = LlamaRMSNorm(c.hidden_size, c.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(c.hidden_size, c.rms_norm_eps)

    def forward(self, x, cos, sin, mask, past=None):
        a, present, w = self.self_attn(self.input_layernorm(x), cos, sin, mask, past)
        x = x + a
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x, present, w


def causal_mask(attention_mask, n, past, window, dtype=torch.float32):
    """_update_causal_mask / _prepare_4d_causal_attention_mask_with_cache_position (eager):
    [B, 1, n, past + n] of 0 and finfo.min. Query i sits at cache position past + i; with a
    window, keys at or before cache position - window are masked too; padding (attention_mask
    [B, past + n]) is masked with masked_fill, so masked entries are finfo.min exactly."""
    target = past + n
    cache_position = torch.arange(past, past + n)
    mask = torch.full((n, target), NEG, dtype=dtype)
    diagonal_attend = torch.arange(target) > cache_position.reshape(-1, 1)
    if window is not None:
        diagonal_attend |= torch.arange(target) <= (cache_position.reshape(-1, 1) - window)
    mask = mask * diagonal_attend
    B = 1 if attention_mask is None else attention_mask.shape[0]
    mask = mask[None, None, :, :].expand(B, 1, -1, -1).clone()
    if attention_mask is not None:
        padding = (mask + attention_mask[:, None, None, :].to(dtype)) == 0
        mask = mask.masked_fill(padding, NEG)
    return mask


class LlamaModel(nn.Module):
    """LlamaModel / Qwen2Model / MistralModel: embed_tokens, rotary positions, layers, norm."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        mt = c.model_type
        qkv_bias = mt == "qwen2" or getattr(c, "attention_bias", False)
        o_bias = mt == "llama" and c.attention_bias
        mlp_bias = mt == "llama" and c.mlp_bias
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(c, qkv_bias, o_bias, mlp_bias)
                                     for _ in range(c.num_hidden_layers)])
        self.norm = LlamaRMSNorm(c.hidden_size, c.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(c)

    def layer_window(self, i):
        w = self.config.sliding_window
        return w if w is not None and i >= self.config.max_window_layers else None

    def forward(self, input_ids, attention_mask=None, position_ids=None, past_key_values=None):
        B, n = input_ids.shape
        past = 0 if past_key_values is None else past_key_values[0][0].shape[-2]
        if position_ids is None:
            position_ids = torch.arange(past, past + n)[None, :].expand(B, -1)
        x = self.embed_tokens(input_ids)
        cos, sin = self.rotary_emb(position_ids)
        hidden, attn, presents = [], [], []
        for i, layer in enumerate(self.layers):
            hidden.append(x)
            mask = causal_mask(attention_mask, n, past, self.layer_window(i))
            x, present, w = layer(x, cos, sin, mask, None if past_key_values is None else past_key_values[i])
            presents.append(present)
            attn.append(w)
        x = self.norm(x)
        hidden.append(x)
        return {"last_hidden_state": x, "hidden_states": hidden, "attentions": attn, "past_key_values": presents}


class LlamaForCausalLM(nn.Module):
    """...ForCausalLM: `model.` + lm_head (no bias), tied to embed_tokens when the config says."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = LlamaModel(c)
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        self.tied = {}
        if c.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
            self.tied = {"lm_head.weight": "model.embed_tokens.weight"}

    def forward(self, input_ids, attention_mask=None, position_ids=None, past_key_values=None):
        out = self.model(input_ids, attention_mask, position_ids, past_key_values)
        out["logits"] = self.lm_head(out["last_hidden_state"])
        return out


def make_config(model_type, architecture, dtype_name="float32", version="4.46.3", **overrides):
    """The config dict save_pretrained writes: the Config class's keys with these values."""
    unknown = set(overrides) - set(DEFAULTS[model_type])
    if unknown:
        raise KeyError(f"{model_type} config has no keys {sorted(unknown)}")
    cfg = dict(DEFAULTS[model_type], **overrides)
    cfg.update(architectures=[architecture], model_type=model_type, torch_dtype=dtype_name,
               transformers_version=version)
    return cfg


def build_model(cfg):
    return LlamaForCausalLM(config_namespace(cfg)).eval()


def hf_state_dict(model):
    """The tensors save_pretrained writes: no tied lm_head, no rotary buffers."""
    return {k: v for k, v in model.state_dict().items() if k not in model.tied}


def generation_position_ids(attention_mask):
    """GenerationMixin.prepare_inputs_for_generation: cumsum(mask) - 1, 1 where padded."""
    pos = attention_mask.long().cumsum(-1) - 1
    return pos.masked_fill(attention_mask == 0, 1)
