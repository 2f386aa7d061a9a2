// The file set of a folder served over HTTP(S) (see file-sets.mjs for the interface), with
// cache 'browser': the folder kept whole in the Cache API (model-cache.mjs) and revalidated.
//
// What a server's answer means, for every file:
//   200..299        the file (bodies arrive decoded: a Content-Encoding is undone by fetch)
//   404, 410        the file is absent (410 Gone is the server saying so for good; an optional
//                   file such as modules.json that is absent changes what the model does, so
//                   nothing short of the server's word that it is not there counts as absent)
//   anything else   the load fails (io_error naming the file and the status): a 500 or a reset
//                   on 1_Pooling/config.json must not load a differently pooled model
import { throwIfAborted } from './abortable.mjs';
import { fail } from './errors.mjs';
import { insideFolder } from './file-names.mjs';
import { memoryBinary, memoryText } from './file-sets.mjs';  // (a cycle of hoisted functions)
import { fileUrl, folderCache, folderLocation } from './model-cache.mjs';
import { describe } from './options.mjs';

// The files whose ETag / Last-Modified stand for the folder's revision: the weights (a new
// revision of a model changes them; the Hub's ETag of a weights file is its content hash).
const VALIDATORS = ['model.safetensors', 'model.safetensors.index.json'];

// A JSON or text file (config, tokenizer, index) is at most this large, as from a folder on disk
// (node/files.mjs). Checked against the Content-Length before the body is read and while it
// arrives: a server that streams a config.json without end, or a gzip bomb (a Content-Length that
// counts the small encoded body), grew JS memory until the process died.
const MAX_TEXT_BYTES = 256 * 2 ** 20;

/**
 * A folder served over HTTP(S): files are fetched relative to `base` (see model-cache.mjs for
 * the key and the file URLs). Binary files are downloaded whole into JS memory, with progress.
 * cache 'browser': a kept folder is revalidated with one conditional request and used when
 * unchanged (or when the network fails: a 'cache' progress event says which); otherwise the
 * folder is fetched and kept whole once the model has loaded (the file set's loaded()).
 */
export function urlFileSet(base, { signal, progress, cache = 'none' }) {
  const { key, fetchFrom } = folderLocation(base, 'loadPretrained');
  const urlOf = (name, namedBy) => {
    const url = fileUrl(fetchFrom.href, insideFolder(name, namedBy));
    if (url.origin !== fetchFrom.origin || !url.pathname.startsWith(fetchFrom.pathname)) {
      fail(`${namedBy ?? 'loadPretrained'} names ${describe(name)}, which resolves outside ${key}`);
    }
    return url;
  };
  const network = networkFiles(key, signal);
  const files = cache === 'browser' ? keptFiles(key, { network, urlOf, signal, progress }) : network;
  const read = async (name, namedBy, report, limit) => {
    const r = await files.get(urlOf(name, namedBy), name);
    if (r === null) return null;
    if (!r.kept) return files.arrived(name, r, await download(r.response, name, report, signal, limit));
    const bytes = await download(r.response, name, () => {}, signal, limit);
    report({ stage: 'download', file: name, loaded: bytes.length, total: bytes.length });
    return bytes;
  };
  return {
    label: key,
    async text(name, namedBy) {
      const bytes = await read(name, namedBy, () => {}, MAX_TEXT_BYTES);
      return bytes === null ? null : memoryText(bytes);
    },
    async binary(name, namedBy) {
      const bytes = await read(name, namedBy, progress, Infinity);
      return bytes === null ? null : memoryBinary(bytes, name);
    },
    exists: (name, namedBy) => files.exists(urlOf(name, namedBy), name),
    loaded: () => files.loaded(),
    close() {},
  };
}

// The network alone: get(url, name, headers?) -> {response} | null (absent), exists(url, name).
function networkFiles(label, signal) {
  const request = async (url, name, init) => {
    try {
      return await fetch(url, { signal, ...init });
    } catch (e) {
      throwIfAborted(signal);
      return fail(`cannot fetch ${name} from ${label}: ${await whyUnreachable(url, e, signal)}`, 'io_error');
    }
  };
  const answer = (response, name) => {
    if (response.status === 404 || response.status === 410) return null;
    if (!response.ok && response.status !== 304) {
      fail(`cannot fetch ${name} from ${label}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, 'io_error');
    }
    return response;
  };
  return {
    async get(url, name, headers) {
      const response = answer(await request(url, name, headers ? { headers } : {}), name);
      return response && { response };
    },
    async exists(url, name) {
      const response = answer(await request(url, name, { method: 'HEAD' }), name);
      response?.body?.cancel().catch(() => {});
      return response !== null;
    },
    arrived: (name, r, bytes) => bytes,
    async loaded() {},
  };
}

// Why a fetch threw. A browser reports a redirect to another origin that does not allow this
// page (no CORS headers) like a dead server; asked again without following redirects, the
// answer is an opaque redirect, so the message can say what happened.
async function whyUnreachable(url, error, signal) {
  const message = error?.cause?.message ?? error?.message ?? String(error);
  // Node's fetch names a redirect loop (20 redirects followed); asked again without following,
  // its answer is a redirect too, which the CORS explanation below would misread.
  if (/redirect count exceeded/i.test(message)) return `the server redirects it again and again (a redirect loop?): ${message}`;
  try {
    const r = await fetch(url, { redirect: 'manual', signal });
    if (r.type === 'opaqueredirect' || (r.status >= 300 && r.status < 400)) {
      return `the server redirects it (HTTP ${r.status || '3xx'}) to a place this page may not read `
        + `(another origin without CORS headers allowing it): ${message}`;
    }
  } catch {
    throwIfAborted(signal);  // else unreachable indeed
  }
  return message;
}

// cache 'browser': the kept folder when it is whole and (online) unchanged, else the network's,
// collected to be kept whole by loaded(). The plan is made once, on the first file asked for.
function keptFiles(key, { network, urlOf, signal, progress }) {
  const store = folderCache(key, signal);
  let plan;
  const fetched = [];
  const absent = [];
  let validator = null;
  const decide = () => (plan ??= store.record()
    .then((record) => (record ? revalidate(record, { network, urlOf, progress, signal }) : { record: null })));
  const keptEntry = (record, name) => record.files.find((f) => f.name === name);
  return {
    async get(url, name) {
      const { record, seeded } = await decide();
      if (record && record.absent.includes(name)) return null;
      const entry = record && keptEntry(record, name);
      const kept = entry && await store.match(entry.url);
      if (kept) return { response: kept, kept: true };
      const r = seeded?.name === name ? { response: seeded.response } : await network.get(url, name);
      if (r === null && !record) absent.push(name);
      return r;
    },
    async exists(url, name) {
      const { record } = await decide();
      if (record?.absent.includes(name)) return false;
      if (record && keptEntry(record, name)) return true;
      return network.exists(url, name);
    },
    arrived(name, r, bytes) {
      fetched.push({ name, url: urlOf(name), response: r.response, bytes });
      if (VALIDATORS.includes(name) && !validator) validator = validatorOf(name, r.response.headers);
      return bytes;
    },
    async loaded() {
      const { record } = await decide();
      if (!record) await store.keep({ files: fetched, absent, validator });
    },
  };
}

const validatorOf = (name, headers) => ({ name, etag: headers.get('etag'), lastModified: headers.get('last-modified') });

// One conditional request for the folder (its validator file, with the kept ETag /
// Last-Modified) -> {record} to load the kept copy, or {record: null, seeded} to fetch the folder
// again (seeded: the validator file's new answer, used rather than asked for twice). Reported as
// {stage: 'cache', state: 'unchanged' | 'changed' | 'offline', file, reason?}.
async function revalidate(record, { network, urlOf, progress, signal }) {
  const v = record.validator ?? { name: record.files.find((f) => VALIDATORS.includes(f.name))?.name ?? 'config.json' };
  const headers = {};
  if (v.etag) headers['if-none-match'] = v.etag;
  if (v.lastModified) headers['if-modified-since'] = v.lastModified;
  const report = (state, reason) => progress({ stage: 'cache', state, file: v.name, loaded: 0, total: 0, ...(reason ? { reason } : {}) });
  let answer;
  try {
    answer = await network.get(urlOf(v.name), v.name, headers);
  } catch (e) {
    throwIfAborted(signal);
    if (e?.code !== 'io_error') throw e;
    report('offline', e.message);
    return { record };
  }
  const response = answer?.response;
  const sameTag = response?.ok && v.etag && response.headers.get('etag') === v.etag;
  if (response?.status === 304 || sameTag) {
    response.body?.cancel().catch(() => {});
    report('unchanged');
    return { record };
  }
  report('changed', answer === null ? `${v.name} is now absent` : undefined);
  return { record: null, seeded: answer && { name: v.name, response } };
}

// The body of a response, reporting {stage: 'download', file, loaded, total} as it arrives.
// total is the Content-Length when it counts the bytes that arrive: with a Content-Encoding it
// counts the encoded bytes (fetch hands over the decoded ones), and a cross-origin response
// ('cors') hides its Content-Encoding, so then the total is unknown (0) and nothing is compared
// (the browser itself fails a body cut short of its length).
// limit: the most bytes the file may have (MAX_TEXT_BYTES for text, Infinity for weights). Also
// the browser entry's loadModel(url).
export async function download(response, name, progress, signal, limit = Infinity) {
  const declared = Number(response.headers.get('content-length'));
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity' || response.type === 'cors';
  const total = !encoded && Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  const tooLarge = (n) => `${name} has ${n} bytes or more, more than the ${limit} a JSON or text file may have`;
  if (total > limit) {
    response.body?.cancel().catch(() => {});
    fail(tooLarge(total), 'io_error');
  }
  const chunks = [];
  let loaded = 0;
  const reader = response.body?.getReader();
  // Where the length is announced, the body goes straight into one buffer of that length: a
  // 500 MB model is held once, not as its chunks and then their join (twice its size at the
  // peak). A length no buffer can be made for (a lying 2^40) is no error by itself: the chunks
  // are kept instead, and the body is still held to the announced length below. Past 2 GiB (more
  // than the wasm builds' whole memory) no buffer is made up front for a length only announced.
  const buffer = reader && total && total <= 2 ** 31 ? tryBuffer(total) : null;
  let overrun = false;
  try {
    if (!reader) {
      chunks.push(new Uint8Array(await response.arrayBuffer()));
      loaded = chunks[0].length;
    }
    for (;;) {
      const { done, value } = reader ? await reader.read() : { done: true };
      if (done) break;
      if (buffer && loaded + value.length > total) {
        overrun = true;
        throw new RangeError('more than announced');  // the catch cancels the reader and says so
      }
      if (buffer) buffer.set(value, loaded);
      else chunks.push(value);
      loaded += value.length;
      if (loaded > limit) throw new RangeError('too large');
      progress({ stage: 'download', file: name, loaded, total: Math.max(total, loaded) });
    }
  } catch (e) {
    reader?.cancel().catch(() => {});
    throwIfAborted(signal);
    if (loaded > limit) fail(tooLarge(loaded), 'io_error');
    if (overrun) fail(`${name}: received more than the ${total} bytes the server announced`, 'io_error');
    fail(`${name}: the download failed: ${e?.message ?? e}`, 'io_error');
  }
  if (loaded > limit) fail(tooLarge(loaded), 'io_error');
  if (total && loaded !== total) fail(`${name}: received ${loaded} bytes, the server announced ${total}`, 'io_error');
  if (!reader) progress({ stage: 'download', file: name, loaded, total: loaded });
  return buffer ?? joined(chunks, loaded);
}

function tryBuffer(length) {
  try {
    return new Uint8Array(length);
  } catch {
    return null;  // RangeError: more than this engine can allocate
  }
}

function joined(chunks, length) {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}
