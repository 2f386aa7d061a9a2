// Text generation with a causal language model (GPT-2, Llama, Qwen2, Mistral), driven from
// JavaScript one step at a
// time: ModelHandle.decodeBegin runs the prompt into the key/value cache, each decodeStep
// returns one token per prompt, and decodeEnd closes the run. C++ never calls into JavaScript
// while a step runs, so onToken may stream, return false to stop, throw, or await; an
// AbortSignal stops the run at the next step; nothing in wasm memory outlives the call.
import { throwIfAborted, untilAborted } from './abortable.mjs';
import { check, fail } from './errors.mjs';
import { CallHeap, copyF32, copyI32, copyU8 } from './heap.mjs';
import { isConversation, renderChat } from './chat-template.mjs';
import { nextTurn } from './next-turn.mjs';
import { describe, func, integer, oneOf, readOptions, value } from './options.mjs';
import { readList } from './text-inputs.mjs';

/** A finite number in [min, max]. */
const numberIn = (min, max) => ({
  fallback: undefined,
  read: (v, what) => (typeof v === 'number' && v >= min && v <= max ? v : fail(`${what} must be a number in [${min}, ${max}], got ${describe(v)}`)),
});

/** applyChatTemplate's options: an object (checked whatever the input, so a wrong one is never ignored). */
const chatOptions = () => ({
  fallback: {},
  read: (v, what) => (v === null ? {} : typeof v === 'object' && !Array.isArray(v) ? v : fail(`${what} must be an object (applyChatTemplate's options), got ${describe(v)}`)),
});

const MAX_STOP_TOKENS = 1024;  // kMaxStopTokens in model/decoding.h
// A stop list is read no further than this many items (at most 1024 different ids, and the texts
// are each searched for at every step): a Proxy saying it holds 2^32 - 1 valid items was read
// item by item for minutes. (A wrong item before it is named as such, holes included.)
const MAX_STOP_ITEMS = 65536;

// As Hugging Face reads them: top_k 0 is no top-k filter and one above the vocabulary keeps it
// all (TopKLogitsWarper's min(top_k, vocab)); top_p in [0, 1], 0 keeping the best token.
function optionSpec(info) {
  return {
    maxNewTokens: integer(1, info.max_positions, undefined),
    temperature: numberIn(0, 1e6),
    topK: integer(0, Number.MAX_SAFE_INTEGER, undefined),
    topP: numberIn(0, 1),
    seed: integer(0, Number.MAX_SAFE_INTEGER, undefined),
    stop: value(),
    onToken: func(),
    returnAttention: oneOf([true, 'mean', false], false),
    signal: value(),
    chatTemplate: chatOptions(),
  };
}

// Token ids: an integer typed array, or an array whose first item is a number (every item is
// checked as an id when read: promptIds).
const isIdList = (x) => (ArrayBuffer.isView(x) && !(x instanceof Float32Array || x instanceof Float64Array || x instanceof DataView))
  || (Array.isArray(x) && x.length > 0 && typeof x[0] === 'number');

// One prompt: text, or token ids. -> Int32Array of ids.
function promptIds(prompt, i, tokenizer, info) {
  const where = i === null ? 'generateText: prompt' : `generateText: prompt ${i}`;
  if (typeof prompt === 'string') {
    const ids = tokenizer.encodeOne(prompt, Number.MAX_SAFE_INTEGER).ids;
    if (ids.length >= info.max_positions) tooLong(where, ids.length, info);
    if (ids.length) return ids;
    // An empty text starts from bos, as Hugging Face's generate does without input_ids.
    if (Number.isSafeInteger(info.bos_token_id)) return Int32Array.of(info.bos_token_id);
    return fail(`${where} is empty and the model has no bos token to start from`);
  }
  if (!isIdList(prompt)) fail(`${where} must be a string or token ids, got ${describe(prompt)}`);
  const check = (id, k) => {
    if (!Number.isSafeInteger(id) || id < 0 || id >= info.vocab_size) fail(`${where}: token id ${describe(id)} at index ${k} is outside [0, ${info.vocab_size})`);
  };
  // An array is read once, id by id (a hole is refused at once, however long the array says it
  // is), and no further than the model's positions: a prompt that long is too long whatever
  // follows. (A Proxy saying it holds 2^32 - 1 valid ids was read for minutes, into an array.)
  const n = prompt.length;
  const ids = Array.isArray(prompt)
    ? Int32Array.from(readList(prompt, (id, k) => { if (k >= info.max_positions) tooLong(where, n, info); check(id, k); }))
    : Int32Array.from(prompt, (id, k) => { check(id, k); return id; });
  if (!ids.length) fail(`${where} has no token ids`);
  if (ids.length >= info.max_positions) tooLong(where, ids.length, info);
  return ids;
}

function tooLong(where, n, info) {
  fail(`${where} is too long: ${n} tokens, and the model has ${info.max_positions} positions (the prompt plus at least one new token must fit)`);
}

/**
 * A conversation ([{role, content}, ...]) or a batch of them: each rendered by the model's chat
 * template with the generation prompt (options.chatTemplate: renderChat's options) and
 * tokenized without added special tokens, as HF's apply_chat_template(tokenize=True). -> null
 * when the input is not one.
 */
async function readConversations({ chat, tokenizer, info }, input, o) {
  // A batch: its first item is a conversation (every item is checked: read here, rendered below).
  const batch = Array.isArray(input) && input.length > 0 && isConversation(input[0]);
  if (!batch && !isConversation(input)) return null;
  const conversations = batch ? readList(input, (messages, i) => {
    if (!isConversation(messages)) fail(`generateText: conversation ${i} must be a non-empty array of {role, content}, got ${describe(messages)}`);
  }) : [input];
  const prompts = [];
  for (const [i, messages] of conversations.entries()) {
    const where = batch ? `generateText: conversation ${i}` : 'generateText: the conversation';
    const text = await renderChat(chat, messages, { addGenerationPrompt: true, ...o.chatTemplate }, batch ? where : 'generateText');
    const ids = tokenizer.encodeWithoutSpecialTokens(text);
    if (!ids.length) fail(`${where} renders to no tokens`);
    if (ids.length >= info.max_positions) tooLong(where, ids.length, info);
    prompts.push(ids);
  }
  return { prompts, batch };
}

/** -> {prompts: Int32Array[], batch}: a text or ids, or an array of texts or of id lists. */
function readPrompts(input, tokenizer, info) {
  if (typeof input === 'string' || isIdList(input)) return { prompts: [promptIds(input, null, tokenizer, info)], batch: false };
  if (!Array.isArray(input) || input.length === 0) {
    fail(`generateText: expected a text, token ids, or a non-empty array of texts or of id lists, got ${describe(input)}`);
  }
  const prompts = [];
  readList(input, (p, i) => { prompts.push(promptIds(p, i, tokenizer, info)); });
  return { prompts, batch: true };
}

/**
 * The ids generation stops at by default: generation_config.json's eos ids, else config.json's
 * (every one of a list, as Llama 3 gives them): GenerationConfig's eos_token_id, which HF's
 * generate() (EosTokenCriteria) stops at, any of them. Those outside the vocabulary are dropped.
 */
export function defaultStopIds(info, generation) {
  if (generation?.eosTokenIds) return generation.eosTokenIds.filter((id) => id < info.vocab_size);
  if (Array.isArray(info.eos_token_ids)) return info.eos_token_ids;
  return Number.isSafeInteger(info.eos_token_id) ? [info.eos_token_id] : [];
}

// stop: token ids and/or texts; default the eos tokens. -> {ids, texts}, each once. A list is
// read once, item by item (a hole is a wrong item, however long the list says it is).
function readStop(stop, info, generation) {
  const ids = new Set(), texts = new Set();
  if (stop === undefined) {
    for (const id of defaultStopIds(info, generation)) ids.add(id);
  } else {
    const list = Array.isArray(stop) ? stop : [stop], n = list.length;
    readList(list, (s, k) => {
      if (k >= MAX_STOP_ITEMS) fail(`generateText: stop holds ${n} items, more than the ${MAX_STOP_ITEMS} a stop list may have`);
      if (typeof s === 'string' && s.length > 0) texts.add(s);
      else if (Number.isSafeInteger(s) && s >= 0 && s < info.vocab_size) ids.add(s);
      else fail(`generateText: stop[${k}] must be a token id in [0, ${info.vocab_size}) or a non-empty text, got ${describe(s)}`);
    });
  }
  if (ids.size > MAX_STOP_TOKENS) fail(`generateText: at most ${MAX_STOP_TOKENS} different stop token ids${stop === undefined ? " (the model's eos ids)" : ''}, got ${ids.size}`);
  return { ids: [...ids], texts: [...texts] };
}

// Greedy unless temperature > 0, topK or topP asks for sampling (temperature then defaults to 1).
function readSampling(o) {
  const sampling = (o.temperature !== undefined && o.temperature > 0) || o.topK !== undefined || o.topP !== undefined;
  if (o.temperature === 0 && (o.topK !== undefined || o.topP !== undefined)) {
    fail('generateText: topK / topP sample, but temperature 0 asks for greedy decoding');
  }
  if (!sampling) return { temperature: 0, topK: 0, topP: 1, seed: 0, sampling };
  const seed = o.seed ?? Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);
  return { temperature: o.temperature ?? 1, topK: o.topK ?? 0, topP: o.topP ?? 1, seed, sampling };
}

function checkSignal(signal) {
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean'
      && typeof signal.addEventListener === 'function')) {
    fail(`generateText: signal must be an AbortSignal, got ${describe(signal)}`);
  }
}

// This step's attention of every layer, [B, h, nSeqK] each, copied out of the workspace.
function stepMaps(module, handle, layers) {
  const maps = [];
  for (let layer = 0; layer < layers; layer++) {
    const m = handle.stepAttention(layer);
    if (!m) fail(`generateText: no attention recorded for layer ${layer}`);
    maps.push({ data: copyF32(module, m.ptr, m.nBatch * m.nhead * m.nSeqK), nhead: m.nhead, nSeqK: m.nSeqK });
  }
  return maps;
}

// Item b's rows over its real context (its left padding dropped): [layer][head], or the mean
// per layer ([layer][0]) for 'mean'.
function itemAttention(maps, b, padding, mode) {
  return maps.map(({ data, nhead, nSeqK }) => {
    const heads = [];
    for (let h = 0; h < nhead; h++) {
      const row = (b * nhead + h) * nSeqK;
      heads.push(data.slice(row + padding, row + nSeqK));
    }
    if (mode !== 'mean') return heads;
    const mean = new Float32Array(heads[0].length);
    for (const head of heads) for (let i = 0; i < mean.length; i++) mean[i] += head[i] / nhead;
    return [mean];
  });
}

// Left padding (Hugging Face's choice for decoder-only models): every prompt ends at the same
// column, so each step consumes one real token per prompt. Runs the prompts into the key/value
// cache; -> n, the padded prompt length.
function beginDecode({ module, handle, info, generation }, prompts, { maxNewTokens, sampler, stop }) {
  const B = prompts.length, n = prompts.reduce((m, p) => Math.max(m, p.length), 0);
  const pad = [info.pad_token_id, generation?.padTokenId, info.eos_token_id].find((id) => Number.isSafeInteger(id) && id < info.vocab_size) ?? 0;
  const tokens = new Int32Array(B * n).fill(pad), mask = new Uint8Array(B * n);
  prompts.forEach((p, b) => {
    tokens.set(p, b * n + n - p.length);
    mask.fill(1, b * n + n - p.length, (b + 1) * n);
  });
  const heap = new CallHeap(module);
  try {
    check(handle.decodeBegin({
      nBatch: B, nSeq: n, tokens: heap.i32(tokens), attentionMask: heap.u8(mask), maxNewTokens,
      // topK at most the vocabulary: the same filter, as a count the engine reads.
      temperature: sampler.temperature, topK: Math.min(sampler.topK, info.vocab_size), topP: sampler.topP, seed: sampler.seed,
      stopTokens: stop.ids.length ? heap.i32(Int32Array.from(stop.ids)) : 0, nStopTokens: stop.ids.length, padToken: pad,
    }), 'generateText');
  } finally {
    heap.free();  // the prompt is in the cache now; nothing of it is read again
  }
  return n;
}

// Item `it` takes token `id` (ended: the engine's stop flag for it); -> {token, delta}, the text
// this token completes.
function takeToken(it, id, ended, attention, { tokenizer, stop }) {
  const token = tokenizer.idToToken(id) ?? '';
  it.ids.push(id);
  it.tokens.push(token);
  if (it.steps) it.steps.push({ id, token, attention });
  // The new text: tokens since the last flush, decoded together (a byte-level token may end
  // inside a UTF-8 character: such text waits for the token that completes it).
  const piece = tokenizer.decode(it.ids.slice(it.pending), { skipSpecialTokens: true });
  let delta = '';
  if (!piece.endsWith('\uFFFD') || ended) {
    delta = piece;
    it.text += piece;
    it.pending = it.ids.length;
  }
  // A stop text: Hugging Face's stop_strings keep it in the output.
  if (ended || stop.texts.some((s) => it.text.includes(s))) {
    it.done = true;
    it.finishReason = 'stop';
  }
  return { token, delta };
}

// One decode step for every unfinished item, with its onToken calls; -> true when onToken
// returned false (the run is cancelled).
async function runStep({ module, handle, info, tokenizer }, items, n, o, stop) {
  check(handle.decodeStep(), 'generateText');
  const step = handle.decodeSteps() - 1, B = items.length;
  const chosen = copyI32(module, handle.stepTokens(), B);
  const ended = copyU8(module, handle.stepFinished(), B);
  const maps = o.returnAttention ? stepMaps(module, handle, info.n_layers) : null;
  for (let b = 0; b < B; b++) {
    const it = items[b];
    if (it.done) continue;
    const id = chosen[b];
    const attention = maps ? itemAttention(maps, b, n - it.promptIds.length, o.returnAttention) : undefined;
    const { token, delta } = takeToken(it, id, ended[b] !== 0, attention, { tokenizer, stop });
    if (!o.onToken) continue;
    let r = o.onToken({ index: b, step, id, token, text: delta, ...(attention ? { attention } : {}) });
    // An abort settles the call now: a pending callback's result no longer matters.
    if (r && typeof r.then === 'function') r = await untilAborted(r, o.signal);
    if (r === false) return true;
  }
  return false;
}

/**
 * Runs one generation. ctx: {module, handle, info, tokenizer}. Returns the result (or results
 * for a batch of prompts).
 */
export async function generateText(ctx, input, options) {
  const { handle, info, tokenizer } = ctx;
  const o = readOptions(options, optionSpec(info), 'generateText');
  checkSignal(o.signal);
  const { prompts, batch } = await readConversations(ctx, input, o) ?? readPrompts(input, tokenizer, info);
  const stop = readStop(o.stop, info, ctx.generation);
  const sampler = readSampling(o);
  const longest = prompts.reduce((m, p) => Math.max(m, p.length), 0);
  const room = info.max_positions - longest;  // >= 1: promptIds refuses longer prompts
  const maxNewTokens = o.maxNewTokens ?? Math.min(20, room);
  if (maxNewTokens > room) {
    fail(`generateText: the prompt's ${longest} tokens + maxNewTokens ${maxNewTokens} exceed the model's ${info.max_positions} positions`);
  }
  throwIfAborted(o.signal);
  const n = beginDecode(ctx, prompts, { maxNewTokens, sampler, stop });
  const items = prompts.map((p) => ({ promptIds: p, ids: [], tokens: [], steps: o.returnAttention ? [] : null,
    text: '', pending: 0, done: false, finishReason: null }));
  try {
    for (;;) {
      throwIfAborted(o.signal);
      if (await runStep(ctx, items, n, o, stop)) {
        for (const it of items) if (!it.done) { it.done = true; it.finishReason = 'cancelled'; }
        break;
      }
      if (handle.decodeDone() || items.every((it) => it.done)) break;
      await nextTurn();  // timers, I/O and abort events run between steps
    }
    throwIfAborted(o.signal);  // aborted during the last step's onToken: reject all the same
  } finally {
    handle.decodeEnd();
  }
  const results = items.map((it) => ({
    text: tokenizer.decode(it.ids, { skipSpecialTokens: true }),
    ids: Int32Array.from(it.ids),
    tokens: it.tokens,
    promptIds: it.promptIds,
    finishReason: it.finishReason ?? 'length',
    ...(sampler.sampling ? { seed: sampler.seed } : {}),
    ...(it.steps ? { steps: it.steps } : {}),
  }));
  return batch ? results : results[0];
}
