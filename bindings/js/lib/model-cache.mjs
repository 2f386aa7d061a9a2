// Model folders kept in the browser (the contract: cache-contract.mjs): loadPretrained(url,
// { cache: 'browser' }) keeps a folder here, keptModels lists the kept folders, forgetModel
// removes one.
//
// A folder's key is its URL with the fragment and any user name / password removed and a '/'
// ending the path; the query is kept (a '?v=2' folder is another folder than '?v=1'), and each
// file of the folder is fetched and kept as <folder path><name><folder query>.
//
// A folder is one unit: loadPretrained keeps its files only once the model has loaded, writes the
// files, then the record, and a folder counts as kept only while its record and every file the
// record names are there. Files the page keeps one by one (web/model-store.mjs) carry only
// FOLDER and are each complete on their own.
import { throwIfAborted, untilAborted } from './abortable.mjs';
import { FOLDER, KEPT_AT, MODEL_CACHE, PART, RECORD, keptHeaders } from './cache-contract.mjs';
import { fail } from './errors.mjs';

// The Cache API, or a SimdformerError 'unsupported' saying why it is missing: asking to keep
// models where they cannot be kept must not silently download them every time.
export function browserCaches(where) {
  if (typeof globalThis.caches?.open === 'function') return globalThis.caches;
  const why = globalThis.isSecureContext === false
    ? 'this page is not a secure context (the Cache API needs https: or http://localhost)'
    : 'this runtime has no Cache API (Node.js has none; it exists in browsers and workers)';
  return fail(`${where}: cache 'browser' cannot keep models: ${why}`, 'unsupported');
}

/**
 * A folder's key (see above) and the URL to fetch it from; a URL with a user name or password is
 * refused (browsers' and Node's fetch refuse such URLs; the message leaves them out). where: the
 * call named in errors.
 */
export function folderLocation(url, where) {
  const text = typeof url === 'string' ? url : url?.href;
  if (typeof text !== 'string') fail(`${where}: the folder must be a URL (string or URL)`);
  const page = globalThis.document?.baseURI ?? globalThis.location?.href;  // relative URLs: against the page
  let fetchFrom;
  try {
    fetchFrom = new URL(text, page);
  } catch {
    return fail(`${where}: '${text}' is not a URL${page ? '' : ' (relative URLs need a page to resolve against)'}`);
  }
  fetchFrom.hash = '';
  if (!fetchFrom.pathname.endsWith('/')) fetchFrom.pathname += '/';
  const key = new URL(fetchFrom.href);
  key.username = '';
  key.password = '';
  if (fetchFrom.username || fetchFrom.password) {
    fail(`${where}: the URL of ${key.href} holds a user name or password, which fetch refuses to send from a URL `
      + '(and simdformer never echoes); give the server the credentials another way (a cookie, a token in a header the server sets)');
  }
  return { key: key.href, fetchFrom };
}

/** A folder's key: folderLocation(url).key. */
export const folderUrl = (url, where) => folderLocation(url, where).key;

/** The URL of `name` (already checked by insideFolder) in the folder: path below it, its query. */
export function fileUrl(folder, name) {
  const base = new URL(folder);
  const url = new URL(name.split('/').map(encodeURIComponent).join('/'), `${base.origin}${base.pathname}`);
  url.search = base.search;
  return url;
}

// A cache call that must not fail the load: a failing cache (quota, private mode) is a miss.
async function quietly(promise, signal) {
  try {
    return await untilAborted(promise, signal);
  } catch {
    throwIfAborted(signal);
    return undefined;
  }
}

// The record of a kept folder, when the record and every file it names are there; else null.
async function wholeRecord(cache, key) {
  const response = await cache.match(key);
  if (!response?.headers.has(RECORD)) return null;
  let record;
  try {
    record = await response.json();
  } catch {
    return null;
  }
  if (!Array.isArray(record?.files) || !Array.isArray(record.absent)) return null;
  for (const f of record.files) if (!(await cache.match(f.url))) return null;  // evicted or forgotten meanwhile
  return record;
}

/**
 * The kept copy of one folder (key: folderLocation's), for urlFileSet:
 *   record()                 -> Promise<record | null>  {files: [{name, url, bytes}], absent: [name],
 *                               validator: {name, etag, lastModified} | null, keptAt}
 *   match(url)               -> Promise<Response | undefined>  (a failing cache is a miss)
 *   keep({files, absent, validator}) -> Promise<void>  files: [{name, url, response, bytes}];
 *                               replaces the folder whole; a full disk keeps nothing, silently
 */
export function folderCache(key, signal) {
  const opened = browserCaches('loadPretrained').open(MODEL_CACHE);
  opened.catch(() => {});  // reported by the first match, not as an unhandled rejection
  return {
    record: async () => (await quietly(opened.then((c) => wholeRecord(c, key)), signal)) ?? null,
    match: (url) => quietly(opened.then((c) => c.match(url)), signal),
    async keep(folder) {
      try {
        await writeFolder(await opened, key, folder);
      } catch {
        // Not kept (quota, private mode): this load has the bytes; the next one fetches again.
        // The files written so far are leftovers (no record names them): give their space back.
        const cache = await opened.catch(() => null);
        for (const f of folder.files) await cache?.delete(f.url).catch(() => {});
      }
    },
  };
}

// The old record goes first (a write cut off halfway leaves no record naming a mix of two
// revisions), then the files, then the new record; files of the old revision not in the new one
// are removed last.
async function writeFolder(cache, key, { files, absent, validator }) {
  const old = await wholeRecord(cache, key);
  await cache.delete(key);
  for (const f of files) {
    const headers = keptHeaders(f.response.headers, f.bytes.length, key, { part: true });
    await cache.put(f.url, new Response(f.bytes, { status: 200, headers }));
  }
  const keptAt = new Date().toISOString();
  const record = { folder: key, keptAt, validator, absent,
    files: files.map((f) => ({ name: f.name, url: String(f.url), bytes: f.bytes.length })) };
  await cache.put(key, new Response(JSON.stringify(record), {
    headers: { 'content-type': 'application/json', [RECORD]: '1', [FOLDER]: key, [KEPT_AT]: keptAt },
  }));
  const kept = new Set(record.files.map((f) => f.url));
  for (const f of old?.files ?? []) if (!kept.has(f.url)) await cache.delete(f.url);
}

async function keptSize(response) {
  const declared = Number(response.headers.get('content-length'));
  return response.headers.has('content-length') && Number.isSafeInteger(declared) ? declared : (await response.blob()).size;
}

// Files the page keeps one by one (no PART, no RECORD), by folder: each is whole on its own.
async function pageKeptFolders(cache, byFolder) {
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    if (!response || response.headers.has(PART) || response.headers.has(RECORD)) continue;
    const url = response.headers.get(FOLDER) ?? new URL('.', request.url).href;
    const entry = byFolder.get(url) ?? { url, files: 0, bytes: 0, date: '' };
    entry.files++;
    entry.bytes += await keptSize(response);
    const at = response.headers.get(KEPT_AT) ?? '';
    if (at > entry.date) entry.date = at;
    byFolder.set(url, entry);
  }
}

/** [{ url, files, bytes, date }]: the kept model folders, newest first (date: ISO, when last kept). */
export async function keptModels() {
  const cache = await browserCaches('keptModels').open(MODEL_CACHE);
  const byFolder = new Map();
  await pageKeptFolders(cache, byFolder);
  for (const request of await cache.keys()) {
    const record = (await cache.match(request))?.headers.has(RECORD) ? await wholeRecord(cache, request.url) : null;
    if (!record) continue;  // not a record, or a folder not kept whole
    const bytes = record.files.reduce((sum, f) => sum + f.bytes, 0);
    byFolder.set(record.folder, { url: record.folder, files: record.files.length, bytes, date: record.keptAt });
  }
  return [...byFolder.values()].sort((a, b) => b.date.localeCompare(a.date));
}

/**
 * Removes the kept folder at `url` (as keptModels names it; relative URLs resolve against the
 * page, a missing '/' ends the path, the fragment is ignored, the query names the folder):
 * its record first (from then on it is not listed, also while the files go), then every file
 * that belongs to it. Resolves to the number of files removed (the record not counted).
 */
export async function forgetModel(url) {
  const cache = await browserCaches('forgetModel').open(MODEL_CACHE);
  const key = folderUrl(url, 'forgetModel');
  await cache.delete(key);
  let removed = 0;
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    const folder = response?.headers.get(FOLDER) ?? new URL('.', request.url).href;
    if (folder === key && await cache.delete(request)) removed++;
  }
  return removed;
}
