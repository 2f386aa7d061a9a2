// tokenizer_config.json's do_lower_case / strip_accents / tokenize_chinese_chars against
// tokenizer.json's BertNormalizer: Hugging Face transformers' BertTokenizerFast (and the
// BERT-family classes that copy its __init__) rebuild the normalizer with the config's values
// when the two disagree, so the config wins. Expected ids are written by hand from those rules
// and the BertNormalizer's (strip_accents null follows lowercase; handle_chinese_chars puts
// spaces around CJK ideographs), on a WordPiece vocabulary small enough to read.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SimdformerError } from '../../dist/node.mjs';
import { loadTokenizer } from '../../dist/lib/tokenizer.mjs';

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'hello', 'Hello', 'cafe', 'café', '你', '好', '你好'];
const [CLS, SEP, hello, Hello, cafe, cafeAccent, ni, hao, nihao] = [2, 3, 4, 5, 6, 7, 8, 9, 10];

function tokenizerJson(normalizer) {
  return {
    version: '1.0',
    added_tokens: VOCAB.slice(0, 4).map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true, ...normalizer },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [CLS], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [SEP], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((t, i) => [t, i])) },
  };
}

async function ids(normalizer, config, text = 'Hello café', modelConfig = undefined) {
  const tok = await loadTokenizer(tokenizerJson(normalizer), config, { rows: VOCAB.length, maxPositions: 16, modelConfig });
  return Array.from(tok.encodeOne(text, 16).ids);
}

test('do_lower_case false in tokenizer_config.json turns off a lowercasing BertNormalizer (as BertTokenizerFast rebuilds it)', async () => {
  // Rebuilt: lowercase false, strip_accents None (follows lowercase: no stripping).
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'BertTokenizer', do_lower_case: false }), [CLS, Hello, cafeAccent, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'DistilBertTokenizerFast', do_lower_case: false }), [CLS, Hello, cafeAccent, SEP]);
  // Python compares 0 == False: a 0 means false.
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'BertTokenizer', do_lower_case: 0 }), [CLS, Hello, cafeAccent, SEP]);
});

test('do_lower_case true (or absent: the default is True) turns on a BertNormalizer that keeps the case', async () => {
  assert.deepEqual(await ids({ lowercase: false }, { tokenizer_class: 'BertTokenizer', do_lower_case: true }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({ lowercase: false }, { tokenizer_class: 'ElectraTokenizer' }), [CLS, hello, cafe, SEP]);
});

test('strip_accents from tokenizer_config.json replaces the normalizer\'s', async () => {
  // lowercase stays, accents kept.
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'BertTokenizer', do_lower_case: true, strip_accents: false }), [CLS, hello, cafeAccent, SEP]);
  // Cased, but accents stripped.
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'BertTokenizer', do_lower_case: false, strip_accents: true }), [CLS, Hello, cafe, SEP]);
  // A config without strip_accents sets None: a tokenizer.json that keeps accents while lowercasing is rebuilt to strip them.
  assert.deepEqual(await ids({ lowercase: true, strip_accents: false }, { tokenizer_class: 'BertTokenizer', do_lower_case: true }), [CLS, hello, cafe, SEP]);
});

test('tokenize_chinese_chars: BertTokenizer sets it, MPNet (which compares only lowercase and strip_accents) does not', async () => {
  assert.deepEqual(await ids({}, { tokenizer_class: 'BertTokenizer', tokenize_chinese_chars: false }, '你好'), [CLS, nihao, SEP]);
  assert.deepEqual(await ids({}, { tokenizer_class: 'BertTokenizer' }, '你好'), [CLS, ni, hao, SEP]);
  assert.deepEqual(await ids({}, { tokenizer_class: 'MPNetTokenizer', tokenize_chinese_chars: false }, '你好'), [CLS, ni, hao, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'MPNetTokenizer', do_lower_case: false }), [CLS, Hello, cafeAccent, SEP]);
});

// Without tokenizer_config.json (an older checkpoint; loadPretrained then passes {}), or with one
// that names no class, AutoTokenizer (v4) takes config.json's tokenizer_class, else the class
// TOKENIZER_MAPPING gives its model_type: BertTokenizerFast / DistilBertTokenizerFast with their
// defaults (do_lower_case True, strip_accents None), which rebuild a cased BertNormalizer.
test('no tokenizer_config.json: config.json\'s model_type picks the class, whose defaults lowercase a BERT or DistilBERT normalizer', async () => {
  const cased = { lowercase: false };
  assert.deepEqual(await ids(cased, {}, 'Hello café', { model_type: 'bert' }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids(cased, {}, 'Hello café', { model_type: 'distilbert' }), [CLS, hello, cafe, SEP]);
  // A tokenizer_config.json without tokenizer_class: its own flags, the class from model_type.
  assert.deepEqual(await ids({ lowercase: true }, { do_lower_case: false }, 'Hello café', { model_type: 'bert' }), [CLS, Hello, cafeAccent, SEP]);
  // config.json's tokenizer_class comes before model_type.
  assert.deepEqual(await ids(cased, {}, 'Hello café', { model_type: 'xlm-roberta', tokenizer_class: 'BertTokenizerFast' }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids(cased, {}, 'Hello café', { model_type: 'bert', tokenizer_class: 'PreTrainedTokenizerFast' }), [CLS, Hello, cafeAccent, SEP]);
  // tokenizer_config.json's class comes first.
  assert.deepEqual(await ids(cased, { tokenizer_class: 'PreTrainedTokenizerFast' }, 'Hello café', { model_type: 'bert' }), [CLS, Hello, cafeAccent, SEP]);
  // The other families' classes have no such block: tokenizer.json as written. (llama and
  // mistral are left out: their class adds "<s>" / "</s>", which this vocabulary lacks, as new
  // tokens; see the LlamaTokenizer tests below.)
  for (const model_type of ['roberta', 'xlm-roberta', 'gpt2', 'qwen2', 'unknown'])
    assert.deepEqual(await ids(cased, {}, 'Hello café', { model_type }), [CLS, Hello, cafeAccent, SEP], model_type);
});

test('files that agree, a non-BERT class and a folder without tokenizer_config.json keep tokenizer.json\'s normalizer', async () => {
  assert.deepEqual(await ids({ lowercase: false }, { tokenizer_class: 'BertTokenizer', do_lower_case: false }), [CLS, Hello, cafeAccent, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'BertTokenizer', do_lower_case: true }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'PreTrainedTokenizerFast', do_lower_case: false }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, { tokenizer_class: 'RobertaTokenizer', do_lower_case: false }), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({ lowercase: true }, {}), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({ lowercase: false }, {}), [CLS, Hello, cafeAccent, SEP]);  // no config.json given either
});

test('a do_lower_case that cannot be a flag is an error naming tokenizer_config.json', async () => {
  await assert.rejects(ids({}, { tokenizer_class: 'BertTokenizer', do_lower_case: 'false' }),
    (e) => e instanceof SimdformerError && /tokenizer_config\.json: do_lower_case must be true or false/.test(e.message));
});

// GPT2TokenizerFast / RobertaTokenizerFast set the top-level ByteLevel pre-tokenizer's
// add_prefix_space from their own argument (tokenizer_config.json's, default False), as the BERT
// classes set the normalizer. On the gpt2 and roberta fixtures' byte-level tokenizers: with a
// prefix space "Hello" is tokenized as " Hello".
test('add_prefix_space: GPT-2 and RoBERTa classes (named, or from model_type) replace a byte-level pre-tokenizer\'s', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { DATA } = await import('./helpers.mjs');
  for (const [fixture, rows, modelType, cls] of [['gpt2', 1057, 'gpt2', 'GPT2Tokenizer'], ['roberta', 1061, 'roberta', 'RobertaTokenizerFast']]) {
    const original = JSON.parse(readFileSync(join(DATA, 'hf', fixture, 'tokenizer.json'), 'utf8'));
    const prefixed = { ...original, pre_tokenizer: { ...original.pre_tokenizer, add_prefix_space: true } };
    const words = async (json, config, modelConfig) => {
      const tok = await loadTokenizer(json, config, { rows, maxPositions: 40, modelConfig });
      return Array.from(tok.encodeWithoutSpecialTokens('Hello world'));
    };
    const plain = await words(original, {}, {});
    const spaced = await words(prefixed, {}, {});  // tokenizer.json as written
    assert.notDeepEqual(plain, spaced, fixture);
    // The class default False wins over tokenizer.json's true: from tokenizer_config's class, or
    // (no tokenizer_config.json) from config.json's model_type.
    assert.deepEqual(await words(prefixed, { tokenizer_class: cls }, {}), plain, fixture);
    assert.deepEqual(await words(prefixed, {}, { model_type: modelType }), plain, fixture);
    assert.deepEqual(await words(prefixed, { add_prefix_space: 0 }, { model_type: modelType }), plain, fixture);
    // tokenizer_config.json's add_prefix_space true wins the other way.
    assert.deepEqual(await words(original, { tokenizer_class: cls, add_prefix_space: true }, {}), spaced, fixture);
    // A ByteLevel without the field is the Rust default true (Python's __getstate__ shows it): rebuilt to false.
    const { add_prefix_space: _, ...bare } = original.pre_tokenizer;
    assert.deepEqual(await words({ ...original, pre_tokenizer: bare }, { tokenizer_class: cls }, {}), plain, fixture);
    // Classes without the block keep tokenizer.json's.
    assert.deepEqual(await words(prefixed, { tokenizer_class: 'PreTrainedTokenizerFast' }, { model_type: modelType }), spaced, fixture);
    assert.deepEqual(await words(prefixed, {}, { model_type: 'qwen2' }), spaced, fixture);
  }
});

// LlamaTokenizerFast (also Mistral's, by model_type) replaces the post-processor with
// "<bos> $A <eos>" from add_bos_token (default True) / add_eos_token (default False) and
// tokenizer_config.json's bos_token / eos_token (defaults "<s>" / "</s>"). Here the small
// WordPiece vocabulary's [CLS] / [SEP] play bos and eos.
test('LlamaTokenizer: add_bos_token / add_eos_token rebuild the post-processor as LlamaTokenizerFast does', async () => {
  const llama = (extra) => ({ tokenizer_class: 'LlamaTokenizerFast', bos_token: '[CLS]', eos_token: '[SEP]', ...extra });
  assert.deepEqual(await ids({}, llama({})), [CLS, hello, cafe]);  // bos only: add_eos_token defaults to False
  assert.deepEqual(await ids({}, llama({ add_eos_token: true })), [CLS, hello, cafe, SEP]);
  assert.deepEqual(await ids({}, llama({ add_bos_token: false, add_eos_token: 1 })), [hello, cafe, SEP]);
  assert.deepEqual(await ids({}, llama({ add_bos_token: false })), [hello, cafe]);
  // null is None, false to update_post_processor's truth tests (not an error).
  assert.deepEqual(await ids({}, llama({ add_eos_token: null })), [CLS, hello, cafe]);
  assert.deepEqual(await ids({}, llama({ add_bos_token: null, add_eos_token: true })), [hello, cafe, SEP]);
  // AddedToken form; the class from config.json's model_type when tokenizer_config names none.
  assert.deepEqual(await ids({}, { bos_token: { content: '[CLS]', special: true }, eos_token: '[SEP]' }, 'Hello café', { model_type: 'mistral' }), [CLS, hello, cafe]);
  const pair = await loadTokenizer(tokenizerJson({}), llama({ add_eos_token: true }), { rows: VOCAB.length, maxPositions: 16 });
  const enc = pair.encodeOne(['hello', 'cafe'], 16);
  assert.deepEqual(Array.from(enc.ids), [CLS, hello, SEP, CLS, cafe, SEP]);
  assert.deepEqual(Array.from(enc.typeIds), [0, 0, 0, 1, 1, 1]);
});

// What LlamaTokenizerFast.update_post_processor uses for a bos / eos the vocabulary lacks: its
// bos_token_id (convert_tokens_to_ids, tokenization_utils_fast.py) after
// PreTrainedTokenizerFast.__init__ (v4.34+) added every special token that is not an added token
// yet; the Rust AddedVocabulary.add_tokens gives a missing one a new id: the model vocabulary's
// size, or one past the largest added id when that is beyond it. bos gets its id before eos
// (all_special_tokens_extended's order). So the unknown token's id is never used.
test('LlamaTokenizer: a bos / eos the vocabulary lacks becomes an added special token with a new id, as PreTrainedTokenizerFast.__init__ adds it', async () => {
  const [bos, eos] = [VOCAB.length, VOCAB.length + 1];  // "<s>", "</s>" (the class defaults) get 11, 12
  const wide = { rows: VOCAB.length + 2, maxPositions: 16 };
  const enc = async (config, text, modelConfig) => Array.from((await loadTokenizer(tokenizerJson({}), config, { ...wide, modelConfig })).encodeOne(text, 16).ids);
  assert.deepEqual(await enc({ tokenizer_class: 'LlamaTokenizer' }, 'Hello café'), [bos, hello, cafe]);
  assert.deepEqual(await enc({}, 'Hello café', { model_type: 'llama' }), [bos, hello, cafe]);
  assert.deepEqual(await enc({ tokenizer_class: 'LlamaTokenizerFast', add_eos_token: true }, 'hello'), [bos, hello, eos]);
  // Added tokens match in the text as one token, as Python's do.
  assert.deepEqual(await enc({ tokenizer_class: 'LlamaTokenizer' }, 'hello </s>'), [bos, hello, eos]);
  // Only eos missing: it takes the first new id.
  assert.deepEqual(await enc({ tokenizer_class: 'LlamaTokenizer', bos_token: '[CLS]', add_eos_token: true }, 'hello'), [CLS, hello, bos]);
  // An added token already beyond the vocabulary: the new id follows it.
  const json = tokenizerJson({});
  json.added_tokens.push({ id: 20, content: '<extra>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const far = await loadTokenizer(json, { tokenizer_class: 'LlamaTokenizer', add_eos_token: true }, { rows: 23, maxPositions: 16 });
  assert.deepEqual(Array.from(far.encodeOne('hello', 16).ids), [21, hello, 22]);
  // A new id the template puts in every text must have a row in the embedding table (Python
  // would index past it in the forward pass of every text).
  await assert.rejects(loadTokenizer(tokenizerJson({}), { tokenizer_class: 'LlamaTokenizer' }, { rows: VOCAB.length, maxPositions: 16 }),
    (e) => e instanceof SimdformerError && /special token '<s>' is not in tokenizer.json's vocabulary: transformers adds it as token 11, .* 11 rows/.test(e.message));
  // None asked for: update_post_processor raises ValueError; None not asked for is simply left out.
  await assert.rejects(loadTokenizer(tokenizerJson({}), { tokenizer_class: 'LlamaTokenizer', bos_token: null }, wide),
    (e) => e instanceof SimdformerError && /add_bos_token = True but bos_token = None/.test(e.message));
  await assert.rejects(loadTokenizer(tokenizerJson({}), { tokenizer_class: 'LlamaTokenizer', bos_token: '[CLS]', eos_token: null, add_eos_token: true }, wide),
    (e) => e instanceof SimdformerError && /add_eos_token = True but eos_token = None/.test(e.message));
  assert.deepEqual(await enc({ tokenizer_class: 'LlamaTokenizer', bos_token: null, eos_token: null, add_bos_token: false }, 'hello'), [hello]);
});

// token_to_id looks in the model's vocabulary whatever its type (the Rust Model trait): a Unigram
// model keeps [piece, score] pairs, the id being the index. Here <s> / </s> are pieces of a
// Unigram vocabulary and not added tokens, so the lookup must find them there.
test('LlamaTokenizer: bos / eos ids are looked up in a Unigram vocabulary ([piece, score] list) too', async () => {
  const { readFileSync } = await import('node:fs');
  const json = JSON.parse(readFileSync(new URL('../data/hf/xlmr_tokcls/tokenizer.json', import.meta.url), 'utf8'));
  json.added_tokens = json.added_tokens.filter((t) => t.content !== '<s>' && t.content !== '</s>');
  json.post_processor = null;
  const rows = json.model.vocab.length;
  const tok = await loadTokenizer(json, { tokenizer_class: 'LlamaTokenizerFast', add_eos_token: true }, { rows, maxPositions: 32 });
  const r = tok.encodeOne('the lazy dog', 32);
  assert.deepEqual([r.ids[0], r.ids.at(-1)], [0, 2]);  // <s> is piece 0, </s> piece 2
  assert.deepEqual([r.tokens[0], r.tokens.at(-1)], ['<s>', '</s>']);
  // A bos the Unigram vocabulary lacks takes the vocabulary's size as its new id.
  const missing = await loadTokenizer(json, { tokenizer_class: 'LlamaTokenizerFast', bos_token: '<bos>' }, { rows: rows + 1, maxPositions: 32 });
  assert.equal(missing.encodeOne('the', 32).ids[0], rows);
});

// RobertaTokenizerFast.__init__ (tokenization_roberta_fast.py, v4) compares the post-processor's
// state (RobertaProcessing: add_prefix_space, trim_offsets) with its own arguments
// (tokenizer_config.json's; defaults False / True) and rebuilds it when either differs; GPT-2's
// class leaves the post-processor alone. Offsets then follow the Rust process_offsets
// (processors/byte_level.rs): trim_offsets false keeps "Ġworld"'s space; with the pre-tokenizer
// adding a prefix space, add_prefix_space false on the post-processor trims the first token's
// added space off its span (the first character of the text with it: Python gives (1, n)),
// while true keeps it. Ids never change.
test('RobertaTokenizer: trim_offsets / add_prefix_space rebuild the post-processor, and offsets follow it', async () => {
  const { readFileSync } = await import('node:fs');
  const roberta = JSON.parse(readFileSync(new URL('../data/hf/roberta/tokenizer.json', import.meta.url), 'utf8'));
  const rows = JSON.parse(readFileSync(new URL('../data/hf/roberta/config.json', import.meta.url), 'utf8')).vocab_size;
  const encode = async (json, config, modelConfig) => (await loadTokenizer(json, config, { rows, maxPositions: 40, modelConfig })).encodeOne('Hello, world!', 40);
  const world = async (json, config, modelConfig) => (await encode(json, config, modelConfig)).offsets[5];  // <s> H ell o , Ġworld ! </s>
  const cls = 'RobertaTokenizer';
  assert.deepEqual(await world(roberta, { tokenizer_class: cls }), [7, 12]);
  assert.deepEqual(await world(roberta, { tokenizer_class: cls, trim_offsets: false }), [6, 12]);
  assert.deepEqual(await world(roberta, { tokenizer_class: cls, trim_offsets: 0 }), [6, 12]);  // Python's 0 == False
  assert.deepEqual(await world(roberta, { trim_offsets: false }, { model_type: 'roberta' }), [6, 12]);
  // Classes without the block keep tokenizer.json's post-processor, whatever the config says.
  assert.deepEqual(await world(roberta, { tokenizer_class: 'PreTrainedTokenizerFast', trim_offsets: false }), [7, 12]);
  assert.deepEqual(await world(roberta, { tokenizer_class: 'GPT2Tokenizer', trim_offsets: false }), [7, 12]);
  // The class default (trim_offsets True) wins over a tokenizer.json that says false.
  const untrimmed = { ...roberta, post_processor: { ...roberta.post_processor, trim_offsets: false } };
  assert.deepEqual(await world(untrimmed, { tokenizer_class: 'PreTrainedTokenizerFast' }), [6, 12]);
  assert.deepEqual(await world(untrimmed, {}, { model_type: 'roberta' }), [7, 12]);
  // Ids stay.
  assert.deepEqual(Array.from((await encode(roberta, { tokenizer_class: cls, trim_offsets: false })).ids),
    Array.from((await encode(roberta, { tokenizer_class: cls })).ids));
  // add_prefix_space: the pre-tokenizer adds the space; the post-processor's flag decides whether
  // the first token's span keeps it (both set by the class from tokenizer_config.json).
  const prefixed = { ...roberta, pre_tokenizer: { ...roberta.pre_tokenizer, add_prefix_space: true } };
  const first = async (json, config) => (await encode(json, config)).offsets[1];
  const withPrefix = await encode(prefixed, { tokenizer_class: 'PreTrainedTokenizerFast' });
  assert.ok(withPrefix.tokens[1].startsWith('\u0120'), withPrefix.tokens[1]);
  const end = withPrefix.offsets[1][1];
  assert.deepEqual(await first(prefixed, { tokenizer_class: 'PreTrainedTokenizerFast' }), [1, end]);  // as written: add_prefix_space false
  assert.deepEqual(await first(roberta, { tokenizer_class: cls, add_prefix_space: true }), [0, end]);  // both rebuilt to true
  assert.deepEqual(await first({ ...prefixed, post_processor: { ...roberta.post_processor, add_prefix_space: true } }, { tokenizer_class: 'PreTrainedTokenizerFast' }), [0, end]);
});

// PreTrainedTokenizerFast.__init__ (tokenization_utils_fast.py, v4.34+) adds every special token
// (all_special_tokens_extended: bos, eos, unk, sep, pad, cls, mask, then additional_special_tokens;
// tokenizer_config.json's, else the class defaults) that is not an added token yet: one in the
// model's vocabulary keeps its id but is now matched in text as one token; one it lacks gets a new
// id (the Rust AddedVocabulary.add_tokens), in that order. A new id past the embedding table only
// fails where it is used (Python loads such a folder and fails in the forward pass of a text with it).
test('special tokens of tokenizer_config.json that tokenizer.json lacks are added as PreTrainedTokenizerFast.__init__ adds them', async () => {
  const json = tokenizerJson({});
  json.added_tokens = json.added_tokens.filter((t) => t.content !== '[SEP]');  // [SEP] only in the model's vocabulary now
  const bert = { tokenizer_class: 'BertTokenizerFast' };
  const enc = async (config, text, rows = VOCAB.length) => Array.from((await loadTokenizer(json, config, { rows, maxPositions: 16 })).encodeOne(text, 16).ids);
  // "[SEP]" written in the text: WordPiece pieces before, one token (its vocabulary id) once added.
  assert.deepEqual(await enc({ tokenizer_class: 'PreTrainedTokenizerFast' }, 'hello [SEP]'), [CLS, hello, 1, 1, 1, SEP]);  // [, sep, ] are unknown
  assert.deepEqual(await enc(bert, 'hello [SEP]'), [CLS, hello, SEP, SEP]);  // BertTokenizerFast's default sep_token
  // New ids in all_special_tokens_extended's order, after the vocabulary: eos 11, then pad 12.
  const config = { tokenizer_class: 'PreTrainedTokenizerFast', pad_token: '<pad>', eos_token: '<eos>', additional_special_tokens: ['<x>', { content: '<eos>' }] };
  assert.deepEqual(await enc(config, 'hello <pad><eos> <x>', 14), [CLS, hello, 12, 11, 13, SEP]);
  // Past the embedding table: loads (nothing uses them), and a text that holds one is refused.
  const tok = await loadTokenizer(json, config, { rows: VOCAB.length, maxPositions: 16 });
  assert.deepEqual(Array.from(tok.encodeOne('hello', 16).ids), [CLS, hello, SEP]);
  assert.throws(() => tok.encodeOne('hello <x>', 16), (e) => e instanceof SimdformerError && /'<x>', a special token tokenizer.json lacks: transformers adds it as token 13, .* 11 rows/.test(e.message));
  // None is none; anything but a string or an AddedToken object is refused, as transformers refuses it.
  assert.deepEqual(await enc({ tokenizer_class: 'PreTrainedTokenizerFast', pad_token: null }, 'hello'), [CLS, hello, SEP]);
  await assert.rejects(loadTokenizer(json, { pad_token: 5 }, { rows: VOCAB.length, maxPositions: 16 }), (e) => e instanceof SimdformerError && /pad_token must be a string/.test(e.message));
});

// PreTrainedTokenizerFast.__init__ first adds the entries of tokenizer_config.json's
// added_tokens_decoder that tokenizer.json lacks (by index order, with their flags); the ids are
// the Rust add_tokens' (the vocabulary's, or a new one), not the indices.
test('added_tokens_decoder entries tokenizer.json lacks are added (before the special tokens), as PreTrainedTokenizerFast.__init__ does', async () => {
  const json = tokenizerJson({});
  const config = {
    tokenizer_class: 'PreTrainedTokenizerFast', eos_token: '<eos>',
    added_tokens_decoder: {
      12: { content: '<b>', lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
      11: { content: '<a>', lstrip: false, normalized: false, rstrip: false, single_word: false, special: false },
      4: { content: 'hello', lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
      2: { content: '[CLS]', lstrip: false, normalized: false, rstrip: false, single_word: false, special: true },
    },
  };
  const tok = await loadTokenizer(json, config, { rows: 14, maxPositions: 16 });
  // hello keeps its vocabulary id (now an added token); <a>, <b> get 11, 12 by index order; <eos> 13.
  assert.deepEqual(Array.from(tok.encodeOne('<b>hello<a> <eos>', 16).ids), [CLS, 12, hello, 11, 13, SEP]);
  assert.equal(tok.decode([11, 12, 13], { skipSpecialTokens: true }), '<a>');  // <a> is not special
  // An entry whose text tokenizer.json has with other flags: same id, the entry's flags (the Rust
  // AddedToken compares every field). normalized true: "[CLS]" matches the lowercased text's "[cls]".
  const cls = (flags) => ({ tokenizer_class: 'PreTrainedTokenizerFast', added_tokens_decoder: { 2: { content: '[CLS]', lstrip: false, rstrip: false, single_word: false, special: true, ...flags } } });
  const enc = async (config) => Array.from((await loadTokenizer(tokenizerJson({}), config, { rows: VOCAB.length, maxPositions: 16 })).encodeOne('hello [cls]', 16).ids);
  assert.deepEqual(await enc(cls({ normalized: false })), [CLS, hello, 1, 1, 1, SEP]);  // as tokenizer.json has it: [ cls ] unknown
  assert.deepEqual(await enc(cls({ normalized: true })), [CLS, hello, CLS, SEP]);
});
