// Tokenizers (WordPiece, byte-level BPE, Unigram) against the ids of the independent Python
// oracle in tests/data/hf/<case>/texts.json; Hugging Face truncation (content cut, specials
// kept, longest_first for pairs); padding; offsets; the vocabulary-size check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { SimdformerError } from '../../dist/node.mjs';
import { loadTokenizer, truncatedLengths } from '../../dist/lib/tokenizer.mjs';
import { DATA } from './helpers.mjs';

const HF = join(DATA, 'hf');
const read = (name, file) => JSON.parse(readFileSync(join(HF, name, file), 'utf8'));
const load = (name, limits = {}) => loadTokenizer(read(name, 'tokenizer.json'), read(name, 'tokenizer_config.json'),
  { rows: read(name, 'config.json').vocab_size, maxPositions: 40, ...limits });
const fold = (s) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

const CASES = {
  bert: 'WordPiece', distilbert: 'WordPiece', roberta: 'byte-level BPE', gpt2: 'byte-level BPE', bert_relu_unigram: 'Unigram',
  xlmr_seqcls: 'Unigram',  // XLM-RoBERTa's specials and templates (<s> A </s></s> B </s>, type ids 0)
};

for (const [name, kind] of Object.entries(CASES)) {
  describe(`${name} (${kind})`, async () => {
    const tok = await load(name);
    const expected = read(name, 'texts.json').tokenizer;
    // The oracle lists GPT-2 ids without special tokens (it has none to add).
    const content = (r) => Array.from(r.ids).filter((_, i) => expected.add_special_tokens || r.sequenceIds[i] !== null);

    test('single texts: ids and tokens equal the oracle', () => {
      for (const want of expected.single) {
        const r = tok.encodeOne(want.text, tok.maxLength);
        assert.deepEqual(content(r), want.ids, JSON.stringify(want.text));
        // Unigram keeps an unknown piece's own text with the unk id (as the Rust library does);
        // the oracle writes [UNK] there. The ids above agree either way.
        const unk = (t, i) => (kind === 'Unigram' && want.ids[i] === tok.unkId ? want.tokens[i] : t);
        if (expected.add_special_tokens) assert.deepEqual(r.tokens.map(unk), want.tokens);
        if (want.type_ids) assert.deepEqual(Array.from(r.typeIds), want.type_ids);
        assert.equal(r.truncated, false);
      }
    });

    test('sentence pairs: ids and token_type_ids equal the oracle', { skip: expected.pairs.length === 0 && 'no pair template' }, () => {
      for (const want of expected.pairs) {
        const r = tok.encodeOne([want.text, want.text_pair], tok.maxLength);
        assert.deepEqual(Array.from(r.ids), want.ids);
        if (want.type_ids) assert.deepEqual(Array.from(r.typeIds), want.type_ids);
        assert.deepEqual([...new Set(r.sequenceIds)], [null, 0, 1].filter((x) => r.sequenceIds.includes(x)));
      }
    });

    test('truncation cuts the content and keeps the special tokens, and says so', () => {
      const want = expected.truncation;
      const r = tok.encodeOne(want.text, want.max_length);
      assert.deepEqual(content(r), want.ids);
      assert.equal(r.length, want.max_length);
      assert.equal(r.truncated, true);
      assert.ok(r.originalLength > want.max_length);
      if (expected.add_special_tokens) assert.equal(r.tokens.at(-1), want.tokens.at(-1), 'the closing special token is kept');
    });

    test('offsets point at each token\'s text in the original string', () => {
      for (const { text } of expected.single) {
        const r = tok.encodeOne(text, tok.maxLength);
        let last = 0;
        r.offsets.forEach(([start, end], i) => {
          if (r.sequenceIds[i] === null) { assert.deepEqual([start, end], [0, 0]); return; }
          assert.ok(start >= last - 1 && start <= end && end <= text.length, `${r.tokens[i]} [${start}, ${end}) in ${JSON.stringify(text)}`);
          last = start;
          const piece = text.slice(start, end);
          const token = r.tokens[i].replace(/^##/, '').replaceAll('\u2581', '');
          // Whole-character tokens (not byte fragments, not [UNK]) read back as themselves.
          if (kind !== 'byte-level BPE' && token !== '[UNK]' && token !== '') assert.equal(fold(piece), fold(token), `token ${r.tokens[i]}`);
          // A token of spaces only (a lone Ġ) has the empty span at its end under RoBERTa's
          // trim_offsets, its space under GPT-2's ByteLevel post-processor (trim_offsets false).
          if (kind === 'byte-level BPE') assert.ok(piece.length > 0 || /^\u0120+$/.test(r.tokens[i]), `token ${r.tokens[i]} has text`);
        });
      }
    });
  });
}

// The post-processor decides whether byte-level offsets are trimmed (the Rust library's
// processors/byte_level.rs process_offsets, called by a ByteLevel or RobertaProcessing
// post-processor with trim_offsets): GPT-2's tokenizer.json (like Llama 3's and Qwen2's) has a
// ByteLevel post-processor with trim_offsets false, so "Ġworld" spans the space before "world" and
// a lone "Ġ" its space; RoBERTa's RobertaProcessing has trim_offsets true, so they do not.
test('byte-level offsets keep the spaces unless the post-processor trims them (trim_offsets)', async () => {
  const text = 'Hello, world!';
  const gpt2 = (await load('gpt2')).encodeOne(text, 40);
  assert.deepEqual(gpt2.tokens, ['H', 'ell', 'o', ',', '\u0120world', '!']);
  assert.deepEqual(gpt2.offsets, [[0, 1], [1, 4], [4, 5], [5, 6], [6, 12], [12, 13]]);
  const roberta = (await load('roberta')).encodeOne(text, 40);
  assert.deepEqual(roberta.offsets, [[0, 0], [0, 1], [1, 4], [4, 5], [5, 6], [7, 12], [12, 13], [0, 0]]);
  // Lone spaces: untrimmed they are their own space; trimmed, the empty span at their end.
  const spaced = 'testing   spaces ';
  const g = (await load('gpt2')).encodeOne(spaced, 40), r = (await load('roberta')).encodeOne(spaced, 40);
  const pieces = (e, t) => e.tokens.map((tok, i) => [tok, t.slice(...e.offsets[i])]);
  assert.deepEqual(pieces(g, spaced).slice(-6), [['\u0120', ' '], ['\u0120', ' '], ['\u0120sp', ' sp'], ['ace', 'ace'], ['s', 's'], ['\u0120', ' ']]);
  assert.deepEqual(pieces(r, spaced).slice(-7, -1), [['\u0120', ''], ['\u0120', ''], ['\u0120sp', 'sp'], ['ace', 'ace'], ['s', 's'], ['\u0120', '']]);
  assert.deepEqual(r.offsets.at(-2), [spaced.length, spaced.length]);
  // A window's first token is the first of its Encoding (overflowing windows are trimmed on their
  // own): with add_prefix_space on the post-processor, its one leading space is kept.
  const json = read('roberta', 'tokenizer.json');
  json.post_processor = { ...json.post_processor, add_prefix_space: true };
  const windowed = await loadTokenizer(json, {}, { rows: read('roberta', 'config.json').vocab_size, maxPositions: 40 });
  const windows = windowed.encodeTextWindows(text, 6, 0);  // 4 content tokens each: [H ell o ,] [Ġworld !]
  assert.deepEqual(windows[1].tokens, ['<s>', '\u0120world', '!', '</s>']);
  assert.deepEqual(windows[1].offsets[1], [6, 12]);
  // In the whole text it is not first: trimmed.
  assert.deepEqual(windowed.encodeOne(text, 40).offsets[5], [7, 12]);
});

test('offsets of tokens holding parts of one character all give that character', async () => {
  const tok = await load('roberta');
  const text = 'naïve résumé über 東京';
  const r = tok.encodeOne(text, 40);
  const pieces = r.tokens.map((t, i) => [t, text.slice(...r.offsets[i])]);
  // 'ï' is two UTF-8 bytes, 東 and 京 three each: each byte token maps to its character.
  assert.deepEqual(pieces.filter(([, p]) => p === 'ï').length, 2);
  assert.deepEqual(pieces.filter(([, p]) => p === '東').length, 3);
  assert.deepEqual(pieces.filter(([, p]) => p === '京').length, 3);
  const wp = await load('bert');
  const w = wp.encodeOne('Café prices', 40);
  assert.deepEqual(w.tokens.map((t, i) => [t, 'Café prices'.slice(...w.offsets[i])]).slice(1, 6),
    [['c', 'C'], ['##a', 'a'], ['##f', 'f'], ['##e', 'é'], ['p', 'p']]);
});

// A Llama-2-style tokenizer.json over `pieces` (the first three <unk>, <s>, </s>): ▁ prepended and
// for spaces (normalizer), no pre-tokenizer, <s> before each sequence, BPE with `merges`.
function llama2StyleJson(pieces, merges, { byteFallback }) {
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [0, 1, 2].map((id) => ({ id, content: pieces[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '\u2581' }, { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] },
    pre_tokenizer: null,
    post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<s>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, ...(byteFallback ? [{ type: 'ByteFallback' }] : []),
      { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: byteFallback,
      vocab: Object.fromEntries(pieces.map((p, i) => [p, i])), merges },
  };
}

test('byte-fallback tokens (SentencePiece BPE, as Llama 2 / Mistral write it) get their characters\' offsets', async () => {
  // BPE with byte_fallback; "\n" and "é" are not in the vocabulary, so they become <0x..> bytes.
  const pieces = ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`),
    '\u2581', 'h', 'i', 'c', 'a', 'f', '\u2581h', '\u2581hi', 'hi', '\u2581c', '\u2581ca', '\u2581caf'];
  const json = llama2StyleJson(pieces, ['\u2581 h', '\u2581h i', 'h i', '\u2581 c', '\u2581c a', '\u2581ca f'], { byteFallback: true });
  const tok = await loadTokenizer(json, { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' }, { rows: pieces.length, maxPositions: 40 });
  const text = 'hi\nhi café';
  const r = tok.encodeOne(text, 40);
  assert.deepEqual(r.tokens, ['<s>', '\u2581hi', '<0x0A>', 'hi', '\u2581caf', '<0xC3>', '<0xA9>']);
  // (Whether a ▁ token's span takes in the space before it is the normalizer's alignment and not
  // what this checks: the bytes' own places are.)
  assert.deepEqual(r.offsets.slice(1, 4), [[0, 2], [2, 3], [3, 5]]);
  assert.deepEqual([5, 6].map((i) => text.slice(...r.offsets[i])), ['é', 'é']);
});

// Where SentencePiece-style tokenizers turn each space into ▁ in place (Llama 2's and Mistral's
// Prepend + Replace normalizer, a Metaspace pre-tokenizer), the Rust NormalizedString keeps a
// replaced space's own position (a one-to-one replace) and gives the prepended ▁ the first
// character's (NormalizedString.prepend): so HF's offsets of "▁world" take in the space before
// it, a lone "▁" is its one space, and the first word starts at 0. After a WhitespaceSplit (XLM-R's
// Sequence) the spaces are gone and each ▁ shares its word's first character (tested above).
test('a ▁ that stands for a space spans that space (Llama 2 / Mistral normalizer, Metaspace pre-tokenizer)', async () => {
  const pieces = ['<unk>', '<s>', '</s>', '\u2581', 'h', 'i', '\u2581h', '\u2581hi', 'hi'];
  const json = llama2StyleJson(pieces, ['\u2581 h', '\u2581h i', 'h i'], { byteFallback: false });
  const config = { tokenizer_class: 'PreTrainedTokenizerFast' };
  const cases = async (tokenizerJson) => {
    const tok = await loadTokenizer(tokenizerJson, config, { rows: pieces.length, maxPositions: 40 });
    const at = (text) => { const r = tok.encodeOne(text, 40); return r.tokens.slice(1).map((t, i) => [t, r.offsets[i + 1]]); };
    assert.deepEqual(at('hi hi'), [['\u2581hi', [0, 2]], ['\u2581hi', [2, 5]]]);
    assert.deepEqual(at('hi  hi'), [['\u2581hi', [0, 2]], ['\u2581', [2, 3]], ['\u2581hi', [3, 6]]]);
    return at;
  };
  const legacy = await cases(json);
  // A leading space: the prepended ▁ and that space's ▁ both stand at the space.
  assert.deepEqual(legacy(' hi'), [['\u2581', [0, 1]], ['\u2581hi', [0, 3]]]);
  // The same with a Metaspace pre-tokenizer (tokenizers >= 0.14's Llama files) instead of the normalizer.
  await cases({ ...json, normalizer: null, pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false } });
});

test('pairs are truncated longest-first, as the Rust tokenizers library does', async () => {
  const tok = await load('bert');
  const pair = ['How old are you?', 'I am six years old.'];  // 5 + 8 content tokens, 3 specials
  const full = tok.encodeOne(pair, 40);
  assert.equal(full.originalLength, 16);
  // [maxLength, tokens kept from A, from B]
  for (const [max, a, b] of [[16, 5, 8], [15, 5, 7], [12, 4, 5], [10, 3, 4], [7, 2, 2], [4, 0, 1]]) {
    const r = tok.encodeOne(pair, max);
    assert.equal(r.length, max);
    assert.equal(r.sequenceIds.filter((s) => s === 0).length, a, `max ${max}: A`);
    assert.equal(r.sequenceIds.filter((s) => s === 1).length, b, `max ${max}: B`);
    assert.deepEqual([r.tokens[0], r.tokens[a + 1], r.tokens.at(-1)], ['[CLS]', '[SEP]', '[SEP]']);
    assert.equal(r.truncated, max < 16);
  }
  assert.throws(() => tok.encodeOne(pair, 3), (e) => e instanceof SimdformerError && /leaves no room/.test(e.message));
  // The rule itself, on lengths where the three cases differ.
  assert.deepEqual(truncatedLengths(10, null, 4), [4, 0]);
  assert.deepEqual(truncatedLengths(3, 20, 10), [3, 7]);    // only the longer one is cut
  assert.deepEqual(truncatedLengths(20, 3, 10), [7, 3]);
  assert.deepEqual(truncatedLengths(10, 10, 11), [5, 6]);   // both cut: room / 2, the odd one to the second
  assert.deepEqual(truncatedLengths(12, 10, 11), [6, 5]);   // ... to the longer one
});

test('a batch is padded on the right with the pad id, with the attention mask', async () => {
  for (const [name, padId] of [['bert', 0], ['roberta', 1]]) {
    const tok = await load(name, { padId });
    const batch = tok.encodeBatch(['Hello, world!', 'The quick brown fox jumps over the lazy dog.', ['How old are you?', 'I am six.']], 40);
    const lengths = batch.sequences.map((s) => s.length);
    const n = Math.max(...lengths);
    assert.equal(batch.nSeq, n);
    assert.equal(batch.ids.length, 3 * n);
    lengths.forEach((len, b) => {
      assert.deepEqual(Array.from(batch.ids.subarray(b * n, b * n + len)), Array.from(batch.sequences[b].ids));
      assert.ok(batch.ids.subarray(b * n + len, (b + 1) * n).every((id) => id === padId));
      assert.deepEqual(Array.from(batch.attentionMask.subarray(b * n, (b + 1) * n)), Array.from({ length: n }, (_, i) => (i < len ? 1 : 0)));
    });
  }
});

test('a tokenizer whose vocabulary does not fit the embedding table is an error at load', async () => {
  const dir = join('broken', 'tokenizer_vocab_too_large');
  const rows = read(dir, 'config.json').vocab_size;
  await assert.rejects(loadTokenizer(read(dir, 'tokenizer.json'), read(dir, 'tokenizer_config.json'), { rows, maxPositions: 40 }),
    (e) => e instanceof SimdformerError && /626 tokens/.test(e.message) && /600 rows/.test(e.message));
});

test('mask and pad tokens come from tokenizer_config.json', async () => {
  const bert = await load('bert'), roberta = await load('roberta'), gpt2 = await load('gpt2');
  assert.deepEqual([bert.maskToken, bert.maskId, bert.padId], ['[MASK]', 4, 0]);
  assert.deepEqual([roberta.maskToken, roberta.padId], ['<mask>', 1]);
  assert.equal(roberta.maskId, roberta.encodeOne('a <mask>', 40).ids[2]);
  assert.equal(gpt2.maskToken, null);
});
