// loadPretrained: a Hugging Face model folder (config.json, model.safetensors or shards + index,
// tokenizer.json) from a folder path, a base URL, dropped files or in-memory objects -> TextModel.
//
// The weights are never copied whole into wasm memory: the C++ loader pulls each tensor's bytes
// through a synchronous read(shard, offset, length, destPtr) callback, which copies them from
// the file (Node: fs.readSync on an open descriptor) or from JS memory (browser: the downloaded
// or dropped file) straight into the destination in the wasm heap.
import { throwIfAborted } from './abortable.mjs';
import { CallHeap, createHandle, fillHeap } from './heap.mjs';
import { SimdformerError, check, fail, jsonReply } from './errors.mjs';
import { filesFileSet, isFileList, objectFileSet, urlFileSet } from './file-sets.mjs';
import { browserCaches } from './model-cache.mjs';
import { boolean, describe, func, oneOf, readOptions, value, weightsFormat } from './options.mjs';
import { TextModel } from './text-model.mjs';
import { chatTemplates } from './chat-template.mjs';
import { loadTokenizer, tokenizersLibrary } from './tokenizer.mjs';

const isUrlText = (s) => /^https?:\/\//i.test(s);

/**
 * source: a folder path (Node), a base URL (string or URL), a FileList / File[] (a dropped
 * folder), or {config, weights, tokenizer, tokenizerConfig?, index?}.
 * localFolder(path) opens a folder (Node entry only).
 */
export async function loadPretrained(module, source, options, { localFolder }) {
  const o = readOptions(options, {
    onProgress: func(), signal: value(), weights: weightsFormat(), cache: oneOf(['browser', 'none'], 'none'),
    followSymlinks: boolean(),
  }, 'loadPretrained');
  if (o.cache === 'browser') browserCaches('loadPretrained');  // refused at once where models cannot be kept
  const signal = o.signal;
  if (signal !== undefined && !(typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    fail(`loadPretrained: signal must be an AbortSignal, got ${describe(signal)}`);
  }
  // Every progress event goes through here: an aborted signal or a throwing onProgress cancels
  // (also an abort from inside the last event: the promise then rejects, nothing is returned).
  const progress = (event) => {
    throwIfAborted(signal);
    o.onProgress?.(event);
    throwIfAborted(signal);
  };
  progress({ stage: 'start', loaded: 0, total: 0 });
  const folder = (path) => localFolder(path, { followSymlinks: o.followSymlinks });  // a folder on disk (Node)
  const files = openSource(source, { localFolder: localFolder && folder, signal, progress, cache: o.cache });
  try {
    const config = await jsonFile(files, 'config.json', { required: true });
    const weights = await openWeights(files);
    const tokenizerJson = await jsonFile(files, 'tokenizer.json');
    const tokenizerConfigFile = await jsonFile(files, 'tokenizer_config.json');
    const pooling = await sentenceTransformersPooling(files);
    if (tokenizerConfigFile !== null && !isPlainObject(tokenizerConfigFile.value)) fail(`tokenizer_config.json in ${files.label} must be a JSON object`);
    const tokenizerConfig = await withSpecialTokensMap(files, tokenizerConfigFile);
    // Only a language model's folder is asked for its generation files (each absent file is a
    // request, and a 404 in a browser's console).
    const generates = generatesText(config.value);
    const generation = generates ? await generationConfig(files) : {};
    const chat = chatTemplates(tokenizerConfig?.value, generates ? await files.text('chat_template.jinja') : null);
    await tokenizersLibrary();  // fail before the weights are read if it cannot load
    const handle = loadWeights(module, config.text, weights, { progress, signal, weightsKind: o.weights, where: 'loadPretrained' });
    try {
      const info = jsonReply(handle.infoJson(), 'loadPretrained');
      if (tokenizerJson === null) fail(`tokenizer.json is missing from ${files.label}`, 'io_error');
      const tokenizer = await loadTokenizer(tokenizerJson.value, tokenizerConfig?.value ?? {}, {
        rows: info.vocab_size, maxPositions: info.max_positions, padId: Number.isSafeInteger(info.pad_token_id) ? info.pad_token_id : undefined,
        modelConfig: isPlainObject(config.value) ? config.value : {},
      });
      await files.loaded?.();  // only a folder that loaded is kept (cache 'browser')
      progress({ stage: 'done', loaded: 1, total: 1 });
      return new TextModel(module, handle, info, tokenizer, pooling, { chat, generation });
    } catch (e) {
      handle.delete();
      throw e;
    }
  } finally {
    files.close();
  }
}

function openSource(source, { localFolder, signal, progress, cache }) {
  // cache 'browser' keeps what is fetched from a URL; other sources are already on this machine.
  const local = (files) => (cache === 'browser'
    ? fail("loadPretrained: cache 'browser' keeps folders loaded from a URL; this source is not a URL") : files());
  if (typeof source === 'string') {
    if (source === '') fail("loadPretrained: source is an empty string (give a folder path or a URL; '.' is the current folder)");
    if (isUrlText(source) || !localFolder) return urlFileSet(source, { signal, progress, cache });
    return local(() => localFolder(source));
  }
  if (typeof URL === 'function' && source instanceof URL) {
    if (source.protocol === 'file:' && localFolder) return local(() => localFolder(decodeURIComponent(source.pathname)));
    return urlFileSet(source, { signal, progress, cache });
  }
  if (isFileList(source)) return local(() => filesFileSet(source, { signal }));
  if (source !== null && typeof source === 'object' && !Array.isArray(source) && !ArrayBuffer.isView(source)) return local(() => objectFileSet(source));
  return fail(`loadPretrained: source must be a folder path, a URL, a FileList / File[] or {config, weights, tokenizer}, got ${describe(source)}`);
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// No Hugging Face file nests nearly this deep; deeper JSON would overflow the stack of whoever
// walks it (the tokenizer library, JSON.stringify) with a RangeError instead of an error here.
const MAX_JSON_DEPTH = 128;

function jsonDepthExceeds(value, limit) {
  const stack = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

// A JSON file -> {text, value}; null when absent and not required. namedBy: the file that named
// this one (for errors). Invalid or too deeply nested JSON is an error naming the file.
async function jsonFile(files, name, { required = false, namedBy } = {}) {
  const text = await files.text(name, namedBy);
  if (text === null) {
    if (required) fail(`${name} is missing from ${files.label}`, 'io_error');
    return null;
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Where, never what: the engine's message quotes the text, which may be a linked file's.
    const at = /at position (\d+)/.exec(e.message)?.[1];
    fail(`${name} in ${files.label} is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`, 'invalid_argument');
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) fail(`${name} in ${files.label} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { text, value };
}

// tokenizer_config.json as transformers (v4.34+) hands it to the tokenizer class:
// PreTrainedTokenizerBase._from_pretrained reads special_tokens_map.json only for a legacy
// tokenizer_config.json (one without "added_tokens_decoder", or none at all), and then every key
// the map gives replaces the config's (its additional_special_tokens are appended to the config's,
// each once). A folder saved by a recent transformers has added_tokens_decoder, and the map is not
// read (nor asked for: each absent file is a request, and a 404 in a browser's console).
// -> {value} (the same object when nothing changes), or null without either file.
async function withSpecialTokensMap(files, tokenizerConfig) {
  if (tokenizerConfig !== null && 'added_tokens_decoder' in tokenizerConfig.value) return tokenizerConfig;
  const map = await jsonFile(files, 'special_tokens_map.json');
  if (map === null) return tokenizerConfig;
  if (!isPlainObject(map.value)) fail(`special_tokens_map.json in ${files.label} must be a JSON object`);
  const value = { ...tokenizerConfig?.value };
  for (const [key, token] of Object.entries(map.value)) {
    if (key === 'additional_special_tokens' && Array.isArray(token)) {
      const list = Array.isArray(value[key]) ? [...value[key]] : [];
      const text = (t) => (isPlainObject(t) ? t.content : t);
      for (const t of token) if (!list.some((x) => text(x) === text(t))) list.push(t);
      value[key] = list;
    } else {
      value[key] = token;
    }
  }
  return { value };
}

// A config.json whose model generates text: a decoder's model_type or a ...ForCausalLM /
// ...LMHeadModel class (the registry decides what actually loads).
function generatesText(config) {
  if (!isPlainObject(config)) return false;
  if (['gpt2', 'llama', 'qwen2', 'mistral', 'ministral'].includes(config.model_type)) return true;
  const cls = Array.isArray(config.architectures) ? config.architectures[0] : undefined;
  return typeof cls === 'string' && /(ForCausalLM|LMHeadModel)$/.test(cls);
}

// generation_config.json's token ids, which generate() prefers to config.json's (Llama 3 lists
// several eos ids there): {eosTokenIds?, bosTokenId?, padTokenId?} with what the file gives.
async function generationConfig(files) {
  const file = await jsonFile(files, 'generation_config.json');
  if (file === null) return {};
  const g = file.value;
  if (!isPlainObject(g)) fail(`generation_config.json in ${files.label} must be a JSON object`);
  const id = (v) => Number.isSafeInteger(v) && v >= 0;
  const out = {};
  if (id(g.eos_token_id)) out.eosTokenIds = [g.eos_token_id];
  else if (Array.isArray(g.eos_token_id) && g.eos_token_id.every(id)) out.eosTokenIds = [...g.eos_token_id];
  if (id(g.bos_token_id)) out.bosTokenId = g.bos_token_id;
  if (id(g.pad_token_id)) out.padTokenId = g.pad_token_id;
  return out;
}

// model.safetensors, or model.safetensors.index.json and the shards its weight_map names. (The
// single file is asked for first: most folders have it, and an absent file is a 404 in browsers.)
async function openWeights(files) {
  const single = await files.binary('model.safetensors');
  if (single) return { indexText: '', shards: [{ name: 'model.safetensors', file: single }] };
  const index = await jsonFile(files, 'model.safetensors.index.json');
  if (index === null) {
    if (await files.exists('pytorch_model.bin')) {
      fail(`${files.label} has only pytorch_model.bin, a pickled PyTorch checkpoint, which simdformer never unpickles; `
        + 'convert it to safetensors (model.save_pretrained(folder, safe_serialization=True)) and load model.safetensors', 'unsupported');
    }
    fail(`model.safetensors (or model.safetensors.index.json with its shards) is missing from ${files.label}`, 'io_error');
  }
  const map = isPlainObject(index.value) ? index.value.weight_map : undefined;
  if (!isPlainObject(map)) fail('model.safetensors.index.json has no "weight_map" object');
  const names = [...new Set(Object.values(map))];
  const shards = [];
  for (const name of names) {
    if (typeof name !== 'string' || !/^[^/\\]+\.safetensors$/.test(name) || name.startsWith('.')) {
      fail(`model.safetensors.index.json names the shard ${describe(name)}; shards must be .safetensors files in the same folder`);
    }
    const file = await files.binary(name, 'model.safetensors.index.json');
    if (!file) fail(`${name}, named by model.safetensors.index.json, is missing from ${files.label}`, 'io_error');
    shards.push({ name, file });
  }
  return { indexText: index.text, shards };
}

// sentence-transformers folders say how embeddings are pooled (<Pooling module's path>/config.json)
// and whether they are normalised (a Normalize module in modules.json). Defaults: mean, normalised.
// As in sentence-transformers, a module's path is relative to the folder ('' is the folder).
// The Transformer module's settings (sentence_bert_config.json in its path) give the length
// SentenceTransformer cuts texts to (max_seq_length: all-MiniLM-L6-v2's 256, where its tokenizer
// and positions allow 512) and whether it lowercases them first (do_lower_case).
async function sentenceTransformersPooling(files) {
  const pooling = { mode: 'mean', normalize: true, maxSeqLength: null, lowerCase: false };
  const modules = await jsonFile(files, 'modules.json');
  if (modules === null) return pooling;
  if (!Array.isArray(modules.value)) fail(`modules.json in ${files.label} must be a list of modules`);
  const list = modules.value;
  pooling.normalize = list.some((m) => typeof m?.type === 'string' && m.type.endsWith('.Normalize'));
  await transformerModuleSettings(files, list, pooling);
  const poolingModule = list.find((m) => typeof m?.type === 'string' && m.type.endsWith('.Pooling'));
  if (!poolingModule) return pooling;
  const { path } = poolingModule;
  if (typeof path !== 'string') fail(`modules.json in ${files.label}: the Pooling module's "path" must be a string, got ${describe(path)}`);
  const name = path === '' ? 'config.json' : `${path.replace(/\/+$/, '')}/config.json`;
  const config = await jsonFile(files, name, { namedBy: 'modules.json' });
  if (config === null) return pooling;
  if (!isPlainObject(config.value)) fail(`${name} in ${files.label} must be a JSON object (the Pooling module's settings)`);
  pooling.mode = poolingMode(config.value, name);
  return pooling;
}

// The names sentence-transformers' Transformer module looks for its settings under, in its order.
const TRANSFORMER_SETTINGS = ['sentence_bert_config.json', 'sentence_roberta_config.json', 'sentence_distilbert_config.json',
  'sentence_camembert_config.json', 'sentence_albert_config.json', 'sentence_xlm-roberta_config.json', 'sentence_xlnet_config.json'];

async function transformerModuleSettings(files, modules, pooling) {
  const transformer = modules.find((m) => typeof m?.type === 'string' && m.type.endsWith('.Transformer'));
  if (!transformer) return;
  const { path } = transformer;
  if (typeof path !== 'string') fail(`modules.json in ${files.label}: the Transformer module's "path" must be a string, got ${describe(path)}`);
  for (const file of TRANSFORMER_SETTINGS) {
    const name = path === '' ? file : `${path.replace(/\/+$/, '')}/${file}`;
    const settings = await jsonFile(files, name, { namedBy: 'modules.json' });
    if (settings === null) continue;
    const c = settings.value;
    if (!isPlainObject(c)) fail(`${name} in ${files.label} must be a JSON object (the Transformer module's settings)`);
    const max = c.max_seq_length;
    if (max !== undefined && max !== null) {
      if (!Number.isSafeInteger(max) || max < 1) fail(`${name} in ${files.label}: max_seq_length must be a positive integer or null, got ${describe(max)}`);
      pooling.maxSeqLength = max;
    }
    pooling.lowerCase = lowerCaseSetting(c.do_lower_case, `${name} in ${files.label}`);
    return;
  }
}

// sentence-transformers' Transformer module tests `if self.do_lower_case:`, Python's truth: absent,
// null (None), false and 0 keep the case; true and any other number (1) lowercase. A string, list or
// object is refused: Python would read "false" as true, which is never what such a file means.
function lowerCaseSetting(value, where) {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value !== 0;
  fail(`${where}: do_lower_case must be true, false, 0, 1 or null, got ${describe(value)}`);
}

// The one pooling a Pooling config asks for. sentence-transformers concatenates every mode set to
// true; simdformer pools one way (mean, cls or max), so anything else is refused rather than
// silently pooled another way.
const POOLING_MODES = { pooling_mode_cls_token: 'cls', pooling_mode_mean_tokens: 'mean', pooling_mode_max_tokens: 'max',
  pooling_mode_mean_sqrt_len_tokens: null, pooling_mode_weightedmean_tokens: null, pooling_mode_lasttoken: null };

function poolingMode(config, name) {
  const on = Object.keys(POOLING_MODES).filter((k) => config[k] === true);
  if (on.length === 0) return 'mean';
  if (on.length > 1 || POOLING_MODES[on[0]] === null) {
    fail(`${name} asks for ${on.join(' + ')}; simdformer pools with exactly one of mean, cls or max tokens`, 'unsupported');
  }
  return POOLING_MODES[on[0]];
}

// Calls ModelHandle.loadCheckpoint; on any failure (including a cancelled load) the handle is
// deleted before the error propagates, so nothing stays allocated. Also used by loadModel.
// shards: [{name, file: {size, readInto(offset, dst)}}]; where: the call named in errors. The
// callbacks never throw into wasm (that would skip C++ destructors): they record the first error
// and report failure, and it is rethrown once C++ has returned and cleaned up.
export function loadWeights(module, configText, { indexText, shards }, { progress, signal, weightsKind, where }) {
  let failure = null;
  const read = (shard, offset, length, destPtr) => {
    try {
      const s = shards[shard];
      if (!s || !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > s.file.size) {
        throw new SimdformerError(`read of ${length} bytes at ${offset} is outside ${s ? s.name : `shard ${shard}`}`, 'io_error');
      }
      throwIfAborted(signal);
      fillHeap(module, destPtr, length, (dst) => s.file.readInto(offset, dst));
      return true;
    } catch (e) {
      failure ??= e;
      return false;
    }
  };
  const onLoad = (loaded, total) => {
    try {
      progress({ stage: 'load', loaded, total });
      return true;
    } catch (e) {
      failure ??= e;
      return false;
    }
  };
  const heap = new CallHeap(module);
  const handle = createHandle(module, 'model');
  let loaded = false;
  try {
    const list = JSON.stringify(shards.map((s) => ({ name: s.name, size: s.file.size })));
    const err = handle.loadCheckpoint(heap.text(configText), heap.text(list), heap.text(indexText), read, onLoad,
      heap.text(JSON.stringify({ weights: weightsKind })));
    if (failure) throw failure;
    check(err, where);
    loaded = true;
  } finally {
    heap.free();
    if (!loaded) handle.delete();
  }
  return handle;
}
