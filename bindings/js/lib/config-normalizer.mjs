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
// config.json's model_type (bert -> BertTokenizerFast, distilbert -> DistilBertTokenizerFast; the
// other families we run map to classes without this block). So a folder without
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

// TOKENIZER_MAPPING's class for each model_type simdformer loads (slow names; the fast class is
// the one used). Only bert and distilbert reach CLASSES.
const MODEL_TYPE_CLASSES = new Map([
  ['bert', 'BertTokenizer'], ['distilbert', 'DistilBertTokenizer'], ['roberta', 'RobertaTokenizer'],
  ['xlm-roberta', 'XLMRobertaTokenizer'], ['gpt2', 'GPT2Tokenizer'], ['llama', 'LlamaTokenizer'],
  ['mistral', 'LlamaTokenizer'], ['qwen2', 'Qwen2Tokenizer'],
]);

// The class AutoTokenizer instantiates, without "Fast"; null when none is known.
function tokenizerClass(config, modelConfig) {
  for (const c of [config?.tokenizer_class, modelConfig?.tokenizer_class])
    if (typeof c === 'string') return c.replace(/Fast$/, '');
  return MODEL_TYPE_CLASSES.get(modelConfig?.model_type) ?? null;
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
 * tokenizer.json with its BertNormalizer set from tokenizer_config.json (`config`, {} when the
 * file is absent) where Hugging Face's fast tokenizer class would rebuild it; the same object when
 * nothing changes. `modelConfig` is config.json, which picks the class when tokenizer_config.json
 * names none.
 */
export function withConfigNormalizer(json, config, modelConfig = {}) {
  const cls = tokenizerClass(config, modelConfig);
  const fields = cls === null ? undefined : CLASSES.get(cls);
  const normalizer = json.normalizer;
  if (!fields || !normalizer || typeof normalizer !== 'object' || normalizer.type !== 'BertNormalizer') return json;
  const wanted = {
    lowercase: flag(config, 'do_lower_case', true, false),
    strip_accents: flag(config, 'strip_accents', null, true),
    handle_chinese_chars: flag(config, 'tokenize_chinese_chars', true, false),
  };
  const current = (k) => (normalizer[k] === undefined ? RUST_DEFAULTS[k] : normalizer[k]);
  if (fields.every((k) => current(k) === wanted[k])) return json;
  const rebuilt = { ...normalizer };
  for (const k of fields) rebuilt[k] = wanted[k];
  return { ...json, normalizer: rebuilt };
}

// GPT2TokenizerFast and RobertaTokenizerFast (tokenization_gpt2_fast.py, tokenization_roberta_fast.py,
// v4) do the same with the pre-tokenizer: their add_prefix_space (tokenizer_config.json's, default
// False) replaces tokenizer.json's when the top-level pre-tokenizer carries a different one (a
// ByteLevel; a Sequence has no such field at the top and is kept). So a byte-level tokenizer.json
// written with add_prefix_space true tokenizes "Hello" as "ĠHello" only when the config says true
// too. The post-processor's add_prefix_space and trim_offsets, which Roberta's class also resets,
// move offsets only, not ids, and are left as written.
const PREFIX_SPACE_CLASSES = new Set(['GPT2Tokenizer', 'RobertaTokenizer']);

/**
 * tokenizer.json with its top-level pre-tokenizer's add_prefix_space set as GPT2TokenizerFast /
 * RobertaTokenizerFast would set it; the same object when nothing changes.
 */
export function withConfigPreTokenizer(json, config, modelConfig = {}) {
  const cls = tokenizerClass(config, modelConfig);
  const pre = json.pre_tokenizer;
  if (!PREFIX_SPACE_CLASSES.has(cls) || !pre || typeof pre !== 'object' || typeof pre.add_prefix_space !== 'boolean') return json;
  // null is left alone: Python would hand None to the pre-tokenizer's constructor, never meant.
  if (config.add_prefix_space === null) return json;
  const wanted = flag(config, 'add_prefix_space', false, false);
  if (pre.add_prefix_space === wanted) return json;
  return { ...json, pre_tokenizer: { ...pre, add_prefix_space: wanted } };
}

// LlamaTokenizerFast (tokenization_llama_fast.py, v4; Mistral's model_type maps to it too) always
// replaces tokenizer.json's post-processor in __init__ (update_post_processor): a TemplateProcessing
// "<bos>:0 $A:0 <eos>:0" for one text and "... <bos>:1 $B:1 <eos>:1" for a pair, each special token
// present only when add_bos_token (default True) / add_eos_token (default False) say so, with
// bos_token / eos_token from tokenizer_config.json (defaults "<s>" / "</s>"). So a fine-tune whose
// tokenizer_config.json sets add_eos_token true gets "</s>" appended in Python. Where Python would
// raise (a token that is null while asked for) or the token is not in the vocabulary (Python would
// use the unknown token's id), tokenizer.json's post-processor is kept as written.
const tokenText = (t) => (typeof t === 'string' ? t : t && typeof t === 'object' && typeof t.content === 'string' ? t.content : t);

function tokenId(json, text) {
  const added = Array.isArray(json.added_tokens) ? json.added_tokens.find((t) => t?.content === text) : undefined;
  if (added && Number.isSafeInteger(added.id)) return added.id;
  const vocab = json.model?.vocab;
  if (Array.isArray(vocab)) {  // Unigram: [piece, score] pairs, the id is the index
    const i = vocab.findIndex((e) => Array.isArray(e) && e[0] === text);
    return i >= 0 ? i : null;
  }
  return vocab && typeof vocab === 'object' && Number.isSafeInteger(vocab[text]) ? vocab[text] : null;
}

/**
 * tokenizer.json with the post-processor LlamaTokenizerFast builds; the same object for other
 * classes and where that post-processor cannot be built (see above).
 */
export function withConfigPostProcessor(json, config, modelConfig = {}) {
  if (tokenizerClass(config, modelConfig) !== 'LlamaTokenizer') return json;
  const addBos = flag(config, 'add_bos_token', true, false), addEos = flag(config, 'add_eos_token', false, false);
  const parts = [];
  for (const [add, key, fallback] of [[addBos, 'bos_token', '<s>'], [addEos, 'eos_token', '</s>']]) {
    if (!add) { parts.push(null); continue; }
    const text = key in config ? tokenText(config[key]) : fallback;
    const id = typeof text === 'string' ? tokenId(json, text) : null;
    if (id === null) return json;
    parts.push({ text, id });
  }
  const [bos, eos] = parts;
  const special = (t, typeId) => (t ? [{ SpecialToken: { id: t.text, type_id: typeId } }] : []);
  const seq = (name, typeId) => [...special(bos, typeId), { Sequence: { id: name, type_id: typeId } }, ...special(eos, typeId)];
  const specialTokens = {};
  for (const t of [bos, eos]) if (t) specialTokens[t.text] = { id: t.text, ids: [t.id], tokens: [t.text] };
  return {
    ...json,
    post_processor: { type: 'TemplateProcessing', single: seq('A', 0), pair: [...seq('A', 0), ...seq('B', 1)], special_tokens: specialTokens },
  };
}
