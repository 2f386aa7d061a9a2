// What transformers' (v4) fast tokenizer classes rebuild in tokenizer.json from their own
// arguments (tokenizer_config.json's, or the class defaults): the BERT family's normalizer (here),
// GPT-2's and RoBERTa's pre-tokenizer and Llama's post-processor (further down).
//
// tokenizer_config.json's normalizer options for BERT-family tokenizers, applied as Hugging Face
// transformers (v4) applies them. BertTokenizerFast.__init__ (tokenization_bert_fast.py) reads
// do_lower_case (default True), strip_accents (default None) and tokenize_chinese_chars
// (default True); when tokenizer.json's normalizer state disagrees on lowercase / strip_accents /
// handle_chinese_chars it replaces the normalizer with one of the same type carrying the config's
// three values (clean_text kept). The classes that copy that block are listed below; MPNet,
// RoFormer and LayoutLMv2 compare and set only lowercase and strip_accents. A folder whose
// two files disagree therefore tokenizes with the config's values in Python; the
// @huggingface/tokenizers package (the tokenizer of transformers.js) never reads these keys, so
// transformers.js uses tokenizer.json's normalizer as written. We follow Python, the reference
// the checkpoints were trained and evaluated with.
//
// Which class: AutoTokenizer.from_pretrained (tokenization_auto.py, v4) takes tokenizer_config.json's
// tokenizer_class, else config.json's tokenizer_class, else the class TOKENIZER_MAPPING gives
// config.json's model_type (bert -> BertTokenizerFast, distilbert -> DistilBertTokenizerFast,
// roberta / gpt2 / llama / mistral -> the classes further down; xlm-roberta and qwen2 map to
// classes without such a block). So a folder without
// tokenizer_config.json (older checkpoints), or with one that names no class, still gets the
// class defaults: a BERT or DistilBERT model's normalizer lowercases (do_lower_case=True) and
// strips accents with it (strip_accents=None) whatever tokenizer.json says.
//
// Scope: only when that class is one of these (with or without "Fast") and tokenizer.json's
// normalizer is a BertNormalizer. (Python also rebuilds for other normalizer types only when they
// carry these fields, which BERT-family tokenizer.json files never do.)
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

const ALL = ['lowercase', 'strip_accents', 'handle_chinese_chars'];
const NO_CHINESE = ['lowercase', 'strip_accents'];

// tokenizer_class (without "Fast") -> the normalizer fields its fast __init__ compares and sets.
const CLASSES = new Map([
  ...['Bert', 'DistilBert', 'Electra', 'ConvBert', 'Funnel', 'LayoutLM', 'Lxmert', 'MobileBert', 'SqueezeBert',
    'RetriBert', 'Realm', 'DPRContextEncoder', 'DPRQuestionEncoder', 'DPRReader'].map((c) => [`${c}Tokenizer`, ALL]),
  ...['MPNet', 'RoFormer', 'LayoutLMv2'].map((c) => [`${c}Tokenizer`, NO_CHINESE]),
]);

// TOKENIZER_MAPPING's class (slow name, without "Tokenizer") for the model_types whose class has
// one of the blocks below; xlm-roberta (XLMRobertaTokenizerFast) and qwen2 (Qwen2TokenizerFast)
// have none, like unknown types.
const MODEL_TYPE_CLASSES = { __proto__: null, bert: 'Bert', distilbert: 'DistilBert', roberta: 'Roberta', gpt2: 'GPT2', llama: 'Llama', mistral: 'Llama' };

// The class AutoTokenizer instantiates, without "Fast"; undefined when none applies.
function tokenizerClass(config, modelConfig) {
  for (const c of [config.tokenizer_class, modelConfig.tokenizer_class]) if (typeof c === 'string') return c.replace(/Fast$/, '');
  const short = MODEL_TYPE_CLASSES[modelConfig.model_type];
  return short && `${short}Tokenizer`;
}

// The Rust BertNormalizer's defaults for a field missing from tokenizer.json (serde defaults).
const RUST_DEFAULTS = { lowercase: true, strip_accents: null, handle_chinese_chars: true };

// A tokenizer_config flag as Python compares it (0 == False, 1 == True) and as the rebuilt
// normalizer takes it (a bool, or None where allowed). Anything else cannot be meant as a flag.
function flag(config, key, fallback, nullable) {
  const v = config[key];
  if (v === undefined) return fallback;
  if (v === null && nullable) return null;
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  return fail(`tokenizer_config.json: ${key} must be true or false${nullable ? ' (or null)' : ''}, got ${describe(v)}`);
}

/**
 * tokenizer.json with what Hugging Face's fast tokenizer class rebuilds from tokenizer_config.json
 * (`config`, {} when the file is absent): the BERT family's normalizer, GPT-2's and RoBERTa's
 * pre-tokenizer, Llama's post-processor (below); the same object when nothing changes.
 * `modelConfig` is config.json, which picks the class when tokenizer_config.json names none.
 */
export function withTokenizerClass(json, config, modelConfig) {
  const cls = tokenizerClass(config, modelConfig), fields = CLASSES.get(cls);
  // added_tokens_decoder's first, then the special tokens (a decoder token that is one of them is
  // special whatever its flag: is_special in __init__)
  const special = specialTokens(config, cls), texts = new Set(special.map((t) => t.content));
  const decoder = decoderTokens(config).map((t) => (texts.has(t.content) ? { ...t, special: true } : t));
  json = withAddedSpecialTokens(json, [...decoder, ...special], decoder.length);
  return cls === 'LlamaTokenizer' ? llamaPostProcessor(json, config)
    : cls === 'GPT2Tokenizer' ? prefixSpace(json, config)
      : cls === 'RobertaTokenizer' ? robertaPostProcessor(prefixSpace(json, config), config)
        : fields ? bertNormalizer(json, config, fields) : json;
}

function bertNormalizer(json, config, fields) {
  const all = {
    lowercase: flag(config, 'do_lower_case', true, false),
    strip_accents: flag(config, 'strip_accents', null, true),
    handle_chinese_chars: flag(config, 'tokenize_chinese_chars', true, false),
  };
  return rebuilt(json, 'normalizer', 'BertNormalizer', Object.fromEntries(fields.map((k) => [k, all[k]])), RUST_DEFAULTS);
}

// tokenizer.json with json[part], when of this type (or one of these types), carrying `wanted` where any of its values
// (a field the file leaves out read as the Rust default, as Python's __getstate__ shows it)
// differs; the same object when none does.
function rebuilt(json, part, type, wanted, defaults) {
  const c = json[part];
  if (!(Array.isArray(type) ? type.includes(c?.type) : c?.type === type) || Object.keys(wanted).every((k) => (c[k] === undefined ? defaults[k] : c[k]) === wanted[k])) return json;
  return { ...json, [part]: { ...c, ...wanted } };
}

// GPT2TokenizerFast and RobertaTokenizerFast (tokenization_gpt2_fast.py, tokenization_roberta_fast.py,
// v4) do the same with the pre-tokenizer: their add_prefix_space (tokenizer_config.json's, default
// False) replaces tokenizer.json's when the top-level pre-tokenizer carries a different one: a
// ByteLevel (whose field defaults to true when the file leaves it out). A Sequence has no such field
// at the top and is kept. So a byte-level tokenizer.json written with add_prefix_space true
// tokenizes "Hello" as "ĠHello" only when the config says true too. A null add_prefix_space is
// left alone: Python would hand None to the pre-tokenizer's constructor, never meant.
function prefixSpace(json, config) {
  if (config.add_prefix_space === null) return json;
  return rebuilt(json, 'pre_tokenizer', 'ByteLevel', { add_prefix_space: flag(config, 'add_prefix_space', false, false) }, { add_prefix_space: true });
}

// RobertaTokenizerFast.__init__ (not GPT-2's) does the same with the post-processor: when its state
// (__getstate__: a RobertaProcessing or ByteLevel, whose fields default to true when the file
// leaves them out) has an add_prefix_space or trim_offsets other than the class's arguments
// (tokenizer_config.json's; defaults False / True), it is rebuilt with them. They move offsets
// only, not ids (trimByteLevelSpans in token-offsets.mjs): trim_offsets false keeps the space
// before a word in its token's span; add_prefix_space keeps the first token's single leading
// space. Post-processors without the fields (TemplateProcessing, a Sequence) are kept; a null is
// left alone, as for the pre-tokenizer.
function robertaPostProcessor(json, config) {
  const wanted = {};
  if (config.add_prefix_space !== null) wanted.add_prefix_space = flag(config, 'add_prefix_space', false, false);
  if (config.trim_offsets !== null) wanted.trim_offsets = flag(config, 'trim_offsets', true, false);
  return rebuilt(json, 'post_processor', ['RobertaProcessing', 'ByteLevel'], wanted, { add_prefix_space: true, trim_offsets: true });
}

// LlamaTokenizerFast (tokenization_llama_fast.py, v4; Mistral's model_type maps to it too) always
// replaces tokenizer.json's post-processor in __init__ (update_post_processor): a TemplateProcessing
// "<bos>:0 $A:0 <eos>:0" for one text and "... <bos>:1 $B:1 <eos>:1" for a pair, each special token
// present only when add_bos_token (default True) / add_eos_token (default False) say so, with
// bos_token / eos_token from tokenizer_config.json (defaults "<s>" / "</s>"). So a fine-tune whose
// tokenizer_config.json sets add_eos_token true gets "</s>" appended in Python.
// The ids are self.bos_token_id / eos_token_id: convert_tokens_to_ids (tokenization_utils_fast.py),
// i.e. the backend's token_to_id, which looks in the added tokens, then in the model's vocabulary
// (a BPE / WordPiece / WordLevel vocab object, a Unigram list of [piece, score] whose index is the
// id). It would fall back to the unknown token's id, but never gets there: PreTrainedTokenizerFast
// .__init__ (which runs before update_post_processor) has added bos and eos (withAddedSpecialTokens
// below), a new id for one the vocabulary lacks, and the template uses it; the tokenizer refuses
// such an id past the embedding table at load (every text would have it), where Python would fail
// in the forward pass. (Before v4.34 the tokens were added only after __init__, by
// sanitize_special_tokens in _from_pretrained, so update_post_processor did get the unknown
// token's id; we follow the current v4.) A null token that is asked for raises
// ValueError("add_bos_token = True but bos_token = None") there, and fails here too.
function llamaPostProcessor(json, config) {
  // The special tokens' text: the config's (a string or an AddedToken object), the class default
  // when the key is absent, null for None.
  const text = (key, fallback) => {
    const t = key in config ? config[key] : fallback;
    if (t === null || t === undefined) return null;
    const c = typeof t === 'string' ? t : t?.content;
    return typeof c === 'string' ? c : fail(`tokenizer_config.json: ${key} must be a string, an AddedToken object or null, got ${describe(t)}`);
  };
  const bosText = text('bos_token', '<s>'), eosText = text('eos_token', '</s>');
  // A null add_bos_token / add_eos_token is None, which update_post_processor tests for truth:
  // no token (transformers' own Llama configs write "add_eos_token": null).
  const add = (key, fallback) => (config[key] === null ? false : flag(config, key, fallback, false));
  const addBos = add('add_bos_token', true), addEos = add('add_eos_token', false);
  if (addBos && bosText === null) fail('tokenizer_config.json: add_bos_token = True but bos_token = None (LlamaTokenizerFast raises ValueError)');
  if (addEos && eosText === null) fail('tokenizer_config.json: add_eos_token = True but eos_token = None (LlamaTokenizerFast raises ValueError)');
  // (bos and eos are added tokens by now: withAddedSpecialTokens)
  const token = (t, add) => (add ? { text: t, id: tokenToId(json, t) } : null);
  const bos = token(bosText, addBos), eos = token(eosText, addEos);
  const ends = (t, type_id) => (t ? [{ SpecialToken: { id: t.text, type_id } }] : []);
  const seq = (id, type_id) => [...ends(bos, type_id), { Sequence: { id, type_id } }, ...ends(eos, type_id)];
  const special_tokens = {};
  for (const t of [bos, eos]) if (t) special_tokens[t.text] = { id: t.text, ids: [t.id], tokens: [t.text] };
  return { ...json, post_processor: { type: 'TemplateProcessing', single: seq('A', 0), pair: [...seq('A', 0), ...seq('B', 1)], special_tokens } };
}

// The model's own vocabulary (tokenizer.json "model"): token -> id, and its size (get_vocab_size):
// an object for BPE / WordPiece / WordLevel, a list of [piece, score] for Unigram.
function modelVocabId(model, token) {
  const vocab = model?.vocab;
  if (Array.isArray(vocab)) {
    const i = vocab.findIndex((entry) => Array.isArray(entry) && entry[0] === token);
    return i >= 0 ? i : undefined;
  }
  const id = vocab && typeof vocab === 'object' && Object.hasOwn(vocab, token) ? vocab[token] : undefined;
  return Number.isSafeInteger(id) ? id : undefined;
}

function modelVocabSize(model) {
  const vocab = model?.vocab;
  return Array.isArray(vocab) ? vocab.length : vocab && typeof vocab === 'object' ? Object.keys(vocab).length : 0;
}

/** The backend's token_to_id: an added token's id, else the model vocabulary's; undefined if neither. */
export function tokenToId(json, token) {
  const added = Array.isArray(json.added_tokens) ? json.added_tokens.find((a) => a?.content === token) : undefined;
  return Number.isSafeInteger(added?.id) ? added.id : modelVocabId(json.model, token);
}

// The special-token attributes in all_special_tokens_extended's order (SPECIAL_TOKENS_ATTRIBUTES,
// tokenization_utils_base.py), and the defaults of the classes whose __init__ we read (a key
// absent from tokenizer_config.json takes them; PreTrainedTokenizerFast and unknown classes have
// none). RobertaTokenizerFast wraps a string mask_token as AddedToken(lstrip=True).
const SPECIAL_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];
const BERT_DEFAULTS = { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]' };
const CLASS_DEFAULTS = {
  __proto__: null,
  BertTokenizer: BERT_DEFAULTS,
  DistilBertTokenizer: BERT_DEFAULTS,
  RobertaTokenizer: { bos_token: '<s>', eos_token: '</s>', sep_token: '</s>', cls_token: '<s>', unk_token: '<unk>', pad_token: '<pad>', mask_token: '<mask>' },
  GPT2Tokenizer: { unk_token: '<|endoftext|>', bos_token: '<|endoftext|>', eos_token: '<|endoftext|>' },
  LlamaTokenizer: { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' },
};

// The special tokens the class holds, in order, each once (by text), as AddedToken fields:
// tokenizer_config.json's (a string, or an AddedToken object whose flags are kept), else the
// class default; null / None is none. A string becomes AddedToken(text, special=True): not
// normalized, no strips.
function specialTokens(config, cls) {
  const defaults = CLASS_DEFAULTS[cls] ?? {};
  const out = [], seen = new Set();
  const take = (key, t) => {
    if (t === null || t === undefined) return;
    if (typeof t !== 'string' && (typeof t?.content !== 'string')) fail(`tokenizer_config.json: ${key} must be a string, an AddedToken object or null, got ${describe(t)}`);
    const content = typeof t === 'string' ? t : t.content;
    if (seen.has(content)) return;
    seen.add(content);
    const f = (name, fallback) => (typeof t === 'object' && typeof t[name] === 'boolean' ? t[name] : fallback);
    const lstrip = cls === 'RobertaTokenizer' && key === 'mask_token' && typeof t === 'string';
    out.push({ content, single_word: f('single_word', false), lstrip: f('lstrip', lstrip), rstrip: f('rstrip', false), normalized: f('normalized', false), special: true });
  };
  for (const key of SPECIAL_KEYS) take(key, key in config ? config[key] : defaults[key]);
  if (Array.isArray(config.additional_special_tokens)) for (const t of config.additional_special_tokens) take('additional_special_tokens', t);
  return out;
}

// tokenizer_config.json's added_tokens_decoder ({"<index>": AddedToken fields}), by index: the
// tokens PreTrainedTokenizerFast.__init__ adds first unless tokenizer.json has the same token
// (repr: text and flags). The Rust add_tokens (tokenizers >= 0.14, AddedToken compared on every
// field) keeps the id of a text it has and takes the new flags (lstrip, normalized, ...); a text it
// lacks gets the vocabulary's id or a new one, not the index.
function decoderTokens(config) {
  const decoder = config.added_tokens_decoder;
  if (decoder === null || typeof decoder !== 'object' || Array.isArray(decoder)) return [];
  return Object.entries(decoder)
    .filter(([index, t]) => /^\d+$/.test(index) && typeof t?.content === 'string')
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([, t]) => {
      const f = (name, fallback) => (typeof t[name] === 'boolean' ? t[name] : fallback);
      return { content: t.content, single_word: f('single_word', false), lstrip: f('lstrip', false), rstrip: f('rstrip', false),
        normalized: f('normalized', !f('special', false)), special: f('special', false) };
    });
}

// tokenizer.json with the special tokens added as PreTrainedTokenizerFast.__init__ (v4.34+,
// tokenization_utils_fast.py) adds every one that is not an added token yet (by text), through
// the Rust AddedVocabulary.add_tokens: the model vocabulary's id when it has the token (it is then
// matched in text as one token), else a new id: the model vocabulary's size, or one past the
// largest added id when that is already beyond it. The new ones are listed under NEW_TOKENS, so
// the tokenizer can tell them from tokenizer.json's own (see TextTokenizer).
export const NEW_TOKENS = Symbol('special tokens added with new ids');
// The first `flagged` tokens (added_tokens_decoder's) replace the flags of a token of the same
// text; the others are skipped when the text is there.
const FLAGS = ['single_word', 'lstrip', 'rstrip', 'normalized', 'special'];
function withAddedSpecialTokens(json, tokens, flagged = 0) {
  const added = Array.isArray(json.added_tokens) ? [...json.added_tokens] : [];
  const before = added.length, fresh = [];
  let changed = false;
  for (const [k, token] of tokens.entries()) {
    if (token.content === '') continue;
    const at = added.findIndex((a) => a?.content === token.content);
    if (at >= 0) {
      if (k < flagged && FLAGS.some((f) => (added[at][f] ?? false) !== token[f])) {
        added[at] = { ...added[at], ...token, id: added[at].id };
        changed = true;
      }
      continue;
    }
    let id = modelVocabId(json.model, token.content);
    if (id === undefined) {
      const size = modelVocabSize(json.model);
      const max = added.reduce((m, a) => (Number.isSafeInteger(a?.id) && a.id > m ? a.id : m), -1);
      id = max < 0 ? size : max >= size || size === 0 ? max + 1 : size;
      fresh.push({ id, content: token.content });
    }
    added.push({ id, ...token });
  }
  if (added.length === before && !changed) return json;
  return { ...json, added_tokens: added, [NEW_TOKENS]: [...(json[NEW_TOKENS] ?? []), ...fresh] };
}
