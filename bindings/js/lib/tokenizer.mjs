// Text -> token ids for Hugging Face models, through the npm package @huggingface/tokenizers
// (loaded on first use, so importing simdformer never loads it). This file adds what that
// package leaves out and a model needs:
//  - truncation with Hugging Face's semantics (the `tokenizers` library behind transformers'
//    fast tokenizers): max_length counts the special tokens, the *content* is cut (longest_first
//    for pairs) and [CLS]/[SEP] (<s>/</s>) are kept. transformers.js cuts the finished sequence
//    instead and so loses the final [SEP]. Every cut is reported in the result.
//  - batches padded on the right, with the attention mask (1 = real token);
//  - character offsets of every token in the original text (see token-offsets.mjs);
//  - word ids (the pre-tokenizer's split each token came from) and the overflowing windows of a
//    long second text (truncation only_second with a stride), as question answering needs them;
//  - convert_tokens_to_string (the decoder on token strings), as the pipelines build words.
import { SimdformerError, fail } from './errors.mjs';
import { boolean, describe, readOptions } from './options.mjs';
import { denseList, readList, stringList } from './text-inputs.mjs';
import { NEW_TOKENS, withTokenizerClass } from './config-normalizer.mjs';
import { checkTokenizerJson } from './tokenizer-checks.mjs';
import { byteLevelSpans, metaspaceOffsets, tokenOffsets, trimByteLevelSpans } from './token-offsets.mjs';
import { strideWindows } from './windows.mjs';

let library = null;
// Where the library comes from: the bare specifier (Node, bundlers, pages with an import map),
// or init({ tokenizers }) where bare specifiers cannot resolve (module workers, which import
// maps do not reach).
let loadLibrary = () => import('@huggingface/tokenizers');

/** init({ tokenizers }): a function returning the @huggingface/tokenizers module (a promise). */
export function setTokenizersLoader(load) {
  loadLibrary = load;
  library = null;
}

/** The @huggingface/tokenizers module, imported once on first use. */
export function tokenizersLibrary() {
  library ??= Promise.resolve().then(() => loadLibrary()).catch((e) => {
    library = null;
    fail(`cannot load the tokenizer library @huggingface/tokenizers (a dependency of simdformer): ${e.message}`, 'unsupported');
  });
  return library;
}

// Private-use code points stand in for the content when the post-processor adds the special
// tokens: it runs once per tokenizer with one placeholder per text, and the content is spliced in
// where the placeholder lands. (Post-processors place special tokens around each text, never
// inside it, so one placeholder stands for a text of any length.)
const PLACEHOLDER_A = '\u{f0000}', PLACEHOLDER_B = '\u{100000}';

/**
 * Loads tokenizer.json (+ tokenizer_config.json; `modelConfig` is config.json, which picks the
 * tokenizer class as AutoTokenizer does when tokenizer_config.json names none). `rows` is the model's embedding table size:
 * a tokenizer that can produce an id >= rows is an error here, not a crash later.
 */
export async function loadTokenizer(json, config, { rows, maxPositions, padId, modelConfig }) {
  const { Tokenizer, ByteLevelDecoder } = await tokenizersLibrary();
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail('tokenizer.json must be a JSON object');
  checkTokenizerJson(json, rows);
  // What transformers' fast tokenizer class rebuilds from tokenizer_config.json (the BERT family's
  // normalizer, GPT-2's and RoBERTa's pre-tokenizer, Llama's post-processor), with the class
  // picked as AutoTokenizer picks it (see config-normalizer.mjs).
  json = withTokenizerClass(json, config ?? {}, modelConfig ?? {});
  let tokenizer;
  try {
    tokenizer = new Tokenizer(json, config ?? {});
  } catch (e) {
    fail(`tokenizer.json cannot be used: ${e.message}`, 'unsupported');
  }
  const byteLevel = usesByteLevel(json) ? new ByteLevelDecoder({}) : null;
  return new TextTokenizer(tokenizer, json, config ?? {}, byteLevel, { rows, maxPositions, padId });
}

function usesByteLevel(json) {
  return usesType(json.pre_tokenizer, 'ByteLevel') || usesType(json.decoder, 'ByteLevel');
}

// A component of this type anywhere in a tokenizer.json section (Sequence nests them).
function usesType(node, type) {
  if (!node || typeof node !== 'object') return false;
  if (node.type === type) return true;
  return Object.values(node).some((v) => v && typeof v === 'object' && usesType(v, type));
}

export class TextTokenizer {
  #tokenizer;
  #surface;
  #tokenBytes;
  #unkToken;
  #rows;
  #templates;
  #byteDecoder;
  #metaspace;
  #spacesReplaced;
  #trims;
  #beyond;

  constructor(tokenizer, json, config, byteLevel, { rows, maxPositions, padId }) {
    this.#tokenizer = tokenizer;
    this.#rows = rows;
    // Special tokens of tokenizer_config.json that tokenizer.json lacks get new ids, as transformers
    // adds them (config-normalizer.mjs); one past the embedding table is refused where it is used:
    // at load when the post-processor adds it to every text, else when a text holds it (Python
    // loads such a folder and fails in the forward pass of a text that has the token).
    this.#beyond = new Map((json[NEW_TOKENS] ?? []).filter((t) => t.id >= rows).map((t) => [t.id, t.content]));
    let maxId = -1;
    for (const id of tokenizer.get_vocab(true).values()) if (id > maxId && !this.#beyond.has(id)) maxId = id;
    /** Number of ids the tokenizer can produce (largest id + 1; special tokens past the embedding table aside). */
    this.vocabSize = maxId + 1;
    if (this.vocabSize > rows) {
      fail(`tokenizer.json has ${this.vocabSize} tokens (ids up to ${maxId}) but the model's embedding table has ${rows} rows`);
    }
    const tokenMax = Number.isSafeInteger(config.model_max_length) && config.model_max_length > 0 ? config.model_max_length : Infinity;
    /** Longest sequence, special tokens included: the model's positions (or the tokenizer's limit). */
    this.maxLength = Math.min(maxPositions, tokenMax);
    this.#unkToken = tokenizer.model?.unk_token ?? null;  // Unigram keeps the piece's text even when its id is unk
    this.maskToken = specialToken(tokenizer, config.mask_token, ['[MASK]', '<mask>']);
    this.maskId = this.maskToken === null ? null : tokenizer.token_to_id(this.maskToken);
    this.padId = padId ?? tokenIdOf(tokenizer, config.pad_token) ?? 0;
    /** The unknown token's id (the pipelines give an unknown token its text), or null. */
    this.unkId = this.#unkToken === null ? null : tokenizer.token_to_id(this.#unkToken) ?? null;
    /** The classification token ([CLS], <s>), which question answering keeps as a candidate, or null. */
    const cls = specialToken(tokenizer, config.cls_token, ['[CLS]', '<s>']);
    this.clsId = cls === null ? null : tokenizer.token_to_id(cls);
    /**
     * The model marks word continuations (WordPiece's ##): the token-classification pipeline then
     * tells subwords by their length, otherwise by the spaces around them.
     */
    this.hasSubwordPrefix = Boolean(json.model?.continuing_subword_prefix);
    const prefix = json.model?.continuing_subword_prefix || null;
    const suffix = json.model?.end_of_word_suffix || null;
    // A token's text: subword markers removed, byte-level symbols decoded, ▁ as a space, and a
    // byte-fallback token of an ASCII byte (<0x0A>: SentencePiece's BPE when a character is not
    // in the vocabulary) as that character, so a newline gets its own place in the text; bytes of
    // longer characters stay unmatched and share their character's span.
    const byteFallback = json.model?.byte_fallback === true;
    this.#surface = (token) => {
      const fallback = byteFallback && /^<0x([0-7][0-9A-F])>$/.exec(token);
      if (fallback) return String.fromCharCode(parseInt(fallback[1], 16));
      let s = token;
      if (prefix && s.startsWith(prefix)) s = s.slice(prefix.length);
      if (suffix && s.endsWith(suffix)) s = s.slice(0, -suffix.length);
      if (byteLevel) s = byteLevel.convert_tokens_to_string([s]);
      return s.replaceAll('\u2581', ' ');
    };
    // Byte-level tokens as the UTF-8 bytes they stand for (added tokens as their own text).
    const symbolByte = byteLevel?.byte_decoder;
    this.#byteDecoder = json.decoder?.type === 'ByteLevel' ? symbolByte : null;
    this.#metaspace = usesType(json.pre_tokenizer, 'Metaspace');
    this.#spacesReplaced = spacesReplaced(json);
    this.#trims = trimSteps(json.post_processor);
    const added = new Set((json.added_tokens ?? []).map((t) => t.content));
    this.#tokenBytes = symbolByte ? (token) => (added.has(token) ? new TextEncoder().encode(token)
      : Uint8Array.from(token, (c) => Number(symbolByte[c]))) : null;
    this.#templates = { single: this.#template(false), pair: this.#template(true) };
  }

  /**
   * The text of token ids (special tokens as themselves unless skipSpecialTokens), as the
   * fill-mask pipeline shows it. ids: an array or typed array of integers in [0, rows).
   */
  decode(ids, options) {
    const isList = Array.isArray(ids) || (ArrayBuffer.isView(ids) && !(ids instanceof DataView));
    if (!isList) fail(`decode: ids must be an array of token ids, got ${describe(ids)}`);
    // An array read once, id by id (Array.from would first walk every slot of a sparse one).
    const list = readList(Array.isArray(ids) ? ids : Array.from(ids), (id, i) => {
      if (!Number.isSafeInteger(id) || id < 0 || id >= this.#rows) fail(`decode: ids[${i}] is ${describe(id)}, not a token id in [0, ${this.#rows})`);
    });
    // Read as every options object is (options.mjs): own keys only, so Object.prototype's
    // skipSpecialTokens changes nothing, and a misspelt key is refused, not ignored.
    const skip = readOptions(options, { skipSpecialTokens: boolean() }, 'decode').skipSpecialTokens;
    if (list.length === 0) return '';
    return this.#library('decode', () => this.#tokenizer.decode(list, { skip_special_tokens: skip }));
  }

  /**
   * Token strings to text as a fast tokenizer's convert_tokens_to_string does (its decoder on the
   * tokens: WordPiece joins ## continuations, Metaspace turns ▁ into spaces, ByteLevel decodes
   * the bytes; a token with characters outside the byte alphabet, such as an already decoded
   * word, stands for its own UTF-8 bytes, as in the Rust decoder).
   */
  convertTokensToString(tokens) {
    tokens = stringList(tokens, 'convertTokensToString: tokens');  // (read once; was a TypeError for a non-array)
    if (tokens.length === 0) return '';
    if (this.#byteDecoder) {
      const bytes = [];
      for (const t of tokens) {
        const chars = Array.from(t);
        if (chars.every((c) => this.#byteDecoder[c] !== undefined)) for (const c of chars) bytes.push(Number(this.#byteDecoder[c]));
        else bytes.push(...new TextEncoder().encode(t));
      }
      return new TextDecoder().decode(Uint8Array.from(bytes));
    }
    const decoder = this.#tokenizer.decoder;
    return decoder ? this.#library('decode tokens', () => decoder.decode(tokens)) : tokens.join(' ');
  }

  /** The token of an id in [0, rows), or null when the vocabulary has none for it. */
  idToToken(id) {
    if (!Number.isSafeInteger(id) || id < 0 || id >= this.#rows) fail(`idToToken: id must be a token id in [0, ${this.#rows}), got ${describe(id)}`);
    return this.#tokenizer.id_to_token(id) ?? null;
  }

  // A call into the tokenizer library: its own errors (a tokenizer.json it cannot run) become a
  // SimdformerError naming tokenizer.json.
  #library(what, fn) {
    try {
      return fn();
    } catch (e) {
      if (e instanceof SimdformerError) throw e;
      return fail(`tokenizer.json cannot ${what}: ${e?.message ?? e}`, 'unsupported');
    }
  }

  // The post-processor's output for one text (or a pair): {tokens, typeIds, ids, specials}, where
  // PLACEHOLDER_A / _B mark where each text goes and ids[i] is the id of special token i (or -1).
  #template(pair) {
    const a = [PLACEHOLDER_A], b = pair ? [PLACEHOLDER_B] : null;
    const pp = this.#tokenizer.post_processor;
    let tokens = pair ? [...a, ...b] : a, typeIds;
    if (pp) {
      const out = this.#library('add its special tokens (post_processor)', () => pp(a, b, true));
      tokens = out?.tokens;
      typeIds = out?.token_type_ids;
      // A ByteLevel post-processor returns the pair unmerged: merge it as the Rust library does.
      if (b && Array.isArray(out?.tokens_pair)) tokens = [...tokens, ...out.tokens_pair];
    }
    if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string')) fail('tokenizer.json: the post_processor does not give a token list', 'unsupported');
    for (const [mark, name] of pair ? [[PLACEHOLDER_A, 'text'], [PLACEHOLDER_B, 'text pair']] : [[PLACEHOLDER_A, 'text']]) {
      if (tokens.filter((t) => t === mark).length !== 1) fail(`tokenizer.json: the post_processor does not keep the ${name} exactly once`, 'unsupported');
    }
    if (!Array.isArray(typeIds) || typeIds.length !== tokens.length || !typeIds.every((t) => Number.isSafeInteger(t) && t >= 0)) {
      typeIds = tokens.map((t) => (t === PLACEHOLDER_B ? 1 : 0));
    }
    const ids = tokens.map((t) => {
      if (t === PLACEHOLDER_A || t === PLACEHOLDER_B) return -1;
      const id = this.#tokenizer.token_to_id(t);
      if (id === undefined) fail(`tokenizer.json's post-processor adds '${t}', which is not in its vocabulary`, 'unsupported');
      if (this.#beyond.has(id)) {
        fail(`the special token '${t}' is not in tokenizer.json's vocabulary: transformers adds it as token ${id}, and the post-processor puts it in every text, but the model's embedding table has ${this.#rows} rows`);
      }
      return id;
    });
    return { tokens, typeIds, ids, specials: tokens.length - (pair ? 2 : 1) };
  }

  /**
   * One text or a [text, textPair] -> {tokens, ids, typeIds, offsets, sequenceIds, length,
   * truncated, originalLength}. Offsets index the JS string (UTF-16 code units) of the text the
   * token came from (sequenceIds: 0 = first text, 1 = second, null = added special token), so
   * text.slice(start, end) is the token's text; special tokens get [0, 0].
   */
  encodeOne(input, maxLength, truncation = 'longest_first') {
    const pair = Array.isArray(input);
    // The pair read once (a getter could hand the check a string and the tokenizer something else).
    const [textA, textB] = pair ? [input.length === 2 ? input[0] : undefined, input[1]] : [input, null];
    if (pair && (typeof textA !== 'string' || typeof textB !== 'string')) {
      fail(`encodeOne: input must be a text or a [text, textPair] pair of strings, got ${describe(input)}`);
    }
    // The strategies it has; any other name (a typo, HF's 'only_second' or true) is refused, not
    // run as longest_first.
    if (truncation !== 'longest_first' && truncation !== 'only_first') {
      fail(`encodeOne: truncation must be 'longest_first' or 'only_first', got ${describe(truncation)}`);
    }
    const template = pair ? this.#templates.pair : this.#templates.single;
    checkMaxLength('encodeOne', maxLength);
    if (maxLength < template.specials + 1) fail(`maxLength ${maxLength} leaves no room for text next to ${template.specials} special tokens`);
    const a = this.#content(textA), b = pair ? this.#content(textB) : null;
    const originalLength = template.specials + a.ids.length + (b ? b.ids.length : 0);
    const room = maxLength - template.specials;
    const [keepA, keepB] = truncation === 'only_first' && b
      ? [Math.min(a.ids.length, Math.max(room - b.ids.length, 0)), b.ids.length]
      : truncatedLengths(a.ids.length, b ? b.ids.length : null, room);
    if (template.specials + keepA + keepB > maxLength) {
      fail(`the second text has ${b.ids.length} tokens: with ${template.specials} special tokens it leaves no room in maxLength ${maxLength} (truncation cuts only the first text)`);
    }
    const out = this.#fill(template, slice(a, 0, keepA), b && slice(b, 0, keepB));
    return { ...out, truncated: originalLength > out.length, originalLength };
  }

  /**
   * Question answering's inputs: tokenizer(question, context, truncation='only_second',
   * max_length, stride, return_overflowing_tokens=True) of the Rust library. When the pair is
   * longer than maxLength the context is cut into windows of room = maxLength - question tokens -
   * specials, each starting room - stride after the previous one, the last reaching the end
   * (Encoding.truncate); each window is the question + its part of the context through the
   * pair template. Every window also has wordIds (the context's words, null elsewhere).
   */
  encodeWindows(question, context, maxLength, stride) {
    windowSizes('encodeWindows', maxLength, stride);
    const template = this.#templates.pair;
    const q = this.#content(question), c = this.#content(context, { words: true });
    const total = template.specials + q.ids.length + c.ids.length;
    if (total <= maxLength) return [{ ...this.#fill(template, q, c), truncated: false, originalLength: total }];
    const toRemove = total - maxLength;
    if (c.ids.length <= toRemove) {
      fail(`the question has ${q.ids.length} tokens: with ${template.specials} special tokens it leaves no room for the context in maxSeqLen ${maxLength}`);
    }
    const room = c.ids.length - toRemove;
    if (stride >= room) {
      fail(`docStride ${stride} must be less than the ${room} context tokens each window holds (maxSeqLen ${maxLength} minus the question's ${q.ids.length} tokens and ${template.specials} special tokens)`);
    }
    return strideWindows(c.ids.length, room, stride)
      .map(([from, to]) => ({ ...this.#fill(template, q, slice(c, from, to)), truncated: true, originalLength: total }));
  }

  /**
   * Token classification over a long text: tokenizer(text, truncation=True, max_length, stride,
   * return_overflowing_tokens=True) of the Rust library. A text longer than maxLength is cut into
   * windows of room = maxLength - specials content tokens, each starting room - stride after the
   * previous one, the last reaching the end (Encoding.truncate); each window goes through the
   * single-text template. Offsets stay those of the whole text.
   */
  encodeTextWindows(text, maxLength, stride) {
    windowSizes('encodeTextWindows', maxLength, stride);
    const template = this.#templates.single;
    if (maxLength < template.specials + 1) fail(`maxLength ${maxLength} leaves no room for text next to ${template.specials} special tokens`);
    const c = this.#content(text);
    const room = maxLength - template.specials;
    const originalLength = template.specials + c.ids.length;
    if (c.ids.length <= room) return [{ ...this.#fill(template, c, null), truncated: false, originalLength }];
    if (stride >= room) {
      fail(`stride ${stride} must be less than the ${room} tokens each window holds (maxLength ${maxLength} minus ${template.specials} special tokens)`);
    }
    return strideWindows(c.ids.length, room, stride)
      .map(([from, to]) => ({ ...this.#fill(template, slice(c, from, to), null), truncated: true, originalLength }));
  }

  // The template with content a (and b) in place of its placeholders: tokens, ids, typeIds,
  // offsets, sequenceIds and wordIds (null where a part has none), length.
  #fill(template, a, b) {
    const out = { tokens: [], ids: [], typeIds: [], offsets: [], sequenceIds: [], wordIds: [] };
    const parts = new Map();
    const offsets = (part) => {
      if (!parts.has(part)) parts.set(part, this.#offsets(part));
      return parts.get(part);
    };
    template.tokens.forEach((t, i) => {
      const [from, sequence] = t === PLACEHOLDER_A ? [a, 0] : t === PLACEHOLDER_B ? [b, 1] : [null, null];
      const n = from ? from.ids.length : 1;
      for (let k = 0; k < n; k++) {
        out.tokens.push(from ? from.tokens[k] : t);
        out.ids.push(from ? from.ids[k] : template.ids[i]);
        out.typeIds.push(template.typeIds[i]);
        out.offsets.push(from ? offsets(from)[k] : [0, 0]);
        out.sequenceIds.push(sequence);
        out.wordIds.push(from?.words ? from.words[k] : null);
      }
    });
    if (!a?.words && !b?.words) delete out.wordIds;
    return { ...out, ids: Int32Array.from(out.ids), typeIds: Int32Array.from(out.typeIds), length: out.tokens.length };
  }

  /** The ids of a text without the special tokens the post-processor would add (a rendered chat
   *  prompt already holds its own: apply_chat_template tokenizes with add_special_tokens=False). */
  encodeWithoutSpecialTokens(text) {
    return Int32Array.from(this.#content(text).ids);
  }

  // The content tokens of one text (no special tokens added), with their offsets.
  #content(text, { words = false } = {}) {
    if (typeof text !== 'string') fail(`text must be a string, got ${text === null ? 'null' : typeof text}`);
    const { ids, tokens } = this.#library('encode the text', () => this.#tokenizer.encode(text, { add_special_tokens: false }));
    if (this.#beyond.size) {
      const id = ids.find((i) => this.#beyond.has(i));
      if (id !== undefined) fail(`the text holds '${this.#beyond.get(id)}', a special token tokenizer.json lacks: transformers adds it as token ${id}, but the model's embedding table has ${this.#rows} rows`);
    }
    const bytes = this.#tokenBytes && byteLevelSpans(text, tokens.map(this.#tokenBytes));
    let offsets = null;
    if (!bytes) offsets = this.#spacesReplaced ? metaspaceOffsets(text, tokens) : null;
    if (!bytes && !offsets) {
      offsets = tokenOffsets(text, tokens.map((t) => (t === this.#unkToken ? null : this.#surface(t))));
      if (this.#metaspace) alignLoneMetaspace(text, tokens, offsets);
    }
    return { ids, tokens, offsets, spans: bytes?.spans ?? null, units: bytes?.units ?? null, words: words ? this.#wordIds(text, tokens) : null };
  }

  // The offsets of one part (a text, or the window of it that truncation or a stride keeps), in
  // UTF-16 units: exact byte-level spans go through the post-processor's trim_offsets as the Rust
  // library applies it, on the part's Encoding after truncation (so a window's first token is
  // "first"); the located ones (tokenOffsets) are already final.
  #offsets(part) {
    if (!part.spans) return part.offsets;
    let spans = part.spans;
    for (const addPrefixSpace of this.#trims) spans = trimByteLevelSpans(spans, part.tokens, addPrefixSpace);
    return spans.map(part.units);
  }

  // Per token, the index of the pre-tokenizer's split it came from (the Rust Encoding's word ids):
  // the text is normalized and pre-tokenized again and each split run through the model alone.
  // When that does not give back the same tokens (added tokens inside the text), null: the caller
  // then keeps to the tokens' own offsets, as the pipeline does for tokenizers without words.
  #wordIds(text, tokens) {
    const t = this.#tokenizer;
    return this.#library('split the text into words', () => {
      const normalized = t.normalizer ? t.normalizer(text) : text;
      const splits = normalized.length === 0 ? [] : t.pre_tokenizer ? t.pre_tokenizer(normalized, { section_index: 0 }) : [normalized];
      const words = [];
      let at = 0;
      for (let w = 0; w < splits.length; w++) {
        for (const token of t.model([splits[w]])) {
          if (tokens[at] !== token) return null;
          words.push(w);
          at++;
        }
      }
      return at === tokens.length ? words : null;
    });
  }

  /**
   * A batch of texts / [text, textPair] items -> every item encoded, plus the padded batch:
   * ids, typeIds [B, n] (padded with padId / 0) and attentionMask [B, n] (1 = real token).
   */
  encodeBatch(inputs, maxLength, truncation = 'longest_first') {
    if (!Array.isArray(inputs)) fail(`encodeBatch: inputs must be an array of texts or [text, textPair] pairs, got ${describe(inputs)}`);
    // denseList: map() skips a hole, and padBatch then made its row all padding (attentionMask 0)
    // -- a hole run as an empty text, which every other batch refuses (text-inputs.mjs).
    return this.padBatch(denseList(inputs, 'encodeBatch: inputs').map((x) => this.encodeOne(x, maxLength, truncation)));
  }

  /** Encoded sequences (encodeOne, encodeWindows) -> the padded batch of encodeBatch. */
  padBatch(sequences) {
    // Checked like every batch: a hole was a row of padding, and a wrong item a TypeError.
    if (!Array.isArray(sequences)) fail(`padBatch: sequences must be an array of encoded texts (encodeOne's), got ${describe(sequences)}`);
    sequences = denseList(sequences, 'padBatch: sequences');
    sequences.forEach((s, b) => {
      const n = s?.length;
      const fits = (a) => (Array.isArray(a) || ArrayBuffer.isView(a)) && a.length === n;
      if (!Number.isSafeInteger(n) || n < 0 || !fits(s.ids) || !fits(s.typeIds)) {
        fail(`padBatch: sequences[${b}] must be an encoded text (encodeOne's: length, and ids and typeIds of that length), got ${describe(s)}`);
      }
    });
    const n = sequences.reduce((m, s) => (s.length > m ? s.length : m), 0);
    const B = sequences.length;
    const ids = new Int32Array(B * n).fill(this.padId), typeIds = new Int32Array(B * n), attentionMask = new Uint8Array(B * n);
    sequences.forEach((s, b) => {
      ids.set(s.ids, b * n);
      typeIds.set(s.typeIds, b * n);
      attentionMask.fill(1, b * n, b * n + s.length);
    });
    return { sequences, nBatch: B, nSeq: n, ids, typeIds, attentionMask };
  }
}

function checkMaxLength(what, maxLength) {
  if (!Number.isSafeInteger(maxLength)) fail(`${what}: maxLength must be an integer (tokens, special tokens included), got ${describe(maxLength)}`);
}

// The window methods' sizes, as encodeOne checks maxLength (the task heads read theirs as options
// first): a stride of NaN or a string passed 'stride >= room' and made windows that never reached
// the end (strideWindows stepped by NaN for ever, growing its list until the process died);
// negative or fractional ones cut windows no tokenizer cuts (Rust's stride is a usize).
function windowSizes(what, maxLength, stride) {
  checkMaxLength(what, maxLength);
  if (!Number.isSafeInteger(stride) || stride < 0) fail(`${what}: stride must be an integer >= 0 (tokens neighbouring windows share), got ${describe(stride)}`);
}

// Metaspace prepends ▁ to each word, aligned with the word's first character: a lone ▁ token
// (the word's first piece did not merge with it) gets that character's span, as the Rust
// library gives it (so it overlaps the next token's start).
function alignLoneMetaspace(text, tokens, offsets) {
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (tokens[k] !== '\u2581') continue;
    const at = offsets[k + 1][0];
    const cp = text.codePointAt(at);
    offsets[k] = cp === undefined ? [at, at] : [at, at + (cp > 0xffff ? 2 : 1)];
  }
}

// Tokens [from, to) of a content encoding.
function slice(c, from, to) {
  return {
    ids: c.ids.slice(from, to), tokens: c.tokens.slice(from, to), offsets: c.offsets ? c.offsets.slice(from, to) : null,
    spans: c.spans ? c.spans.slice(from, to) : null, units: c.units, words: c.words ? c.words.slice(from, to) : null,
  };
}

// Whether the text's spaces become ▁ in place (so a ▁ token's span takes in its space): a
// Replace(" " -> "▁") normalizer (Llama 2's, Mistral's tokenizer.json), or a Metaspace
// pre-tokenizer with no whitespace split before it (after WhitespaceSplit, as XLM-R's, the spaces
// are gone and each word's ▁ is prepended to it, sharing its first character's place).
function spacesReplaced(json) {
  const list = (node, key) => (node?.type === 'Sequence' && Array.isArray(node[key]) ? node[key] : node ? [node] : []);
  const replaces = list(json.normalizer, 'normalizers')
    .some((n) => n?.type === 'Replace' && n.pattern?.String === ' ' && n.content === '\u2581');
  const pre = list(json.pre_tokenizer, 'pretokenizers');
  const metaspace = pre.findIndex((p) => p?.type === 'Metaspace');
  const splitsFirst = pre.slice(0, Math.max(metaspace, 0)).some((p) => ['WhitespaceSplit', 'Whitespace', 'BertPreTokenizer', 'Split'].includes(p?.type));
  return replaces || (metaspace >= 0 && !splitsFirst);
}

// The post-processors that trim offsets (processors/byte_level.rs process_offsets: a ByteLevel or
// RobertaProcessing with trim_offsets, alone or in a Sequence, each applied in turn): their
// add_prefix_space each. Fields left out are the Rust defaults (true). Other post-processors
// (TemplateProcessing, BertProcessing) leave offsets as the model gave them.
function trimSteps(pp) {
  const list = pp?.type === 'Sequence' && Array.isArray(pp.processors) ? pp.processors : [pp];
  return list.filter((p) => (p?.type === 'ByteLevel' || p?.type === 'RobertaProcessing') && p.trim_offsets !== false)
    .map((p) => p.add_prefix_space !== false);
}

function tokenIdOf(tokenizer, token) {
  const content = typeof token === 'string' ? token : token && typeof token.content === 'string' ? token.content : null;
  return content === null ? null : tokenizer.token_to_id(content) ?? null;
}

// The mask token: tokenizer_config's, else a conventional one the vocabulary has.
function specialToken(tokenizer, configured, conventional) {
  const c = typeof configured === 'string' ? configured : configured && typeof configured.content === 'string' ? configured.content : null;
  for (const t of c ? [c] : conventional) if (tokenizer.token_to_id(t) !== undefined) return t;
  return null;
}

/**
 * How many content tokens each text keeps so that nA + nB <= room, as the Rust `tokenizers`
 * library truncates (TruncationStrategy::LongestFirst, right side, stride 0): the longer text is
 * cut first; when both must be cut they get room/2 each, the longer one the odd token.
 * nB = null for a single text.
 */
export function truncatedLengths(nA, nB, room) {
  if (nB === null) return [Math.min(nA, room), 0];
  if (nA + nB <= room) return [nA, nB];
  let n1 = nA, n2 = nB;
  const swap = n1 > n2;
  if (swap) [n1, n2] = [n2, n1];
  n2 = n1 > room ? n1 : Math.max(n1, room - n1);
  if (n1 + n2 > room) {
    n1 = Math.floor(room / 2);
    n2 = n1 + (room % 2);
  }
  if (swap) [n1, n2] = [n2, n1];
  return [Math.min(nA, n1), Math.min(nB, n2)];
}
