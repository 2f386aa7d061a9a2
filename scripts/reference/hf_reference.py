#!/usr/bin/python3
"""From-spec PyTorch reference of Hugging Face's BERT, RoBERTa, DistilBERT and GPT-2.

No Hugging Face Python package exists on this machine, so this file re-implements the forward
passes after reading transformers' modeling_bert.py, modeling_roberta.py, modeling_distilbert.py,
modeling_gpt2.py, activations.py and pytorch_utils.py (Conv1D). It is written from those
specifications, not copied: each block names the HF class whose forward it follows, and the
module tree uses HF's attribute names so that `state_dict()` keys are exactly HF's tensor names.

Semantics that matter for a port (see also /work/shared/HF-NOTES.md):
  * BERT/RoBERTa: additive mask (1 - mask) * finfo(float32).min added after dividing by sqrt(d).
  * DistilBERT: q divided by sqrt(d) before q.k^T, masked_fill(finfo.min), LayerNorm eps 1e-12.
  * GPT-2: Conv1D weights [in, out], pre-LN, torch.where(causal, s, finfo.min) then the additive
    padding mask, positions arange(past, past + n), ln_f output is the last hidden state *and* the
    last entry of hidden_states (the last block's raw output is not reported).
  * RoBERTa: positions padding_idx + cumsum(ids != pad) for real tokens, padding_idx for pads;
    its LM head applies exact (erf) gelu whatever hidden_act says.
Everything runs in float32 and eval mode; dropout is never applied.

Usage as a library:
    cfg = json.load(open("config.json"))
    model = build_model(cfg)                  # picks the class from cfg["architectures"][0]
    load_hf_state_dict(model, tensors)        # tensors: name -> torch.Tensor (from safetensors)
    out = model(input_ids, attention_mask=..., token_type_ids=...)
    out["hidden_states"], out["attentions"], out.get("pooler_output"), out.get("logits")
"""
import math
import re
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

NEG = torch.finfo(torch.float32).min  # HF's mask value for float32 models


# ---------------------------------------------------------------------------------------------
# activations.py: ACT2FN
# ---------------------------------------------------------------------------------------------
def gelu_new(x):
    """activations.NewGELUActivation: the tanh approximation used by GPT-2 ("gelu_new")."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACT2FN = {
    "gelu": F.gelu,                                               # GELUActivation: exact erf form
    "gelu_new": gelu_new,                                         # NewGELUActivation
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),  # PytorchGELUTanh
    "relu": F.relu,
}


def activation(name):
    if name not in ACT2FN:
        raise ValueError(f"hidden_act {name!r} is not implemented here (have {sorted(ACT2FN)})")
    return ACT2FN[name]


def config_namespace(cfg):
    """The config.json dict as attributes, with HF's attribute_map aliases resolved per model_type."""
    c = dict(cfg)
    mt = c.get("model_type")
    if mt == "gpt2":  # GPT2Config.attribute_map
        c.setdefault("hidden_size", c["n_embd"])
        c.setdefault("num_attention_heads", c["n_head"])
        c.setdefault("num_hidden_layers", c["n_layer"])
        c.setdefault("max_position_embeddings", c["n_positions"])
        c.setdefault("n_inner", None)
        c.setdefault("layer_norm_epsilon", 1e-5)
        c.setdefault("activation_function", "gelu_new")
        c.setdefault("scale_attn_weights", True)
        c.setdefault("scale_attn_by_inverse_layer_idx", False)
    if mt == "distilbert":  # DistilBertConfig.attribute_map
        c.setdefault("hidden_size", c["dim"])
        c.setdefault("num_attention_heads", c["n_heads"])
        c.setdefault("num_hidden_layers", c["n_layers"])
    # PretrainedConfig: id2label keys are strings of ints in JSON; num_labels is len(id2label)
    # when it is given (a "num_labels" key is then ignored), else "num_labels", else 2.
    if c.get("id2label") is not None:
        c["id2label"] = {int(k): v for k, v in c["id2label"].items()}
        c["num_labels"] = len(c["id2label"])
    else:
        c["num_labels"] = c.get("num_labels", 2)
        c["id2label"] = {i: f"LABEL_{i}" for i in range(c["num_labels"])}
    c.setdefault("problem_type", None)
    return SimpleNamespace(**c)


def extended_attention_mask(attention_mask):
    """ModuleUtilsMixin.get_extended_attention_mask for a 2-D encoder mask: [B, n] -> [B, 1, 1, n]."""
    ext = attention_mask[:, None, None, :].to(torch.float32)
    return (1.0 - ext) * NEG


# ---------------------------------------------------------------------------------------------
# modeling_bert.py
# ---------------------------------------------------------------------------------------------
class BertEmbeddings(nn.Module):
    """BertEmbeddings: word + absolute position + token type, then LayerNorm (dropout is a no-op).

    `persistent_position_ids` reproduces checkpoints written before transformers 4.31, which
    saved the `embeddings.position_ids` buffer (I64 [1, max_position_embeddings])."""

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=c.pad_token_id)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.register_buffer("position_ids", torch.arange(c.max_position_embeddings).expand((1, -1)),
                             persistent=persistent_position_ids)

    def forward(self, input_ids, token_type_ids=None, position_ids=None):
        n = input_ids.shape[1]
        if position_ids is None:
            position_ids = self.position_ids[:, :n]
        if token_type_ids is None:  # HF: the registered all-zero buffer
            token_type_ids = torch.zeros_like(input_ids)
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e = e + self.position_embeddings(position_ids)
        return self.LayerNorm(e)


class BertSelfAttention(nn.Module):
    """BertSelfAttention (eager path, absolute positions): softmax(q k^T / sqrt(d) + mask) v."""

    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c.num_attention_heads
        self.attention_head_size = c.hidden_size // c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)

    def split(self, x):  # [B, n, d] -> [B, h, n, dh]
        B, n, _ = x.shape
        return x.view(B, n, self.num_attention_heads, self.attention_head_size).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        scores = scores + ext_mask  # [B, 1, 1, n] additive, added after scaling
        probs = F.softmax(scores, dim=-1)  # [B, h, n, n]
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(x.shape[0], x.shape[1], -1), probs


class BertSelfOutput(nn.Module):
    """BertSelfOutput: LayerNorm(dense(ctx) + residual) (post-LN)."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertAttention(nn.Module):
    """BertAttention: `self` + `output`."""

    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, x, ext_mask):
        ctx, probs = self.self(x, ext_mask)
        return self.output(ctx, x), probs


class BertIntermediate(nn.Module):
    """BertIntermediate: act(dense(x)), act from hidden_act."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)
        self.act = activation(c.hidden_act)

    def forward(self, x):
        return self.act(self.dense(x))


class BertOutput(nn.Module):
    """BertOutput: LayerNorm(dense(h) + residual)."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.intermediate_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertLayer(nn.Module):
    """BertLayer: attention -> intermediate -> output."""

    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, x, ext_mask):
        a, probs = self.attention(x, ext_mask)
        return self.output(self.intermediate(a), a), probs


class BertEncoder(nn.Module):
    """BertEncoder: hidden_states = (embeddings, layer 1, ..., layer L)."""

    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c) for _ in range(c.num_hidden_layers)])

    def forward(self, x, ext_mask):
        hidden, attn = [x], []
        for layer in self.layer:
            x, probs = layer(x, ext_mask)
            hidden.append(x)
            attn.append(probs)
        return x, hidden, attn


class BertPooler(nn.Module):
    """BertPooler: tanh(dense(h[:, 0]))."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)

    def forward(self, h):
        return torch.tanh(self.dense(h[:, 0]))


class BertModel(nn.Module):
    """BertModel (also RobertaModel when built with RobertaEmbeddings)."""

    def __init__(self, c, add_pooling_layer=True, embeddings=None, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.embeddings = embeddings or BertEmbeddings(c, persistent_position_ids)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c) if add_pooling_layer else None

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        x = self.embeddings(input_ids, token_type_ids=token_type_ids, position_ids=position_ids)
        last, hidden, attn = self.encoder(x, extended_attention_mask(attention_mask))
        out = {"last_hidden_state": last, "hidden_states": hidden, "attentions": attn}
        if self.pooler is not None:
            out["pooler_output"] = self.pooler(last)
        return out


class BertPredictionHeadTransform(nn.Module):
    """BertPredictionHeadTransform: LayerNorm(act(dense(h))), act from hidden_act."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.transform_act_fn = activation(c.hidden_act)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, h):
        return self.LayerNorm(self.transform_act_fn(self.dense(h)))


class BertLMPredictionHead(nn.Module):
    """BertLMPredictionHead: decoder (no own bias) tied to the word embeddings, plus `bias`."""

    def __init__(self, c):
        super().__init__()
        self.transform = BertPredictionHeadTransform(c)
        self.decoder = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(c.vocab_size))
        self.decoder.bias = self.bias  # HF links them; save_pretrained keeps only `bias`

    def forward(self, h):
        return self.decoder(self.transform(h))


class BertOnlyMLMHead(nn.Module):
    """BertOnlyMLMHead: cls.predictions."""

    def __init__(self, c):
        super().__init__()
        self.predictions = BertLMPredictionHead(c)

    def forward(self, h):
        return self.predictions(h)


class BertPreTrainingHeads(nn.Module):
    """BertPreTrainingHeads: cls.predictions + cls.seq_relationship (next-sentence, on the pooler)."""

    def __init__(self, c):
        super().__init__()
        self.predictions = BertLMPredictionHead(c)
        self.seq_relationship = nn.Linear(c.hidden_size, 2)

    def forward(self, h, pooled):
        return self.predictions(h), self.seq_relationship(pooled)


class BertForMaskedLM(nn.Module):
    """BertForMaskedLM: `bert.` (no pooler) + `cls.predictions`, decoder tied to word embeddings."""
    tied = {"cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight",
            "cls.predictions.decoder.bias": "cls.predictions.bias"}

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.bert = BertModel(c, add_pooling_layer=False, persistent_position_ids=persistent_position_ids)
        self.cls = BertOnlyMLMHead(c)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.bert(input_ids, attention_mask, token_type_ids, position_ids)
        out["logits"] = self.cls(out["last_hidden_state"])
        return out


class BertForPreTraining(nn.Module):
    """BertForPreTraining: `bert.` with pooler + cls.predictions + cls.seq_relationship."""
    tied = BertForMaskedLM.tied

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.bert = BertModel(c, add_pooling_layer=True, persistent_position_ids=persistent_position_ids)
        self.cls = BertPreTrainingHeads(c)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.bert(input_ids, attention_mask, token_type_ids, position_ids)
        out["logits"], out["seq_relationship_logits"] = self.cls(out["last_hidden_state"], out["pooler_output"])
        return out


class BertForSequenceClassification(nn.Module):
    """BertForSequenceClassification: `bert.` with pooler, dropout (identity in eval), then
    `classifier` [num_labels, d] on the pooler output."""
    tied = {}

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.bert = BertModel(c, add_pooling_layer=True, persistent_position_ids=persistent_position_ids)
        self.classifier = nn.Linear(c.hidden_size, c.num_labels)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.bert(input_ids, attention_mask, token_type_ids, position_ids)
        out["classifier_logits"] = self.classifier(out["pooler_output"])
        return out


class BertModelTop(BertModel):
    """BertModel saved on its own (sentence-transformers folders): no prefix, pooler included."""
    tied = {}

    def __init__(self, c, persistent_position_ids=False):
        super().__init__(c, add_pooling_layer=True, persistent_position_ids=persistent_position_ids)


# ---------------------------------------------------------------------------------------------
# modeling_roberta.py
# ---------------------------------------------------------------------------------------------
def create_position_ids_from_input_ids(input_ids, padding_idx, past_key_values_length=0):
    """modeling_roberta.create_position_ids_from_input_ids: pads keep padding_idx; real tokens
    count up from padding_idx + 1 (so a right-padded row reads pad+1, pad+2, ..., pad, pad)."""
    mask = input_ids.ne(padding_idx).int()
    incremental = (torch.cumsum(mask, dim=1).type_as(mask) + past_key_values_length) * mask
    return incremental.long() + padding_idx


class RobertaEmbeddings(BertEmbeddings):
    """RobertaEmbeddings: BertEmbeddings whose positions come from the ids, with padding_idx."""

    def __init__(self, c, persistent_position_ids=False):
        super().__init__(c, persistent_position_ids)
        self.padding_idx = c.pad_token_id
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size,
                                                padding_idx=self.padding_idx)

    def forward(self, input_ids, token_type_ids=None, position_ids=None):
        if position_ids is None:
            position_ids = create_position_ids_from_input_ids(input_ids, self.padding_idx)
        return super().forward(input_ids, token_type_ids, position_ids)


class RobertaLMHead(nn.Module):
    """RobertaLMHead: layer_norm(gelu(dense(h))) -> decoder (tied) + bias. gelu is always erf."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.layer_norm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.decoder = nn.Linear(c.hidden_size, c.vocab_size)
        self.bias = nn.Parameter(torch.zeros(c.vocab_size))
        self.decoder.bias = self.bias

    def forward(self, h):
        return self.decoder(self.layer_norm(F.gelu(self.dense(h))))


class RobertaForMaskedLM(nn.Module):
    """RobertaForMaskedLM: `roberta.` (no pooler) + `lm_head`."""
    tied = {"lm_head.decoder.weight": "roberta.embeddings.word_embeddings.weight",
            "lm_head.decoder.bias": "lm_head.bias"}

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.roberta = BertModel(c, add_pooling_layer=False,
                                 embeddings=RobertaEmbeddings(c, persistent_position_ids))
        self.lm_head = RobertaLMHead(c)
        self.lm_head.decoder.weight = self.roberta.embeddings.word_embeddings.weight

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.roberta(input_ids, attention_mask, token_type_ids, position_ids)
        out["logits"] = self.lm_head(out["last_hidden_state"])
        return out


class RobertaClassificationHead(nn.Module):
    """RobertaClassificationHead: <s> (token 0) -> dense -> tanh -> out_proj (dropouts identity)."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.out_proj = nn.Linear(c.hidden_size, c.num_labels)

    def forward(self, features):
        x = features[:, 0, :]
        x = torch.tanh(self.dense(x))
        return self.out_proj(x)


class RobertaForSequenceClassification(nn.Module):
    """RobertaForSequenceClassification: `roberta.` without pooler + `classifier` head."""
    tied = {}

    def __init__(self, c, persistent_position_ids=False):
        super().__init__()
        self.config = c
        self.roberta = BertModel(c, add_pooling_layer=False,
                                 embeddings=RobertaEmbeddings(c, persistent_position_ids))
        self.classifier = RobertaClassificationHead(c)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.roberta(input_ids, attention_mask, token_type_ids, position_ids)
        out["classifier_logits"] = self.classifier(out["last_hidden_state"])
        return out


# ---------------------------------------------------------------------------------------------
# modeling_distilbert.py
# ---------------------------------------------------------------------------------------------
class DistilEmbeddings(nn.Module):
    """distilbert Embeddings: word + position (no token types), LayerNorm eps hard-coded 1e-12."""

    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.dim, padding_idx=c.pad_token_id)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.dim)
        self.LayerNorm = nn.LayerNorm(c.dim, eps=1e-12)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.shape[1])[None, :]
        return self.LayerNorm(self.word_embeddings(input_ids) + self.position_embeddings(pos))


class MultiHeadSelfAttention(nn.Module):
    """distilbert MultiHeadSelfAttention: q / sqrt(dh) *before* q k^T; masked_fill(finfo.min)."""

    def __init__(self, c):
        super().__init__()
        self.n_heads = c.n_heads
        self.dim = c.dim
        self.q_lin = nn.Linear(c.dim, c.dim)
        self.k_lin = nn.Linear(c.dim, c.dim)
        self.v_lin = nn.Linear(c.dim, c.dim)
        self.out_lin = nn.Linear(c.dim, c.dim)

    def forward(self, x, mask):
        B, n, _ = x.shape
        dh = self.dim // self.n_heads

        def shape(t):  # [B, n, d] -> [B, h, n, dh]
            return t.view(B, -1, self.n_heads, dh).transpose(1, 2)

        q, k, v = shape(self.q_lin(x)), shape(self.k_lin(x)), shape(self.v_lin(x))
        q = q / math.sqrt(dh)
        scores = torch.matmul(q, k.transpose(2, 3))
        masked = (mask == 0).view(B, 1, 1, n).expand_as(scores)
        scores = scores.masked_fill(masked, torch.tensor(NEG))  # replaces, does not add
        weights = F.softmax(scores, dim=-1)
        ctx = torch.matmul(weights, v).transpose(1, 2).contiguous().view(B, -1, self.dim)
        return self.out_lin(ctx), weights


class FFN(nn.Module):
    """distilbert FFN: lin2(act(lin1(x))), act from config.activation."""

    def __init__(self, c):
        super().__init__()
        self.lin1 = nn.Linear(c.dim, c.hidden_dim)
        self.lin2 = nn.Linear(c.hidden_dim, c.dim)
        self.activation = activation(c.activation)

    def forward(self, x):
        return self.lin2(self.activation(self.lin1(x)))


class TransformerBlock(nn.Module):
    """distilbert TransformerBlock: post-LN with sa_layer_norm / output_layer_norm (eps 1e-12)."""

    def __init__(self, c):
        super().__init__()
        self.attention = MultiHeadSelfAttention(c)
        self.sa_layer_norm = nn.LayerNorm(c.dim, eps=1e-12)
        self.ffn = FFN(c)
        self.output_layer_norm = nn.LayerNorm(c.dim, eps=1e-12)

    def forward(self, x, mask):
        sa, weights = self.attention(x, mask)
        sa = self.sa_layer_norm(sa + x)
        return self.output_layer_norm(self.ffn(sa) + sa), weights


class DistilTransformer(nn.Module):
    """distilbert Transformer: hidden_states = (embeddings, layer 1, ..., layer L)."""

    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([TransformerBlock(c) for _ in range(c.n_layers)])

    def forward(self, x, mask):
        hidden, attn = [x], []
        for block in self.layer:
            x, w = block(x, mask)
            hidden.append(x)
            attn.append(w)
        return x, hidden, attn


class DistilBertModel(nn.Module):
    """DistilBertModel."""

    def __init__(self, c):
        super().__init__()
        self.embeddings = DistilEmbeddings(c)
        self.transformer = DistilTransformer(c)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        last, hidden, attn = self.transformer(self.embeddings(input_ids), attention_mask)
        return {"last_hidden_state": last, "hidden_states": hidden, "attentions": attn}


class DistilBertForMaskedLM(nn.Module):
    """DistilBertForMaskedLM: vocab_transform -> act -> vocab_layer_norm -> vocab_projector (tied)."""
    tied = {"vocab_projector.weight": "distilbert.embeddings.word_embeddings.weight"}

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.activation = activation(c.activation)
        self.distilbert = DistilBertModel(c)
        self.vocab_transform = nn.Linear(c.dim, c.dim)
        self.vocab_layer_norm = nn.LayerNorm(c.dim, eps=1e-12)
        self.vocab_projector = nn.Linear(c.dim, c.vocab_size)
        self.vocab_projector.weight = self.distilbert.embeddings.word_embeddings.weight

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.distilbert(input_ids, attention_mask)
        h = self.vocab_layer_norm(self.activation(self.vocab_transform(out["last_hidden_state"])))
        out["logits"] = self.vocab_projector(h)
        return out


class DistilBertForSequenceClassification(nn.Module):
    """DistilBertForSequenceClassification: token 0 -> pre_classifier -> ReLU -> (dropout) ->
    classifier [num_labels, dim]."""
    tied = {}

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.distilbert = DistilBertModel(c)
        self.pre_classifier = nn.Linear(c.dim, c.dim)
        self.classifier = nn.Linear(c.dim, c.num_labels)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.distilbert(input_ids, attention_mask)
        pooled = out["last_hidden_state"][:, 0]
        pooled = F.relu(self.pre_classifier(pooled))
        out["classifier_logits"] = self.classifier(pooled)
        return out


# ---------------------------------------------------------------------------------------------
# pytorch_utils.py Conv1D and modeling_gpt2.py
# ---------------------------------------------------------------------------------------------
class Conv1D(nn.Module):
    """pytorch_utils.Conv1D: y = x @ W + b with W stored [in, out] (nx, nf), the transpose of
    nn.Linear's layout."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        shape = x.shape[:-1] + (self.nf,)
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).view(shape)


class GPT2Attention(nn.Module):
    """GPT2Attention._attn (eager): scores / sqrt(dh), torch.where(causal, s, finfo.min), + padding
    mask, softmax. `layer_past` = (k, v) [B, h, n_past, dh] is concatenated before the new keys."""

    def __init__(self, c, layer_idx, legacy_buffers=False):
        super().__init__()
        n = c.max_position_embeddings
        # The causal buffer: non-persistent in current HF; the original checkpoints stored it as
        # F32 [1, 1, n_ctx, n_ctx] next to masked_bias (-1e4). Neither is used as a value here.
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n),
                             persistent=False)
        if legacy_buffers:
            self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)
        self.num_heads = c.num_attention_heads
        self.head_dim = c.hidden_size // c.num_attention_heads
        self.split_size = c.hidden_size
        self.scale_attn_weights = c.scale_attn_weights
        self.scale_by_layer = c.scale_attn_by_inverse_layer_idx
        self.layer_idx = layer_idx
        self.c_attn = Conv1D(3 * c.hidden_size, c.hidden_size)
        self.c_proj = Conv1D(c.hidden_size, c.hidden_size)

    def split(self, t):  # [B, n, d] -> [B, h, n, dh]
        return t.view(t.shape[:-1] + (self.num_heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask, layer_past=None):
        q, k, v = self.c_attn(x).split(self.split_size, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        if layer_past is not None:
            k = torch.cat((layer_past[0], k), dim=-2)
            v = torch.cat((layer_past[1], v), dim=-2)
        present = (k, v)
        w = torch.matmul(q, k.transpose(-1, -2))
        if self.scale_attn_weights:
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        if self.scale_by_layer:
            w = w / float(self.layer_idx + 1)
        nq, nk = q.size(-2), k.size(-2)
        causal = self.bias[:, :, nk - nq:nk, :nk]
        w = torch.where(causal, w, torch.full([], NEG, dtype=w.dtype))
        if ext_mask is not None:
            w = w + ext_mask
        w = F.softmax(w, dim=-1)  # [B, h, nq, nk]
        out = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        out = out.view(out.shape[:-2] + (self.num_heads * self.head_dim,))
        return self.c_proj(out), present, w


class GPT2MLP(nn.Module):
    """GPT2MLP: c_proj(act(c_fc(x))), act = activation_function (gelu_new by default)."""

    def __init__(self, inner, c):
        super().__init__()
        self.c_fc = Conv1D(inner, c.hidden_size)
        self.c_proj = Conv1D(c.hidden_size, inner)
        self.act = activation(c.activation_function)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(nn.Module):
    """GPT2Block: pre-LN. x + attn(ln_1(x)), then + mlp(ln_2(.))."""

    def __init__(self, c, layer_idx, legacy_buffers=False):
        super().__init__()
        inner = c.n_inner if c.n_inner is not None else 4 * c.hidden_size
        self.ln_1 = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_epsilon)
        self.attn = GPT2Attention(c, layer_idx, legacy_buffers)
        self.ln_2 = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner, c)

    def forward(self, x, ext_mask, layer_past=None):
        a, present, w = self.attn(self.ln_1(x), ext_mask, layer_past)
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, present, w


class GPT2Model(nn.Module):
    """GPT2Model: wte + wpe(arange(past, past + n)), blocks, ln_f. hidden_states holds the input of
    every block and finally ln_f's output (HF's "add last hidden state")."""
    tied = {}

    def __init__(self, c, legacy_buffers=False):
        super().__init__()
        self.config = c
        self.wte = nn.Embedding(c.vocab_size, c.hidden_size)
        self.wpe = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.h = nn.ModuleList([GPT2Block(c, i, legacy_buffers) for i in range(c.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_epsilon)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None,
                past_key_values=None):
        n = input_ids.shape[1]
        past = 0 if past_key_values is None else past_key_values[0][0].size(-2)
        if position_ids is None:
            position_ids = torch.arange(past, past + n, dtype=torch.long)[None, :]
        ext = None
        if attention_mask is not None:  # [B, past + n] -> additive [B, 1, 1, past + n]
            ext = extended_attention_mask(attention_mask)
        x = self.wte(input_ids) + self.wpe(position_ids)
        hidden, attn, presents = [], [], []
        for i, block in enumerate(self.h):
            hidden.append(x)
            x, present, w = block(x, ext, None if past_key_values is None else past_key_values[i])
            presents.append(present)
            attn.append(w)
        x = self.ln_f(x)
        hidden.append(x)
        return {"last_hidden_state": x, "hidden_states": hidden, "attentions": attn,
                "past_key_values": presents}


class GPT2LMHeadModel(nn.Module):
    """GPT2LMHeadModel: `transformer.` + lm_head (no bias) tied to wte; lm_head.weight not saved."""
    tied = {"lm_head.weight": "transformer.wte.weight"}

    def __init__(self, c, legacy_buffers=False):
        super().__init__()
        self.config = c
        self.transformer = GPT2Model(c, legacy_buffers)
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None,
                past_key_values=None):
        out = self.transformer(input_ids, attention_mask, None, position_ids, past_key_values)
        out["logits"] = self.lm_head(out["last_hidden_state"])
        return out


# ---------------------------------------------------------------------------------------------
# Building, saving and loading with HF's tensor names
# ---------------------------------------------------------------------------------------------
ARCHITECTURES = {
    "BertModel": BertModelTop,
    "BertForMaskedLM": BertForMaskedLM,
    "BertForPreTraining": BertForPreTraining,
    "RobertaForMaskedLM": RobertaForMaskedLM,
    "DistilBertForMaskedLM": DistilBertForMaskedLM,
    "BertForSequenceClassification": BertForSequenceClassification,
    "RobertaForSequenceClassification": RobertaForSequenceClassification,
    "DistilBertForSequenceClassification": DistilBertForSequenceClassification,
    "GPT2LMHeadModel": GPT2LMHeadModel,
    "GPT2Model": GPT2Model,
}


def build_model(cfg, **kwargs):
    """A reference model for a config.json dict, in eval mode (weights uninitialised)."""
    arch = (cfg.get("architectures") or [None])[0]
    if arch not in ARCHITECTURES:
        raise ValueError(f"architecture {arch!r} not supported (have {sorted(ARCHITECTURES)})")
    return ARCHITECTURES[arch](config_namespace(cfg), **kwargs).eval()


def hf_state_dict(model):
    """The tensors save_pretrained writes: state_dict() minus the tied aliases (the decoder /
    lm_head weights and linked biases) and minus non-persistent buffers."""
    sd = model.state_dict()
    return {k: v for k, v in sd.items() if k not in getattr(model, "tied", {})}


# Buffers HF ignores on load, as its _keys_to_ignore_on_load_* patterns (GPT2: r"h\.\d+\.attn\.bias",
# r"h\.\d+\.attn\.masked_bias"; BERT: position_ids). Whole name parts: "h.0.attn.c_attn.bias" is a
# parameter, not the causal-mask buffer "h.0.attn.bias".
IGNORED_ON_LOAD = re.compile(r"(^|\.)(h\.\d+\.attn\.(bias|masked_bias)|position_ids)$")


def load_hf_state_dict(model, tensors, ignore=IGNORED_ON_LOAD):
    """Loads HF-named tensors (any float dtype is converted to float32). Buffers HF ignores on load
    are skipped; tied aliases may be absent; anything else missing or unexpected is an error."""
    own = model.state_dict()
    tied = getattr(model, "tied", {})
    skip = lambda k: ignore.search(k) is not None  # noqa: E731
    missing = [k for k in own if k not in tensors and k not in tied and not skip(k)]
    unexpected = [k for k in tensors if k not in own and not skip(k)]
    if missing or unexpected:
        raise KeyError(f"missing {missing}, unexpected {unexpected}")
    with torch.no_grad():
        for k, t in tensors.items():
            if k in own and not skip(k):
                if tuple(own[k].shape) != tuple(t.shape):
                    raise ValueError(f"{k}: expected shape {tuple(own[k].shape)}, file has {tuple(t.shape)}")
                own[k].copy_(t.to(own[k].dtype))
    return model


def mean_pool_normalize(last_hidden_state, attention_mask):
    """sentence-transformers Pooling(mean) + Normalize: mean over tokens with mask 1, then L2."""
    m = attention_mask.to(last_hidden_state.dtype).unsqueeze(-1)
    summed = (last_hidden_state * m).sum(dim=1)
    counts = m.sum(dim=1).clamp(min=1e-9)
    return F.normalize(summed / counts, p=2, dim=1)


# ---------------------------------------------------------------------------------------------
# pipelines/text_classification.py: TextClassificationPipeline.postprocess
# ---------------------------------------------------------------------------------------------
def classification_function(c):
    """The pipeline's default function_to_apply, in its order: regression -> none; multi-label or
    a single label -> sigmoid; single-label or several labels -> softmax."""
    if c.problem_type == "regression":
        return "none"
    if c.problem_type == "multi_label_classification" or c.num_labels == 1:
        return "sigmoid"
    if c.problem_type == "single_label_classification" or c.num_labels > 1:
        return "softmax"
    return "none"


def classification_scores(logits, function_to_apply):
    """One item's scores [num_labels] in float64, as the pipeline computes them with numpy on the
    float32 logits (softmax shifted by the max)."""
    x = logits.double()
    if function_to_apply == "sigmoid":
        return 1.0 / (1.0 + torch.exp(-x))
    if function_to_apply == "softmax":
        e = torch.exp(x - x.max())
        return e / e.sum()
    if function_to_apply == "none":
        return x
    raise ValueError(f"unrecognized function_to_apply {function_to_apply!r}")


def classification_top_k(c, logits, top_k=1, function_to_apply=None):
    """[{label, score}] sorted by score (a stable sort: equal scores keep label order), the first
    top_k (None: all), labels from id2label."""
    scores = classification_scores(logits, function_to_apply or classification_function(c))
    ranked = sorted(({"label": c.id2label[i], "score": float(s)} for i, s in enumerate(scores)),
                    key=lambda e: e["score"], reverse=True)
    return ranked if top_k is None else ranked[:top_k]
