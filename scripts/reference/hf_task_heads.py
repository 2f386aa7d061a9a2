"""From-spec PyTorch reference of Hugging Face's per-token heads and of XLM-RoBERTa.

Written after reading transformers' modeling_bert.py, modeling_roberta.py, modeling_distilbert.py
and modeling_xlm_roberta.py (learned from, not copied). Importing this module adds the classes to
hf_reference.ARCHITECTURES, so hf_reference.build_model builds them from a config.json.

  * ...ForTokenClassification: the base model without a pooler, dropout (identity in eval), then
    `classifier` nn.Linear(hidden, num_labels) on every token -> "token_logits" [B, n, num_labels].
  * ...ForQuestionAnswering: the base model without a pooler, `qa_outputs` nn.Linear(hidden,
    num_labels) on every token, split into start / end logits (num_labels must be 2 for the split
    to give two tensors) -> "start_logits", "end_logits" [B, n].
  * XLM-RoBERTa: modeling_xlm_roberta.py is RoBERTa's code under XLMRoberta* names, with the
    same `roberta.` prefix and the same heads.
"""
import torch.nn as nn

import hf_reference as ref


def _base(kind, c):
    """The base model of each family, as the heads below hold it (no pooler)."""
    if kind == "bert":
        return "bert", ref.BertModel(c, add_pooling_layer=False)
    if kind == "roberta":
        return "roberta", ref.BertModel(c, add_pooling_layer=False, embeddings=ref.RobertaEmbeddings(c))
    return "distilbert", ref.DistilBertModel(c)


def _hidden_size(c):
    return getattr(c, "dim", None) or c.hidden_size


class _TokenHead(nn.Module):
    tied = {}
    family = "bert"

    def __init__(self, c):
        super().__init__()
        self.config = c
        name, base = _base(self.family, c)
        self.base_name = name
        setattr(self, name, base)

    def encode(self, input_ids, attention_mask, token_type_ids, position_ids):
        base = getattr(self, self.base_name)
        if self.base_name == "distilbert":  # DistilBertModel takes no token types
            return base(input_ids, attention_mask)
        return base(input_ids, attention_mask, token_type_ids, position_ids)


class _ForTokenClassification(_TokenHead):
    """...ForTokenClassification: classifier on every token's last hidden state."""

    def __init__(self, c):
        super().__init__(c)
        self.classifier = nn.Linear(_hidden_size(c), c.num_labels)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.encode(input_ids, attention_mask, token_type_ids, position_ids)
        out["token_logits"] = self.classifier(out["last_hidden_state"])
        return out


class _ForQuestionAnswering(_TokenHead):
    """...ForQuestionAnswering: qa_outputs on every token, split(1, dim=-1) into start and end."""

    def __init__(self, c):
        super().__init__(c)
        self.qa_outputs = nn.Linear(_hidden_size(c), c.num_labels)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        out = self.encode(input_ids, attention_mask, token_type_ids, position_ids)
        logits = self.qa_outputs(out["last_hidden_state"])
        start, end = logits.split(1, dim=-1)
        out["start_logits"] = start.squeeze(-1).contiguous()
        out["end_logits"] = end.squeeze(-1).contiguous()
        return out


def _family(cls, family):
    return type(cls.__name__, (cls,), {"family": family})


BertForTokenClassification = _family(_ForTokenClassification, "bert")
RobertaForTokenClassification = _family(_ForTokenClassification, "roberta")
DistilBertForTokenClassification = _family(_ForTokenClassification, "distilbert")
BertForQuestionAnswering = _family(_ForQuestionAnswering, "bert")
RobertaForQuestionAnswering = _family(_ForQuestionAnswering, "roberta")
DistilBertForQuestionAnswering = _family(_ForQuestionAnswering, "distilbert")

ref.ARCHITECTURES.update({
    "BertForTokenClassification": BertForTokenClassification,
    "RobertaForTokenClassification": RobertaForTokenClassification,
    "DistilBertForTokenClassification": DistilBertForTokenClassification,
    "BertForQuestionAnswering": BertForQuestionAnswering,
    "RobertaForQuestionAnswering": RobertaForQuestionAnswering,
    "DistilBertForQuestionAnswering": DistilBertForQuestionAnswering,
    # modeling_xlm_roberta.py: RoBERTa's modules (XLMRobertaEmbeddings = RobertaEmbeddings, ...).
    "XLMRobertaForSequenceClassification": ref.RobertaForSequenceClassification,
    "XLMRobertaForTokenClassification": RobertaForTokenClassification,
    "XLMRobertaForQuestionAnswering": RobertaForQuestionAnswering,
    "XLMRobertaForMaskedLM": ref.RobertaForMaskedLM,
})
