"""Character offsets and word ids for the fixture tokenizers' oracles (hf_tokenizers.py), as the
Rust `tokenizers` library reports them in an Encoding: offsets [start, end) into the original
text (Python str indices: code points; the fixture texts stay in the BMP, where they equal JS's
UTF-16 indices), and word ids = the index of the pre-tokenizer's split a token came from.

Written from the library's documented behaviour, not from its code:
  * WordPiece (BertNormalizer + BertPreTokenizer): each normalized character keeps the position
    of the original character it came from; a word is a whitespace-separated run or one
    punctuation character; a piece spans its characters; [UNK] spans its whole word.
  * Byte-level BPE (RoBERTa, trim_offsets): a pre-token is a substring of the text (the GPT-2
    pattern covers every character); a token spans the characters its bytes belong to, minus
    leading and trailing spaces (trim_offsets counts only the space symbol).
  * Unigram (Metaspace after WhitespaceSplit): each whitespace-separated word is one word; the
    prepended ▁ takes the position of the word's first character.
Content tokens only: the special tokens a post-processor adds get offsets (0, 0) and no word.
"""
import unicodedata

import hf_tokenizers as tk


def _normalized_chars(text):
    """BertNormalizer per original character: [(normalized char, original index)]."""
    out = []
    for i, ch in enumerate(text):
        for c in tk.bert_normalize(ch):
            out.append((c, i))
    return out


def _bert_words(chars):
    """BertPreTokenizer over (char, origin) pairs: whitespace splits, punctuation stands alone."""
    words, cur = [], []
    for c, i in chars:
        if tk._is_whitespace(c):
            if cur:
                words.append(cur)
            cur = []
        elif tk._is_punct(c):
            if cur:
                words.append(cur)
            words.append([(c, i)])
            cur = []
        else:
            cur.append((c, i))
    if cur:
        words.append(cur)
    return words


def wordpiece_content(oracle, text):
    """{tokens, ids, offsets, words} of one text without special tokens."""
    tokens, offsets, words = [], [], []
    for w, word in enumerate(_bert_words(_normalized_chars(text))):
        s = "".join(c for c, _ in word)
        pieces = oracle.word_pieces(s)
        if pieces == [oracle.unk]:
            spans = [(0, len(word))]
        else:
            spans, at = [], 0
            for p in pieces:
                n = len(p) - 2 if p.startswith("##") and at > 0 else len(p)
                spans.append((at, at + n))
                at += n
        for p, (a, b) in zip(pieces, spans):
            tokens.append(p)
            offsets.append((word[a][1], word[b - 1][1] + 1))
            words.append(w)
    return {"tokens": tokens, "ids": [oracle.vocab[t] for t in tokens], "offsets": offsets, "words": words}


SPACE_SYMBOL = tk.BYTE_CHAR[ord(" ")]


def bytebpe_content(oracle, text):
    """{tokens, ids, offsets, words} of one text without special tokens (trim_offsets)."""
    tokens, offsets, words = [], [], []
    at = 0
    for w, piece in enumerate(tk.gpt2_pre_tokenize(text)):
        char_of_byte = [k for k, ch in enumerate(piece) for _ in ch.encode("utf-8")]
        b = 0
        for t in oracle.bpe(piece):
            n = len(t)  # one symbol per byte
            start, end = char_of_byte[b], char_of_byte[b + n - 1] + 1
            lead = len(t) - len(t.lstrip(SPACE_SYMBOL))
            trail = len(t) - len(t.rstrip(SPACE_SYMBOL))
            start = min(start + lead, end)  # ByteLevel.process_offsets: leading, then trailing
            if trail and end >= trail:
                end = max(end - trail, start)
            tokens.append(t)
            offsets.append((at + start, at + end))
            words.append(w)
            b += n
        at += len(piece)
    return {"tokens": tokens, "ids": [oracle.vocab[t] for t in tokens], "offsets": offsets, "words": words}


def unigram_content(oracle, text):
    """{tokens, ids, offsets, words}: NFKC + lowercase (length-preserving on the fixture texts),
    WhitespaceSplit, ▁ + word, Viterbi; a piece spans its characters, ▁ counting as none."""
    norm = unicodedata.normalize("NFKC", text).lower()
    assert len(norm) == len(text), "unigram offsets: the fixture texts keep their length when normalized"
    tokens, offsets, words = [], [], []
    i, w = 0, 0
    while i < len(norm):
        if norm[i].isspace():
            i += 1
            continue
        j = i
        while j < len(norm) and not norm[j].isspace():
            j += 1
        at = i
        pieces = oracle.viterbi(tk.SP + norm[i:j])
        # An unknown piece stands for the characters the known ones leave (one run per word here).
        assert pieces.count(oracle.unk) <= 1, "unigram offsets: one unknown run per word"
        known = sum(len(p) for p in pieces if p != oracle.unk) - 1  # the prepended ▁ is no character
        for p in pieces:
            n = (j - i) - known if p == oracle.unk else len(p) - (1 if p.startswith(tk.SP) else 0)
            tokens.append(p)
            # A lone ▁ (prepended to the word) is aligned with the word's first character.
            offsets.append((at, at + n) if n else (at, at + 1))
            words.append(w)
            at += n
        i, w = j, w + 1
    return {"tokens": tokens, "ids": [oracle.ids[t] for t in tokens], "offsets": offsets, "words": words}


def content(tok, text):
    """The content encoding for a make_hf_fixtures.Tok."""
    if tok.kind in ("wordpiece",):
        return wordpiece_content(tok.oracle, text)
    if tok.kind in ("roberta", "gpt2"):
        return bytebpe_content(tok.oracle, text)
    return unigram_content(tok.oracle, text)
