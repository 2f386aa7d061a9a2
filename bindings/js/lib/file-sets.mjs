// Where a Hugging Face model folder comes from, behind one small interface ("file set"):
//   label                      what to call the source in messages
//   text(name, namedBy?)       -> Promise<string | null>   (null: the file is absent)
//   binary(name, namedBy?)     -> Promise<{size, readInto(offset, dest: Uint8Array)} | null>
//   exists(name, namedBy?)     -> Promise<boolean>   (without reading the file)
//   close()
// Every kind passes each name through insideFolder (file-names.mjs) first; namedBy says which
// file named it (modules.json, the shard index) for the error when the name leaves the folder.
// readInto is synchronous: the C++ loader pulls tensor bytes through a synchronous callback.
// Browser-safe kinds live here (base URL, dropped File objects, in-memory objects); the Node
// folder kind is in node-files.mjs so browser bundles never see node:fs.
import { untilAborted } from './abortable.mjs';
import { fail } from './errors.mjs';
import { insideFolder } from './file-names.mjs';
import { folderCache } from './model-cache.mjs';
import { describe } from './options.mjs';

/** Bytes already in JS memory, served in slices. */
export function memoryBinary(bytes) {
  return {
    size: bytes.length,
    readInto(offset, dest) { dest.set(bytes.subarray(offset, offset + dest.length)); },
  };
}

const utf8 = (bytes) => new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);

// -- base URL --------------------------------------------------------------------------------

/**
 * A folder served over HTTP(S): files are fetched relative to `base` (a trailing slash is
 * added). Binary files are downloaded whole into JS memory, with download progress.
 * cache 'browser': each file is looked up in the Cache API first and kept there once fetched
 * (model-cache.mjs), so the folder loads again without the network.
 */
export function urlFileSet(base, { signal, progress, cache = 'none' }) {
  const text = typeof base === 'string' ? base : base.href;
  const page = globalThis.document?.baseURI ?? globalThis.location?.href;  // relative URLs: against the page
  let root;
  try {
    root = new URL(text.endsWith('/') ? text : `${text}/`, page);
  } catch {
    fail(`loadPretrained: '${text}' is not a URL${page ? '' : ' (relative URLs need a page to resolve against)'}`);
  }
  // The URL of a file: each segment percent-encoded (a literal '%' stays a '%'), and checked to
  // stay below the base, whatever the URL parser made of it.
  const urlOf = (name, namedBy) => {
    const url = new URL(insideFolder(name, namedBy).split('/').map(encodeURIComponent).join('/'), root);
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) {
      fail(`${namedBy ?? 'loadPretrained'} names ${describe(name)}, which resolves to ${url.href}, outside ${root.href}`);
    }
    return url;
  };
  const store = cache === 'browser' ? folderCache(root, signal) : null;
  const get = store ? keptGet(root, signal, store) : networkGet(root, signal);
  const read = async (name, namedBy, report) => {
    const r = await get(urlOf(name, namedBy), name);
    if (r === null) return null;
    if (r.kept) {
      const bytes = await download(r.response, name, () => {}, signal);
      report({ stage: 'download', file: name, loaded: bytes.length, total: bytes.length });
      return bytes;
    }
    const bytes = await download(r.response, name, report, signal);
    await r.keep?.(bytes);
    return bytes;
  };
  return {
    label: root.href,
    async text(name, namedBy) {
      const bytes = await read(name, namedBy, () => {});
      return bytes === null ? null : memoryText(bytes);
    },
    async binary(name, namedBy) {
      const bytes = await read(name, namedBy, progress);
      return bytes === null ? null : memoryBinary(bytes);
    },
    async exists(name, namedBy) {
      const url = urlOf(name, namedBy);
      if (store && await store.match(url)) return true;
      try {
        const r = await fetch(url, { method: 'HEAD', signal });
        return r.ok;
      } catch {
        return false;
      }
    },
    close() {},
  };
}

// get(url, name) -> {response} from the network, or null for an absent file (404 / 410).
// unreachable(url, name): what to answer when the fetch itself fails (no server, offline),
// undefined for the io_error.
function networkGet(root, signal, unreachable = async () => undefined) {
  return async (url, name) => {
    let response;
    try {
      response = await fetch(url, { signal });
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      const answer = await unreachable(url, name);
      if (answer !== undefined) return answer;
      fail(`cannot fetch ${name} from ${root}: ${e.message}`, 'io_error');
    }
    if (response.status === 404 || response.status === 410) return null;
    if (!response.ok) fail(`cannot fetch ${name} from ${root}: HTTP ${response.status}`, 'io_error');
    return { response };
  };
}

// get for cache 'browser': the kept copy ({response, kept: true}), else the network's, with
// keep(bytes) to store it once it has fully arrived (a cut-off download is never kept; absent
// files are not kept). Unreachable: a copy kept meanwhile (another load of the folder) is used;
// a file that is not kept, in a folder that is (its config.json is), was absent when the folder
// was kept (an optional file such as modules.json), so it is absent again: a kept folder loads
// without the network.
function keptGet(root, signal, store) {
  const network = networkGet(root, signal, async (url, name) => {
    const kept = await store.match(url);
    if (kept) return { response: kept, kept: true };
    return name !== 'config.json' && await store.holdsFolder() ? null : undefined;
  });
  return async (url, name) => {
    const hit = await store.match(url);
    if (hit) return { response: hit, kept: true };
    const r = await network(url, name);
    return r && !r.kept ? { ...r, keep: (bytes) => store.keep(url, r.response, bytes) } : r;
  };
}

// The body of a response, reporting {stage: 'download', file, loaded, total} as it arrives.
async function download(response, name, progress, signal) {
  const declared = Number(response.headers.get('content-length'));
  const total = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  if (!response.body) {
    let bytes;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      fail(`${name}: the download failed: ${e?.message ?? e}`, 'io_error');
    }
    progress({ stage: 'download', file: name, loaded: bytes.length, total: bytes.length });
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      progress({ stage: 'download', file: name, loaded, total: Math.max(total, loaded) });
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    if (signal?.aborted) throw signal.reason;
    fail(`${name}: the download failed: ${e?.message ?? e}`, 'io_error');
  }
  if (total && loaded !== total) fail(`${name}: received ${loaded} bytes, the server announced ${total}`, 'io_error');
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}

// -- dropped files (FileList / File[]) -------------------------------------------------------

/**
 * Files picked or dropped by the user. A dropped folder's files carry webkitRelativePath
 * ("folder/1_Pooling/config.json"): they are found by that path without the folder's own name.
 * Plain File objects are found by their name.
 */
export function filesFileSet(files, { signal }) {
  const byName = new Map();
  for (const f of Array.from(files)) {
    if (!isBlobLike(f)) fail(`a dropped file list must hold File objects, got ${describe(f)}`);
    const relative = typeof f.webkitRelativePath === 'string' ? f.webkitRelativePath.split('/').slice(1).join('/') : '';
    const name = relative || f.name;
    if (byName.has(name)) fail(`two files named ${name} were given`);
    byName.set(name, f);
  }
  const find = (name, namedBy) => byName.get(insideFolder(name, namedBy));
  return {
    label: 'the given files',
    async text(name, namedBy) {
      const f = find(name, namedBy);
      return f ? memoryText(await fileBytes(f, name, signal)) : null;
    },
    async binary(name, namedBy) {
      const f = find(name, namedBy);
      return f ? memoryBinary(await fileBytes(f, name, signal)) : null;
    },
    async exists(name, namedBy) { return find(name, namedBy) !== undefined; },
    close() {},
  };
}

// A File's bytes, checked: File-like objects may lie (arrayBuffer() resolving to something else,
// a detached buffer, fewer or more bytes than `size`), and the wait ends when the load aborts.
async function fileBytes(file, name, signal) {
  let buffer;
  try {
    buffer = await untilAborted(file.arrayBuffer(), signal);
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    fail(`cannot read ${name} from the given files: ${e?.message ?? e}`, 'io_error');
  }
  if (Object.prototype.toString.call(buffer) !== '[object ArrayBuffer]') {
    fail(`${name}: arrayBuffer() gave ${describe(buffer)}, not an ArrayBuffer`, 'io_error');
  }
  // (A detached buffer has byteLength 0.)
  if (buffer.byteLength !== file.size) fail(`${name}: the file says it has ${file.size} bytes but arrayBuffer() gave ${buffer.byteLength}`, 'io_error');
  return viewOf(buffer, `${name}'s arrayBuffer()`);
}

// Text of a JSON file's bytes (too large to be a string is an error, not a RangeError).
function memoryText(bytes) {
  try {
    return utf8(bytes);
  } catch (e) {
    return fail(`a file of ${bytes.length} bytes cannot be read as text: ${e?.message ?? e}`, 'io_error');
  }
}

const isBlobLike = (f) => f !== null && typeof f === 'object' && typeof f.arrayBuffer === 'function' && typeof f.size === 'number'
  && typeof f.name === 'string';

export const isFileList = (source) => (typeof FileList === 'function' && source instanceof FileList)
  || (Array.isArray(source) && source.length > 0 && source.every(isBlobLike));

// -- objects and bytes -----------------------------------------------------------------------

const OBJECT_KEYS = ['config', 'weights', 'tokenizer', 'tokenizerConfig', 'index'];

/**
 * { config, weights, tokenizer, tokenizerConfig?, index? }: config / tokenizer / tokenizerConfig /
 * index as objects, JSON text or bytes; weights as bytes (one model.safetensors), or an object
 * {fileName: bytes} of shards together with `index` (model.safetensors.index.json).
 */
export function objectFileSet(source) {
  for (const key of Object.keys(source)) {
    if (!OBJECT_KEYS.includes(key)) fail(`loadPretrained: unknown key '${key}' (allowed: ${OBJECT_KEYS.join(', ')})`);
  }
  const own = (k) => (Object.prototype.hasOwnProperty.call(source, k) ? source[k] : undefined);
  const files = new Map();
  const json = (name, v) => {
    if (v === undefined) return;
    if (typeof v === 'string') files.set(name, { text: v });
    else if (isBytes(v)) files.set(name, { text: memoryText(viewOf(v, name)) });
    else if (v !== null && typeof v === 'object') files.set(name, { text: jsonText(v, name) });
    else fail(`loadPretrained: ${name} must be an object, JSON text or bytes, got ${describe(v)}`);
  };
  json('config.json', own('config'));
  json('tokenizer.json', own('tokenizer'));
  json('tokenizer_config.json', own('tokenizerConfig'));
  json('model.safetensors.index.json', own('index'));
  const weights = own('weights');
  if (isBytes(weights)) {
    files.set('model.safetensors', { bytes: viewOf(weights, 'weights') });
  } else if (weights !== null && typeof weights === 'object' && !Array.isArray(weights)) {
    for (const [name, bytes] of Object.entries(weights)) {
      if (!isBytes(bytes)) fail(`loadPretrained: weights['${name}'] must be bytes, got ${describe(bytes)}`);
      files.set(insideFolder(name, 'weights'), { bytes: viewOf(bytes, `weights['${name}']`) });
    }
  } else if (weights !== undefined) {
    fail(`loadPretrained: weights must be bytes or {fileName: bytes}, got ${describe(weights)}`);
  }
  const find = (name, namedBy) => files.get(insideFolder(name, namedBy));
  return {
    label: 'the given objects',
    async text(name, namedBy) { const f = find(name, namedBy); return f ? f.text ?? memoryText(f.bytes) : null; },
    async binary(name, namedBy) { const f = find(name, namedBy); return f?.bytes ? memoryBinary(f.bytes) : null; },
    async exists(name, namedBy) { return find(name, namedBy) !== undefined; },
    close() {},
  };
}

const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);

// Bytes as a Uint8Array over the same memory; a detached buffer is an error naming `what`.
function viewOf(v, what) {
  try {
    if (v instanceof Uint8Array) return v;
    return v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  } catch (e) {
    return fail(`loadPretrained: ${what} cannot be read (a detached ArrayBuffer?): ${e?.message ?? e}`);
  }
}

function jsonText(value, name) {
  try {
    return JSON.stringify(value);
  } catch (e) {
    return fail(`loadPretrained: ${name} cannot be written as JSON: ${e.message}`);
  }
}
