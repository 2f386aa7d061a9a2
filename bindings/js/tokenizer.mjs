// Text -> token ids for Hugging Face models, through the npm package @huggingface/tokenizers
// (loaded on first use, so importing simdformer never loads it). This file adds what that
// package leaves out and a model needs:
//  - truncation with Hugging Face's semantics (the `tokenizers` library behind transformers'
//    fast tokenizers): max_length counts the special tokens, the *content* is cut (longest_first
//    for pairs) and [CLS]/[SEP] (<s>/</s>) are kept. transformers.js cuts the finished sequence
//    instead and so loses the final [SEP]. Every cut is reported in the result.
//  - batches padded on the right, with the attention mask (1 = real token);
//  - character offsets of every token in the original text (see token-offsets.mjs).
import { fail } from './errors.mjs';
import { byteLevelOffsets, tokenOffsets } from './token-offsets.mjs';

let library = null;

/** The @huggingface/tokenizers module, imported once on first use. */
export function tokenizersLibrary() {
  library ??= import('@huggingface/tokenizers').catch((e) => {
    library = null;
    fail(`cannot load the tokenizer library @huggingface/tokenizers (a dependency of simdformer): ${e.message}`, 'unsupported');
  });
  return library;
}

// Private-use code points stand in for content tokens when the post-processor adds the special
// tokens, so the output tells exactly which positions came from which text.
const PLACEHOLDER_A = 0xf0000, PLACEHOLDER_B = 0x100000;
const placeholders = (n, base) => Array.from({ length: n }, (_, i) => String.fromCodePoint(base + i));

/**
 * Loads tokenizer.json (+ tokenizer_config.json). `rows` is the model's embedding table size:
 * a tokenizer that can produce an id >= rows is an error here, not a crash later.
 */
export async function loadTokenizer(json, config, { rows, maxPositions, padId }) {
  const { Tokenizer, ByteLevelDecoder } = await tokenizersLibrary();
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail('tokenizer.json must be a JSON object');
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
  const types = [];
  const walk = (node) => {
    if (!node || typeof node !== 'object') return;
    if (typeof node.type === 'string') types.push(node.type);
    for (const v of Object.values(node)) if (v && typeof v === 'object') walk(v);
  };
  walk(json.pre_tokenizer);
  walk(json.decoder);
  return types.includes('ByteLevel');
}

export class TextTokenizer {
  #tokenizer;
  #surface;
  #tokenBytes;
  #unkToken;
  #specialsSingle;
  #specialsPair;

  constructor(tokenizer, json, config, byteLevel, { rows, maxPositions, padId }) {
    this.#tokenizer = tokenizer;
    let maxId = -1;
    for (const id of tokenizer.get_vocab(true).values()) if (id > maxId) maxId = id;
    /** Number of ids the tokenizer can produce (largest id + 1). */
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
    const prefix = json.model?.continuing_subword_prefix || null;
    const suffix = json.model?.end_of_word_suffix || null;
    // A token's text: subword markers removed, byte-level symbols decoded, ▁ as a space.
    this.#surface = (token) => {
      let s = token;
      if (prefix && s.startsWith(prefix)) s = s.slice(prefix.length);
      if (suffix && s.endsWith(suffix)) s = s.slice(0, -suffix.length);
      if (byteLevel) s = byteLevel.convert_tokens_to_string([s]);
      return s.replaceAll('\u2581', ' ');
    };
    // Byte-level tokens as the UTF-8 bytes they stand for (added tokens as their own text).
    const symbolByte = byteLevel?.byte_decoder;
    const added = new Set((json.added_tokens ?? []).map((t) => t.content));
    this.#tokenBytes = symbolByte ? (token) => (added.has(token) ? new TextEncoder().encode(token)
      : Uint8Array.from(token, (c) => Number(symbolByte[c]))) : null;
    this.#specialsSingle = this.#process(0, null).tokens.length;
    this.#specialsPair = this.#process(0, 0).tokens.length;
  }

  /** Token text for an id (special tokens as themselves), as the fill-mask pipeline shows it. */
  decode(ids, { skipSpecialTokens = false } = {}) {
    return this.#tokenizer.decode(Array.from(ids), { skip_special_tokens: skipSpecialTokens });
  }

  idToToken(id) { return this.#tokenizer.id_to_token(id) ?? null; }

  // Adds the special tokens around nA (+ nB) content tokens: {tokens, typeIds} where content
  // positions hold placeholders.
  #process(nA, nB) {
    const a = placeholders(nA, PLACEHOLDER_A), b = nB === null ? null : placeholders(nB, PLACEHOLDER_B);
    const pp = this.#tokenizer.post_processor;
    let tokens, typeIds;
    if (pp) {
      const out = pp(a, b, true);
      tokens = out.tokens;
      typeIds = out.token_type_ids;
      // A ByteLevel post-processor returns the pair unmerged: merge it as the Rust library does.
      if (b && out.tokens_pair) tokens = [...tokens, ...out.tokens_pair];
    } else {
      tokens = b ? [...a, ...b] : a;
    }
    if (!typeIds || typeIds.length !== tokens.length) typeIds = tokens.map((t) => (isPlaceholder(t, PLACEHOLDER_B) ? 1 : 0));
    return { tokens, typeIds };
  }

  /**
   * One text or a [text, textPair] -> {tokens, ids, typeIds, offsets, sequenceIds, length,
   * truncated, originalLength}. Offsets index the JS string (UTF-16 code units) of the text the
   * token came from (sequenceIds: 0 = first text, 1 = second, null = added special token), so
   * text.slice(start, end) is the token's text; special tokens get [0, 0].
   */
  encodeOne(input, maxLength) {
    const pair = Array.isArray(input);
    const [textA, textB] = pair ? input : [input, null];
    const a = this.#content(textA), b = pair ? this.#content(textB) : null;
    const specials = pair ? this.#specialsPair : this.#specialsSingle;
    const originalLength = specials + a.ids.length + (b ? b.ids.length : 0);
    if (maxLength < specials + 1) fail(`maxLength ${maxLength} leaves no room for text next to ${specials} special tokens`);
    const [keepA, keepB] = truncatedLengths(a.ids.length, b ? b.ids.length : null, maxLength - specials);
    const { tokens: template, typeIds } = this.#process(keepA, b ? keepB : null);
    const out = { tokens: [], ids: new Int32Array(template.length), typeIds: Int32Array.from(typeIds), offsets: [], sequenceIds: [] };
    template.forEach((t, i) => {
      const from = isPlaceholder(t, PLACEHOLDER_A) ? a : isPlaceholder(t, PLACEHOLDER_B) ? b : null;
      if (from) {
        const k = t.codePointAt(0) - (from === a ? PLACEHOLDER_A : PLACEHOLDER_B);
        out.tokens.push(from.tokens[k]);
        out.ids[i] = from.ids[k];
        out.offsets.push(from.offsets[k]);
        out.sequenceIds.push(from === a ? 0 : 1);
      } else {
        const id = this.#tokenizer.token_to_id(t);
        if (id === undefined) fail(`tokenizer.json's post-processor adds '${t}', which is not in its vocabulary`, 'unsupported');
        out.tokens.push(t);
        out.ids[i] = id;
        out.offsets.push([0, 0]);
        out.sequenceIds.push(null);
      }
    });
    return { ...out, length: template.length, truncated: originalLength > template.length, originalLength };
  }

  // The content tokens of one text (no special tokens added), with their offsets.
  #content(text) {
    if (typeof text !== 'string') fail(`text must be a string, got ${text === null ? 'null' : typeof text}`);
    const { ids, tokens } = this.#tokenizer.encode(text, { add_special_tokens: false });
    const offsets = (this.#tokenBytes && byteLevelOffsets(text, tokens.map(this.#tokenBytes)))
      ?? tokenOffsets(text, tokens.map((t) => (t === this.#unkToken ? null : this.#surface(t))));
    return { ids, tokens, offsets };
  }

  /**
   * A batch of texts / [text, textPair] items -> every item encoded, plus the padded batch:
   * ids, typeIds [B, n] (padded with padId / 0) and attentionMask [B, n] (1 = real token).
   */
  encodeBatch(inputs, maxLength) {
    const sequences = inputs.map((x) => this.encodeOne(x, maxLength));
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

const isPlaceholder = (t, base) => {
  const c = typeof t === 'string' && t.length <= 2 ? t.codePointAt(0) : -1;
  return c >= base && c < base + 0x10000 && String.fromCodePoint(c) === t;
};

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
