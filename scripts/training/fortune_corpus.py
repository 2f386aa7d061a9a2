"""The text corpus and the two vocabularies of the demo's text models (Debian `fortunes`).

  load_fortunes()            every fortune as one line, split train / dev / test by CRC32
  Gpt2Vocab.train(texts, n)  byte-level BPE merges learned from the training fortunes
  wordpiece_vocab(texts, n)  WordPiece vocabulary: characters, frequent words, frequent endings

Both encoders below use hf_tokenizers' independent oracles (the same algorithms the npm
tokenizers package runs on the tokenizer.json we write), with a per-word cache so encoding the
whole corpus takes seconds.
"""
import heapq
import os
import zlib
from collections import defaultdict

import hf_tokenizers as tk

FORTUNES = "/usr/share/games/fortunes"
SKIP = {"ascii-art"}  # pictures, not text
MIN_CHARS = 20


def clean(entry):
    """One fortune as plain text: overstrikes ("_\\bx" -> "x") removed, whitespace collapsed."""
    t = entry.replace("\r", "")
    while "\b" in t:
        i = t.index("\b")
        t = t[:max(0, i - 1)] + t[i + 1:]
    return " ".join(t.split())


def load_fortunes():
    """(train, dev, test): every ASCII fortune of >= 20 characters, deduplicated and sorted. By
    CRC32 of the text, 1 in 20 is the test set (reported in metrics.json) and another 1 in 20 the
    dev set (only watched during training, to choose the recipe)."""
    texts = set()
    for name in sorted(os.listdir(FORTUNES)):
        path = os.path.join(FORTUNES, name)
        if "." in name or name in SKIP or not os.path.isfile(path):
            continue
        with open(path, encoding="latin-1") as f:
            for entry in f.read().split("\n%\n"):
                t = clean(entry)
                if len(t) >= MIN_CHARS and all(32 <= ord(c) < 127 for c in t):
                    texts.add(t)
    split = {0: [], 1: [], 2: []}
    for t in sorted(texts):
        r = zlib.crc32(t.encode()) % 20
        split[r if r < 2 else 2].append(t)
    return split[2], split[1], split[0]


# ---------------------------------------------------------------------------------------------
# Byte-level BPE (GPT-2)
# ---------------------------------------------------------------------------------------------
def train_bpe_fast(word_counts, n_merges):
    """The merges of hf_tokenizers.train_bpe (most frequent pair, ties -> smallest pair), with
    incremental pair counts and a lazy max-heap so a few thousand merges take seconds."""
    words = [[tk.BYTE_CHAR[b] for b in w.encode("utf-8")] for w in word_counts]
    freqs = list(word_counts.values())
    counts, where = defaultdict(int), defaultdict(set)
    for i, syms in enumerate(words):
        for p in zip(syms, syms[1:]):
            counts[p] += freqs[i]
            where[p].add(i)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while heap and len(merges) < n_merges:
        c, best = heapq.heappop(heap)
        if counts.get(best, 0) != -c or c == 0:
            continue  # stale entry
        merges.append(best)
        changed = set()
        for i in sorted(where.pop(best)):
            syms, f = words[i], freqs[i]
            for p in zip(syms, syms[1:]):
                counts[p] -= f
                changed.add(p)
            out, j = [], 0
            while j < len(syms):
                if j + 1 < len(syms) and (syms[j], syms[j + 1]) == best:
                    out.append(syms[j] + syms[j + 1])
                    j += 2
                else:
                    out.append(syms[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                counts[p] += f
                where[p].add(i)
                changed.add(p)
        counts.pop(best, None)
        for p in changed:
            if counts.get(p, 0) > 0:
                heapq.heappush(heap, (-counts[p], p))
    return merges


class Gpt2Vocab:
    """256 byte symbols, the learned merges, then <|endoftext|> (the last id, as in GPT-2)."""
    EOT = "<|endoftext|>"

    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.eot = len(vocab) - 1
        self._oracle = tk.ByteBPEOracle(vocab, merges, [self.EOT])
        self._cache = {}
        self._byte = {c: b for b, c in tk.BYTE_CHAR.items()}

    @classmethod
    def train(cls, texts, size):
        counts = defaultdict(int)
        for t in texts:
            for pre in tk.gpt2_pre_tokenize(t):
                counts[pre] += 1
        merges = train_bpe_fast(dict(sorted(counts.items())), size - 256 - 1)
        vocab = tk.byte_bpe_vocab(merges, tail=[cls.EOT])
        assert len(vocab) == size, (len(vocab), size)
        return cls(vocab, merges)

    def encode(self, text):
        ids = []
        for pre in tk.gpt2_pre_tokenize(text):
            if pre not in self._cache:
                self._cache[pre] = [self._oracle.vocab[s] for s in self._oracle.bpe(pre)]
            ids.extend(self._cache[pre])
        return ids

    def decode(self, ids):
        raw = bytes(self._byte[ch] for i in ids if i != self.eot for ch in self.vocab[i])
        return raw.decode("utf-8", "replace")

    def tokenizer_json(self):
        return tk.byte_bpe_tokenizer_json(self.vocab, self.merges, "gpt2")


# ---------------------------------------------------------------------------------------------
# WordPiece (BERT)
# ---------------------------------------------------------------------------------------------
class BertVocab:
    """[PAD] [UNK] [CLS] [SEP] [MASK] (ids 0-4, BERT's order), every character seen (plain and ##
    form), the most frequent words, then the most frequent word endings as ## pieces."""
    PAD, UNK, CLS, SEP, MASK = range(5)
    N_SPECIAL = 5

    def __init__(self, vocab):
        self.vocab = vocab
        self._oracle = tk.WordPieceOracle(vocab)
        self._cache = {}

    @classmethod
    def train(cls, texts, size):
        words = defaultdict(int)
        for t in texts:
            for w in tk.bert_pre_tokenize(tk.bert_normalize(t)):
                words[w] += 1
        chars = sorted({c for w in words for c in w})
        base = tk.BERT_SPECIALS + chars + ["##" + c for c in chars]
        ranked = sorted(words, key=lambda w: (-words[w], w))
        n_words = (size - len(base)) * 3 // 4
        top = [w for w in ranked if len(w) > 1][:n_words]
        chosen = set(top)
        endings = defaultdict(int)
        for w, c in words.items():
            if w not in chosen and len(w) > 3:
                for k in range(2, min(6, len(w) - 1) + 1):
                    endings["##" + w[-k:]] += c
        ends = sorted(endings, key=lambda e: (-endings[e], e))[:size - len(base) - len(top)]
        vocab = tk._dedupe(base + top + ends)[:size]
        assert vocab[:5] == tk.BERT_SPECIALS and len(vocab) == size, len(vocab)
        return cls(vocab)

    def pieces(self, text):
        """Word-piece ids of the text, without [CLS]/[SEP]."""
        ids = []
        for w in tk.bert_pre_tokenize(tk.bert_normalize(text)):
            if w not in self._cache:
                self._cache[w] = [self._oracle.vocab[p] for p in self._oracle.word_pieces(w)]
            ids.extend(self._cache[w])
        return ids

    def encode(self, text):
        """As the tokenizer.json encodes it: [CLS] pieces [SEP] (mask tokens in the text kept)."""
        return self._oracle.encode(text)

    def tokenizer_json(self):
        return tk.wordpiece_tokenizer_json(self.vocab)
