"""From-spec reference of Hugging Face's task pipelines' pre- and post-processing (transformers
4.46's pipelines/token_classification.py, question_answering.py, zero_shot_classification.py)
and of sentence-transformers' CrossEncoder.rank, after reading them (learned from, not copied).

numpy is not on this machine: the pipelines' numpy float32 arithmetic is done with torch float32
tensors, in the same order (softmax shifted by the row max, exp, divide by the sum).

Tokenizer facts come in as plain data (hf_offsets.py gives content tokens with offsets and word
ids); `decode_tokens` is the tokenizer.json decoder the pipelines reach through
convert_tokens_to_string.
"""
import torch

import hf_tokenizers as tk


# ---------------------------------------------------------------------------------------------
# tokenizers' decoders (convert_tokens_to_string of a fast tokenizer = decoder.decode(tokens))
# ---------------------------------------------------------------------------------------------
CLEANUP = [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
           (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]


def decode_tokens(kind, tokens):
    """WordPiece (prefix ##, cleanup): token i > 0 loses its ## or gains a leading space, each
    token is cleaned up on its own (the first keeps its ##). ByteLevel: the tokens' bytes as
    UTF-8 (a token with another character: its own UTF-8). Metaspace (prepend_scheme always): ▁ -> space, the first token's leading ▁ dropped."""
    if kind == "wordpiece":
        out = []
        for i, t in enumerate(tokens):
            if i:
                t = t[2:] if t.startswith("##") else " " + t
            for a, b in CLEANUP:
                t = t.replace(a, b)
            out.append(t)
        return "".join(out)
    if kind in ("roberta", "gpt2"):
        # A token with a character outside the byte alphabet (an already decoded word, as
        # group_sub_entities passes them) stands for its own UTF-8 bytes.
        inv = {c: b for b, c in tk.BYTE_CHAR.items()}
        data = b"".join(bytes(inv[c] for c in t) if all(c in inv for c in t) else t.encode("utf-8") for t in tokens)
        return data.decode("utf-8", errors="replace")
    out = []
    for i, t in enumerate(tokens):
        s = t.replace(tk.SP, " ")
        out.append(s[1:] if i == 0 and t.startswith(tk.SP) else s)
    return "".join(out)


def softmax_f32(x):
    """numpy's shifted softmax on float32 rows: exp(x - max) / sum."""
    x = x.float()
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)


# ---------------------------------------------------------------------------------------------
# pipelines/token_classification.py
# ---------------------------------------------------------------------------------------------
def _subword(kind, sentence, word, start, end, has_prefix):
    """gather_pre_entities: with a continuing_subword_prefix (WordPiece) a token is a subword when
    its text differs in length from its span; otherwise the fallback heuristic: it does not start
    the text and neither it nor the character before it is a space."""
    if has_prefix:
        return len(word) != len(sentence[start:end])
    return start > 0 and " " not in sentence[start - 1:start + 1]


def token_classification(sentence, enc, logits, id2label, kind, aggregation="none", ignore_labels=("O",),
                         unk_id=None):
    """enc: the encoding with specials (tokens, ids, offsets, special: bool per token); logits
    [n, L] float32. Returns the pipeline's entities (entity or entity_group, score, word, start,
    end, and index for 'none')."""
    scores = softmax_f32(logits)
    has_prefix = kind == "wordpiece"
    pre = []
    for i, tok in enumerate(enc["tokens"]):
        if enc["special"][i]:
            continue
        start, end = enc["offsets"][i]
        word = tok
        is_sub = _subword(kind, sentence, word, start, end, has_prefix)
        if enc["ids"][i] == unk_id:
            word, is_sub = sentence[start:end], False
        pre.append({"word": word, "scores": scores[i], "start": start, "end": end, "index": i, "is_subword": is_sub})
    if aggregation in ("none", "simple"):
        entities = []
        for p in pre:
            k = int(p["scores"].argmax())
            entities.append({"entity": id2label[k], "score": float(p["scores"][k]), "index": p["index"],
                             "word": p["word"], "start": p["start"], "end": p["end"]})
    else:
        entities = _aggregate_words(pre, aggregation, id2label, kind)
    if aggregation != "none":
        entities = _group_entities(entities, kind)
    return [e for e in entities if e.get("entity") not in ignore_labels and e.get("entity_group") not in ignore_labels]


def _aggregate_word(group, aggregation, id2label, kind):
    word = decode_tokens(kind, [e["word"] for e in group])
    if aggregation == "first":
        s = group[0]["scores"]
        k = int(s.argmax())
        score = float(s[k])
    elif aggregation == "max":
        best = group[0]
        for e in group[1:]:  # max(): the first of equal maxima
            if float(e["scores"].max()) > float(best["scores"].max()):
                best = e
        k = int(best["scores"].argmax())
        score = float(best["scores"][k])
    else:  # average: nanmean over the word's tokens, then argmax
        avg = torch.stack([e["scores"] for e in group]).mean(dim=0)
        k = int(avg.argmax())
        score = float(avg[k])
    return {"entity": id2label[k], "score": score, "word": word, "start": group[0]["start"], "end": group[-1]["end"]}


def _aggregate_words(pre, aggregation, id2label, kind):
    words, group = [], None
    for e in pre:
        if group is None:
            group = [e]
        elif e["is_subword"]:
            group.append(e)
        else:
            words.append(_aggregate_word(group, aggregation, id2label, kind))
            group = [e]
    if group is not None:
        words.append(_aggregate_word(group, aggregation, id2label, kind))
    return words


def _tag(name):
    if name.startswith("B-"):
        return "B", name[2:]
    if name.startswith("I-"):
        return "I", name[2:]
    return "I", name  # not in B-/I- form: a continuation


def _group_sub_entities(group, kind):
    scores = torch.tensor([e["score"] for e in group], dtype=torch.float32)
    return {"entity_group": group[0]["entity"].split("-")[-1], "score": float(scores.mean()),
            "word": decode_tokens(kind, [e["word"] for e in group]), "start": group[0]["start"], "end": group[-1]["end"]}


def _group_entities(entities, kind):
    groups, current = [], []
    for e in entities:
        if not current:
            current.append(e)
            continue
        bi, tag = _tag(e["entity"])
        _, last_tag = _tag(current[-1]["entity"])
        if tag == last_tag and bi != "B":
            current.append(e)
        else:
            groups.append(_group_sub_entities(current, kind))
            current = [e]
    if current:
        groups.append(_group_sub_entities(current, kind))
    return groups


def text_windows(c, template, max_length, stride):
    """The overflowing encodings of tokenizer(text, truncation=True, max_length, stride,
    return_overflowing_tokens=True) (the pipeline's `stride`): the text's content tokens c cut in
    windows of room = max_length - specials, each starting room - stride after the last, the last
    one reaching the end (Encoding.truncate); each window through the single-text template."""
    room = max_length - len(template(_empty())["tokens"])
    if len(c["ids"]) <= room:
        return [template(c)]
    if stride >= room:
        raise ValueError(f"stride {stride} must be strictly less than max_len {room}")
    windows, start = [], 0
    while True:
        stop = min(start + room, len(c["ids"]))
        windows.append(template(_slice(c, start, stop)))
        if stop == len(c["ids"]):
            return windows
        start += room - stride


def aggregate_overlapping_entities(entities):
    """postprocess over several chunks: sorted by start; an entity starting inside the one kept
    before it replaces it when longer, or as long with a higher score."""
    if not entities:
        return entities
    entities = sorted(entities, key=lambda e: e["start"])
    out, previous = [], entities[0]
    for e in entities:
        if previous["start"] <= e["start"] < previous["end"]:
            length, previous_length = e["end"] - e["start"], previous["end"] - previous["start"]
            if length > previous_length or (length == previous_length and e["score"] > previous["score"]):
                previous = e
        else:
            out.append(previous)
            previous = e
    out.append(previous)
    return out


# ---------------------------------------------------------------------------------------------
# pipelines/question_answering.py (fast tokenizer, question first, padding on the right)
# ---------------------------------------------------------------------------------------------
def qa_windows(q, c, template, max_seq_len, doc_stride):
    """The overflowing encodings of tokenizer(question, context, truncation='only_second',
    max_length, stride, return_overflowing_tokens=True): the context's tokens cut in windows of
    room = max_seq_len - len(question) - specials, each starting room - stride after the last,
    the last one reaching the end (Encoding.truncate); question + window through the template.
    template(q_part, c_part) -> {tokens, ids, type_ids, sequence_ids, offsets, words}."""
    n_specials = len(template(_empty(), _empty())["tokens"])
    total = n_specials + len(q["ids"]) + len(c["ids"])
    if total <= max_seq_len:
        return [template(q, c)]
    to_remove = total - max_seq_len
    if len(c["ids"]) <= to_remove:
        raise ValueError("SequenceTooShort: the question leaves no room for the context")
    room = len(c["ids"]) - to_remove
    if doc_stride >= room:
        raise ValueError(f"stride {doc_stride} must be strictly less than max_len {room}")
    windows, start = [], 0
    while True:
        stop = min(start + room, len(c["ids"]))
        windows.append(template(q, _slice(c, start, stop)))
        if stop == len(c["ids"]):
            return windows
        start += room - doc_stride


def _empty():
    return {"tokens": [], "ids": [], "offsets": [], "words": []}


def _slice(e, a, b):
    return {k: v[a:b] for k, v in e.items()}


def p_mask(window, cls_id):
    """1 where a token cannot be in the answer: every token whose sequence id is not 1 (the
    question, the special tokens), except the CLS token(s)."""
    return [0 if (s == 1 or i == cls_id) else 1 for s, i in zip(window["sequence_ids"], window["ids"])]


def select_starts_ends(start, end, pmask, top_k, handle_impossible, max_answer_len, min_null):
    """select_starts_ends + decode_spans for one window of real tokens (no padding): start/end
    float32 [n]. Returns (starts, ends, scores, min_null)."""
    n = start.shape[0]
    desired = torch.tensor([1 - p for p in pmask])  # & attention_mask: all real here
    undesired_mask = desired == 0
    start = torch.where(undesired_mask, torch.tensor(-10000.0), start.float())
    end = torch.where(undesired_mask, torch.tensor(-10000.0), end.float())
    start = torch.exp(start - start.max())
    start = start / start.sum()
    end = torch.exp(end - end.max())
    end = end / end.sum()
    if handle_impossible:
        min_null = min(min_null, float(start[0] * end[0]))
    start[0] = 0.0
    end[0] = 0.0
    outer = start[:, None] * end[None, :]  # [n, n] float32 (matmul of [n,1] and [1,n])
    cand = torch.tril(torch.triu(outer), max_answer_len - 1)
    flat = cand.flatten()
    # argmax for top_k 1; otherwise the top_k by score. Ties between equal scores (the zeros
    # outside the band) have no defined order in numpy; the fixtures keep them out of the top_k.
    if top_k == 1:
        order = [int(flat.argmax())]
    else:
        order = sorted(range(flat.numel()), key=lambda i: (-float(flat[i]), i))[:min(top_k, flat.numel())]
    # np.isin(starts, undesired_tokens.nonzero()): the nonzero() of the [1, n] mask is (row
    # indices, column indices), so index 0 (every row index) always passes.
    allowed = {0} | {i for i in range(n) if desired[i]} if bool(desired.any()) else set()
    keep = [i for i in order if i // n in allowed and i % n in allowed]
    return [i // n for i in keep], [i % n for i in keep], [float(cand[i // n, i % n]) for i in keep], min_null


def word_span(window, s, e):
    """get_indices(align_to_words=True): the characters of the words of tokens s and e (word_to_chars
    in the context: the first token of the word's start to its last token's end)."""
    ws, we = window["words"][s], window["words"][e]
    if ws is None or we is None:
        return window["offsets"][s][0], window["offsets"][e][1]
    starts = [o[0] for o, w, q in zip(window["offsets"], window["words"], window["sequence_ids"]) if w == ws and q == 1]
    ends = [o[1] for o, w, q in zip(window["offsets"], window["words"], window["sequence_ids"]) if w == we and q == 1]
    return starts[0], ends[-1]


def question_answering(context, windows, logits, cls_id, top_k=1, handle_impossible=False, max_answer_len=15):
    """postprocess over every window: logits[w] = (start [n_w], end [n_w]). Answers with the same
    text (case-insensitive) add their scores; sorted by score (stable), the first top_k."""
    min_null = 1000000.0
    answers = []
    pre_topk = top_k * 2 + 10  # align_to_words: some candidates may be dropped
    for w, (start, end) in zip(windows, logits):
        starts, ends, scores, min_null = select_starts_ends(start, end, p_mask(w, cls_id), pre_topk, handle_impossible,
                                                            max_answer_len, min_null)
        for s, e, score in zip(starts, ends, scores):
            a, b = word_span(w, s, e)
            text = context[a:b]
            same = next((x for x in answers if x["answer"].lower() == text.lower()), None)
            if same:
                same["score"] += score
            else:
                answers.append({"score": score, "start": a, "end": b, "answer": text})
    if handle_impossible:
        answers.append({"score": min_null, "start": 0, "end": 0, "answer": ""})
    return sorted(answers, key=lambda x: x["score"], reverse=True)[:top_k]


# ---------------------------------------------------------------------------------------------
# pipelines/zero_shot_classification.py and sentence-transformers CrossEncoder
# ---------------------------------------------------------------------------------------------
def entailment_id(label2id):
    """The first label (in label2id's order) starting with 'entail', case-insensitive; -1 if none."""
    for label, i in label2id.items():
        if label.lower().startswith("entail"):
            return i
    return -1


def zero_shot(logits, labels, label2id, multi_label=False):
    """logits [n_labels, num_classes] (one row per candidate label's [text, hypothesis] pair)."""
    ent = entailment_id(label2id)
    if multi_label or len(labels) == 1:
        contra = -1 if ent == 0 else 0
        pair = logits[:, [contra, ent]].float()
        e = torch.exp(pair)
        scores = (e / e.sum(-1, keepdim=True))[:, 1]
    else:
        x = logits[:, ent].float()
        e = torch.exp(x)
        scores = e / e.sum()
    order = list(reversed(torch.argsort(scores, stable=True).tolist()))
    return {"labels": [labels[i] for i in order], "scores": [float(scores[i]) for i in order]}


def rerank(logits, top_k=None):
    """CrossEncoder.rank: sigmoid of the one logit per [query, document] pair (its default
    activation for one label), documents sorted by score, highest first."""
    scores = torch.sigmoid(logits.float().reshape(-1))
    ranked = sorted(({"index": i, "score": float(s)} for i, s in enumerate(scores)), key=lambda r: r["score"],
                    reverse=True)
    return ranked if top_k is None else ranked[:top_k]


# ---------------------------------------------------------------------------------------------
# Attention rollout (Abnar & Zuidema 2020): what a classifier's deciding position reaches
# ---------------------------------------------------------------------------------------------
def attention_rollout(attentions, b, n):
    """attentions: per layer [B, heads, N, N] (a batch's weights); row b cropped to its n real
    tokens. Each layer mixes as 0.5 * mean over heads + 0.5 * I (the residual); R = A_L ... A_1,
    in float64. Returns R [n, n]."""
    r = None
    for a in attentions:
        mixed = 0.5 * a[b, :, :n, :n].double().mean(dim=0) + 0.5 * torch.eye(n, dtype=torch.float64)
        r = mixed if r is None else mixed @ r
    return r
