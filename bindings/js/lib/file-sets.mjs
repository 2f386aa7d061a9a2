// Where a Hugging Face model folder comes from, behind one small interface ("file set"):
//   label                      what to call the source in messages
//   text(name, namedBy?)       -> Promise<string | null>   (null: the file is absent)
//   binary(name, namedBy?)     -> Promise<{size, readInto(offset, dest: Uint8Array)} | null>
//   exists(name, namedBy?)     -> Promise<boolean>   (without reading the file)
//   loaded()                   -> Promise<void>, optional: the model loaded (a URL source with
//                                 cache 'browser' keeps the folder then, whole)
//   close()
// Every kind passes each name through insideFolder (file-names.mjs) first; namedBy says which
// file named it (modules.json, the shard index) for the error when the name leaves the folder.
// readInto is synchronous: the C++ loader pulls tensor bytes through a synchronous callback.
// Browser-safe kinds live here (dropped File objects, in-memory objects; base URLs in
// url-files.mjs); the Node
// folder kind is in node-files.mjs so browser bundles never see node:fs.
import { throwIfAborted, untilAborted } from './abortable.mjs';
import { fail } from './errors.mjs';
import { insideFolder } from './file-names.mjs';
import { describe } from './options.mjs';

/**
 * Bytes already in JS memory, served in slices. The caller's buffer is not copied (weights are
 * large), and the loader reads it tensor by tensor while onProgress runs: a buffer detached
 * (transferred) or resized meanwhile would give a short slice, which set() copies without a word,
 * leaving the rest of the wasm block as it was (stale heap bytes in the weights). Such a read is
 * an io_error naming the file.
 */
export function memoryBinary(bytes, name = 'model.safetensors') {
  const size = bytes.length;
  return {
    size,
    readInto(offset, dest) {
      // (A detached or out-of-bounds view has length 0; subarray() of one would throw a TypeError.)
      if (bytes.length !== size) {
        fail(`${name} changed while it was read: ${size} bytes when the load began, ${bytes.length} now `
          + '(its ArrayBuffer was detached or resized)', 'io_error');
      }
      dest.set(bytes.subarray(offset, offset + dest.length));
    },
  };
}

const utf8 = (bytes) => new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);

// -- base URL: url-files.mjs --------------------------------------------------------------

export { urlFileSet } from './url-files.mjs';

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
      return f ? memoryBinary(await fileBytes(f, name, signal), name) : null;
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
    throwIfAborted(signal);
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
export function memoryText(bytes) {
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
    async binary(name, namedBy) { const f = find(name, namedBy); return f?.bytes ? memoryBinary(f.bytes, name) : null; },
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
