"""Tiny tokenizers for the Hugging Face fixtures: vocabularies built from hf_words, tokenizer.json
files in the `tokenizers` library's format, and small independent Python oracles.

Three model types, each as Hugging Face ships them:
  * WordPiece (BERT, DistilBERT): BertNormalizer (lowercase, strip accents), BertPreTokenizer,
    `##` continuations, TemplateProcessing [CLS] A [SEP] (B [SEP]).
  * Byte-level BPE (GPT-2, RoBERTa): merges learned here from the weighted word list, GPT-2's
    byte-to-unicode alphabet and pre-tokenization pattern.
  * Unigram (SentencePiece style): NFKC + lowercase, WhitespaceSplit + Metaspace, pieces with
    log-probability scores, Viterbi segmentation.

The oracles (`encode`) implement the algorithms from their descriptions (greedy longest-match
WordPiece, the BPE merge loop by rank, Viterbi over the piece lattice). They never read a
tokenizer.json, so a JS tokenizer that loads those files is checked against a second,
independent implementation. They cover what the fixture texts need (ASCII plus a few accented and
symbol characters), not every corner of Unicode.
"""
import math
import unicodedata

from hf_words import DIGITS, LETTERS, PUNCT, SUFFIXES, WORDS, weighted_words


def _dedupe(tokens):
    seen, out = set(), []
    for t in tokens:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _added(tokens_with_ids, lstrip=()):
    """The `added_tokens` list of tokenizer.json for special tokens."""
    return [{"id": i, "content": t, "single_word": False, "lstrip": t in lstrip, "rstrip": False,
             "normalized": False, "special": True} for t, i in tokens_with_ids]


def _template(cls, sep, cls_id, sep_id):
    """TemplateProcessing as BERT's tokenizer.json has it: [CLS] $A:0 [SEP]:0 / $B:1 [SEP]:1."""
    return {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": sep, "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": sep, "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": sep, "type_id": 1}}],
        "special_tokens": {cls: {"id": cls, "ids": [cls_id], "tokens": [cls]},
                           sep: {"id": sep, "ids": [sep_id], "tokens": [sep]}},
    }


def _split_specials(text, specials, lstrip=()):
    """Splits raw text around special tokens (matched before normalisation, as tokenizers' added
    vocabulary does). Returns [(segment, is_special)]. A token in `lstrip` also swallows the
    whitespace on its left (RoBERTa's <mask>)."""
    out, i, start = [], 0, 0
    ordered = sorted(specials, key=len, reverse=True)
    while i < len(text):
        hit = next((s for s in ordered if text.startswith(s, i)), None)
        if hit is None:
            i += 1
            continue
        seg = text[start:i]
        if hit in lstrip:
            seg = seg.rstrip()
        if seg:
            out.append((seg, False))
        out.append((hit, True))
        i += len(hit)
        start = i
    if text[start:]:
        out.append((text[start:], False))
    return out


# =============================================================================================
# WordPiece (BERT)
# =============================================================================================
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def wordpiece_vocab():
    """Specials, single symbols, ## continuations of every letter and digit, the words, ## endings."""
    toks = BERT_SPECIALS + PUNCT + DIGITS + LETTERS + ["##" + c for c in LETTERS + DIGITS]
    toks += WORDS + ["##" + s for s in SUFFIXES]
    return _dedupe(toks)


def wordpiece_tokenizer_json(vocab):
    ids = {t: i for i, t in enumerate(vocab)}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added([(t, ids[t]) for t in BERT_SPECIALS]),
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": _template("[CLS]", "[SEP]", ids["[CLS]"], ids["[SEP]"]),
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or
            0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or
            0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def bert_normalize(text):
    """BertNormalizer: drop controls, whitespace -> ' ', space around CJK, strip accents, lowercase."""
    out = []
    for ch in text:
        if ord(ch) in (0, 0xFFFD) or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(ord(ch)):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    t = unicodedata.normalize("NFD", "".join(out))
    t = "".join(c for c in t if unicodedata.category(c) != "Mn")
    return t.lower()


def bert_pre_tokenize(text):
    """BertPreTokenizer: split on whitespace, every punctuation character on its own."""
    words, cur = [], ""
    for ch in text:
        if _is_whitespace(ch):
            if cur:
                words.append(cur)
            cur = ""
        elif _is_punct(ch):
            if cur:
                words.append(cur)
            words.append(ch)
            cur = ""
        else:
            cur += ch
    if cur:
        words.append(cur)
    return words


class WordPieceOracle:
    def __init__(self, vocab, unk="[UNK]", max_chars=100):
        self.vocab = {t: i for i, t in enumerate(vocab)}
        self.unk, self.max_chars = unk, max_chars

    def word_pieces(self, word):
        """Greedy longest-match-first; a word with any unmatched remainder becomes [UNK]."""
        if len(word) > self.max_chars:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while end > start:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in self.vocab:
                    found = sub
                    break
                end -= 1
            if found is None:
                return [self.unk]
            pieces.append(found)
            start = end
        return pieces

    def tokens(self, text):
        out = []
        for seg, special in _split_specials(text, BERT_SPECIALS):
            if special:
                out.append(seg)
            else:
                for w in bert_pre_tokenize(bert_normalize(seg)):
                    out.extend(self.word_pieces(w))
        return out

    def encode(self, text, pair=None, max_length=None):
        """[CLS] A [SEP] (B [SEP]); max_length (single texts only) cuts A, keeps the specials."""
        a = self.tokens(text)
        if max_length is not None:
            if pair is not None:
                raise ValueError("the oracle truncates single texts only")
            a = a[:max(0, max_length - 2)]
        toks = ["[CLS]"] + a + ["[SEP]"]
        types = [0] * len(toks)
        if pair is not None:
            b = self.tokens(pair) + ["[SEP]"]
            toks += b
            types += [1] * len(b)
        return {"ids": [self.vocab[t] for t in toks], "tokens": toks, "type_ids": types}


# =============================================================================================
# Byte-level BPE (GPT-2, RoBERTa)
# =============================================================================================
def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character table, in GPT-2's order (printable bytes
    keep their own character; the others are shifted to 256 + k)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    k = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + k)
            k += 1
    return dict(zip(bs, (chr(c) for c in cs)))


BYTE_CHAR = bytes_to_unicode()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]


def _kind(ch):
    if ch.isspace():
        return "S"
    cat = unicodedata.category(ch)
    return "L" if cat.startswith("L") else "N" if cat.startswith("N") else "O"


def gpt2_pre_tokenize(text):
    """The ByteLevel pre-tokenizer's pattern, scanned by hand:
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"""
    out, i, n = [], 0, len(text)
    while i < n:
        c = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
        if c:
            out.append(c)
            i += len(c)
            continue
        j = i + 1 if text[i] == " " and i + 1 < n and _kind(text[i + 1]) != "S" else i
        k = _kind(text[j])
        if k != "S":  # ' ?' + a run of letters, numbers or other symbols
            e = j
            while e < n and _kind(text[e]) == k:
                e += 1
            out.append(text[i:e])
            i = e
            continue
        e = i
        while e < n and text[e].isspace():
            e += 1
        if e == n or e - i == 1:
            out.append(text[i:e])  # \s+ to the end, or a lone whitespace before a word
            i = e
        else:
            out.append(text[i:e - 1])  # \s+(?!\S): leave the last space to the next word
            i = e - 1
    return out


def train_bpe(word_counts, n_merges):
    """Learns merges over byte-level symbols: repeatedly merge the most frequent adjacent pair
    (ties: the lexicographically smallest pair). word_counts: {pre-token string: count}."""
    words = {tuple(BYTE_CHAR[b] for b in w.encode("utf-8")): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = {}
        for syms, c in words.items():
            for a, b in zip(syms, syms[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        new = {}
        for syms, c in words.items():
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == best:
                    out.append(syms[i] + syms[i + 1])
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            new[tuple(out)] = new.get(tuple(out), 0) + c
        words = new
    return merges


def bpe_training_counts():
    """Pre-tokens as GPT-2 sees them in running text: mostly ' word', some 'word' and ' Word'."""
    counts = {}
    for w, c in weighted_words():
        for tok, k in ((" " + w, c), (w, c // 4 + 1), (" " + w.capitalize(), c // 4 + 1)):
            counts[tok] = counts.get(tok, 0) + k
    for p in ".,!?'\"-:;()":
        counts[p] = counts.get(p, 0) + 50
    return counts


def byte_bpe_vocab(merges, head=(), tail=()):
    """head specials, the 256 byte symbols in GPT-2's order, merge results, tail specials."""
    return _dedupe(list(head) + list(BYTE_CHAR.values()) + [a + b for a, b in merges] + list(tail))


def byte_bpe_tokenizer_json(vocab, merges, flavour):
    """flavour 'gpt2': <|endoftext|> last, ByteLevel post-processor, merges as [a, b] pairs (the
    format of tokenizers >= 0.20). flavour 'roberta': <s> <pad> </s> <unk> first, <mask> last,
    RobertaProcessing, merges as "a b" strings (the older format). Both load in tokenizers."""
    ids = {t: i for i, t in enumerate(vocab)}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    if flavour == "gpt2":
        added = _added([("<|endoftext|>", ids["<|endoftext|>"])])
        post = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
        merge_list = [[a, b] for a, b in merges]
    else:
        added = _added([(t, ids[t]) for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")], lstrip=("<mask>",))
        post = {"type": "RobertaProcessing", "sep": ["</s>", ids["</s>"]], "cls": ["<s>", ids["<s>"]],
                "trim_offsets": True, "add_prefix_space": False}
        merge_list = [a + " " + b for a, b in merges]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": ids, "merges": merge_list},
    }


class ByteBPEOracle:
    def __init__(self, vocab, merges, specials, lstrip=()):
        self.vocab = {t: i for i, t in enumerate(vocab)}
        self.ranks = {m: r for r, m in enumerate(merges)}
        self.specials, self.lstrip = list(specials), lstrip

    def bpe(self, pre_token):
        """The merge loop: while some adjacent pair has a rank, merge every occurrence of the
        lowest-ranked pair, left to right."""
        syms = [BYTE_CHAR[b] for b in pre_token.encode("utf-8")]
        while len(syms) > 1:
            ranked = [(self.ranks.get(p, math.inf), p) for p in zip(syms, syms[1:])]
            r, best = min(ranked)
            if r == math.inf:
                break
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == best:
                    out.append(syms[i] + syms[i + 1])
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            syms = out
        return syms

    def tokens(self, text):
        out = []
        for seg, special in _split_specials(text, self.specials, self.lstrip):
            if special:
                out.append(seg)
            else:
                for pre in gpt2_pre_tokenize(seg):
                    out.extend(self.bpe(pre))
        return out

    def encode(self, text, pair=None, bos=None, eos=None, max_length=None):
        """GPT-2: the pieces only (bos/eos None). RoBERTa: <s> A </s> (</s> B </s>)."""
        a = self.tokens(text)
        if max_length is not None:
            a = a[:max(0, max_length - (bos is not None) - (eos is not None))]
        toks = ([bos] if bos else []) + a + ([eos] if eos else [])
        if pair is not None and eos:
            toks += [eos] + self.tokens(pair) + [eos]
        elif pair is not None:  # GPT-2's ByteLevel post-processor only concatenates
            return {"ids": [self.vocab[t] for t in toks + self.tokens(pair)], "tokens": toks + self.tokens(pair)}
        return {"ids": [self.vocab[t] for t in toks], "tokens": toks, "type_ids": [0] * len(toks)}


# =============================================================================================
# Unigram (SentencePiece style, used with a BERT model in the fixtures)
# =============================================================================================
SP = "\u2581"  # ▁, Metaspace's replacement for a space


def unigram_vocab():
    """[(piece, score)]: specials (score 0), then pieces with log-probability scores derived from
    the word weights. A small per-piece offset keeps every score distinct, so no Viterbi tie can
    depend on an implementation's iteration order."""
    weights = {}
    for w, c in weighted_words():
        weights[SP + w] = weights.get(SP + w, 0) + c
    for s in SUFFIXES:
        weights[s] = weights.get(s, 0) + 40
    for ch in LETTERS + DIGITS + PUNCT:
        weights[ch] = weights.get(ch, 0) + 5
        weights[SP + ch] = weights.get(SP + ch, 0) + 3
    weights[SP] = weights.get(SP, 0) + 30
    total = float(sum(weights.values()))
    pieces = sorted(weights, key=lambda p: (-weights[p], p))
    scored = [(p, round(math.log(weights[p] / total) - 1e-4 * k, 6)) for k, p in enumerate(pieces)]
    return [(t, 0.0) for t in BERT_SPECIALS] + scored


def unigram_tokenizer_json(vocab):
    ids = {t: i for i, (t, _) in enumerate(vocab)}
    metaspace = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "always", "split": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added([(t, ids[t]) for t in BERT_SPECIALS]),
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": _template("[CLS]", "[SEP]", ids["[CLS]"], ids["[SEP]"]),
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": ids["[UNK]"], "vocab": [[t, s] for t, s in vocab],
                  "byte_fallback": False},
    }


XLMR_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0-3 as in XLM-RoBERTa; <mask> is the last id


def xlmr_unigram_vocab():
    """XLM-RoBERTa's layout over the Unigram pieces: <s> <pad> </s> <unk>, the pieces, <mask>."""
    pieces = [(t, s) for t, s in unigram_vocab() if t not in BERT_SPECIALS]
    return [(t, 0.0) for t in XLMR_SPECIALS] + pieces + [("<mask>", 0.0)]


def xlmr_unigram_tokenizer_json(vocab):
    """XLM-RoBERTa's tokenizer.json shape: Unigram, Metaspace, <s> A </s> (</s> B </s>) with type
    ids 0. The normalizer is NFKC + Lowercase (the real one is a precompiled NFKC map without
    lowercasing; the fixture's pieces are lowercase words)."""
    ids = {t: i for i, (t, _) in enumerate(vocab)}
    metaspace = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "always", "split": True}
    s, e = {"SpecialToken": {"id": "<s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added([(t, ids[t]) for t in XLMR_SPECIALS + ["<mask>"]], lstrip=("<mask>",)),
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [s, {"Sequence": {"id": "A", "type_id": 0}}, e],
            "pair": [s, {"Sequence": {"id": "A", "type_id": 0}}, e, e, {"Sequence": {"id": "B", "type_id": 0}}, e],
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("<s>", "</s>")},
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": ids["<unk>"], "vocab": [[t, sc] for t, sc in vocab],
                  "byte_fallback": False},
    }


class UnigramOracle:
    def __init__(self, vocab, unk="[UNK]", specials=BERT_SPECIALS):
        self.specials = list(specials)
        self.ids = {t: i for i, (t, _) in enumerate(vocab)}
        self.score = {t: s for t, s in vocab}
        self.unk = unk
        self.unk_score = min(s for _, s in vocab) - 10.0  # tokenizers' kUnkPenalty
        self.max_len = max(len(t) for t, _ in vocab)

    def viterbi(self, s):
        """Best-scoring segmentation; a character no piece starts with becomes [UNK] (one char,
        unk_score); consecutive [UNK]s are fused. Candidates are visited by start position, then
        by length, and replace the best only when strictly better (sentencepiece's order)."""
        n = len(s)
        best = [None] * (n + 1)  # best[e] = (score, start, token)
        best[0] = (0.0, -1, None)
        for start in range(n):
            if best[start] is None:
                continue
            single = False
            for end in range(start + 1, min(n, start + self.max_len) + 1):
                piece = s[start:end]
                if piece in self.ids and piece not in self.specials:
                    single = single or end == start + 1
                    cand = best[start][0] + self.score[piece]
                    if best[end] is None or cand > best[end][0]:
                        best[end] = (cand, start, piece)
            if not single:
                cand = best[start][0] + self.unk_score
                if best[start + 1] is None or cand > best[start + 1][0]:
                    best[start + 1] = (cand, start, self.unk)
        toks, e = [], n
        while e > 0:
            _, st, tok = best[e]
            toks.append(tok)
            e = st
        toks.reverse()
        fused = []
        for t in toks:
            if not (t == self.unk and fused and fused[-1] == self.unk):
                fused.append(t)
        return fused

    def tokens(self, text):
        out = []
        for seg, special in _split_specials(text, self.specials):
            if special:
                out.append(seg)
                continue
            norm = unicodedata.normalize("NFKC", seg).lower()
            for word in norm.split():
                out.extend(self.viterbi(SP + word))
        return out

    def encode(self, text, pair=None, max_length=None):
        """[CLS] A [SEP] (B [SEP]) with type ids 0 / 1; with XLM-R's specials <s> A </s> (</s> B
        </s>), type ids 0."""
        xlmr = self.specials[0] == "<s>"
        a = self.tokens(text)
        if max_length is not None:
            a = a[:max(0, max_length - 2)]
        toks = (["<s>"] + a + ["</s>"]) if xlmr else (["[CLS]"] + a + ["[SEP]"])
        types = [0] * len(toks)
        if pair is not None:
            b = (["</s>"] + self.tokens(pair) + ["</s>"]) if xlmr else (self.tokens(pair) + ["[SEP]"])
            toks += b
            types += [0 if xlmr else 1] * len(b)
        return {"ids": [self.ids[t] for t in toks], "tokens": toks, "type_ids": types}
