// A model-folder server on 127.0.0.1 that misbehaves as real ones do, for the URL-loading tests:
// files from a folder map (mount prefix -> {name: Buffer}), served with an ETag (content hash)
// that honours If-None-Match, and per-request misbehaviour chosen by the test:
//   misbehave(name, req) -> undefined (serve normally) | { status } | { reset: true } | { gzip: true } | { br: true }
//     | { truncate: bytes } (announces the full length, sends fewer, closes) | { redirect: url }
//     | { delay: ms } (then serve normally) | { hang: true } (never answers; closed with the server)
// Every request is logged ({method, path, name, headers}); more than maxRequests is a test bug,
// answered 503 and recorded in overflow, so a loop cannot run unbounded.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** {relative name: Buffer} of every file under dir. */
export function folderFiles(dir, prefix = '') {
  const files = {};
  for (const entry of readdirSync(join(dir, prefix))) {
    const name = prefix ? `${prefix}/${entry}` : entry;
    if (statSync(join(dir, name)).isDirectory()) Object.assign(files, folderFiles(dir, name));
    else files[name] = readFileSync(join(dir, name));
  }
  return files;
}

const etagOf = (bytes) => `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`;

export async function misbehavingServer({ folders, misbehave = () => undefined, maxRequests = 400 }) {
  const log = [];
  const state = { folders, misbehave, overflow: 0 };
  const server = createServer((req, res) => serve(state, log, maxRequests, req, res));
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    log,
    state,
    close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }),
  };
}

function find(folders, path) {
  for (const [prefix, files] of Object.entries(folders)) {
    if (path.startsWith(prefix)) return { name: path.slice(prefix.length), files };
  }
  return { name: path, files: {} };
}

async function serve(state, log, maxRequests, req, res) {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const { name, files } = find(state.folders, path);
  log.push({ method: req.method, path, query: new URL(req.url, 'http://x').search, name, headers: req.headers });
  if (log.length > maxRequests) { state.overflow++; res.writeHead(503).end(); return; }
  const act = state.misbehave(name, req) ?? {};
  if (act.hang) return;
  if (act.delay) await new Promise((ok) => setTimeout(ok, act.delay));
  if (act.reset) { req.socket.destroy(); return; }
  if (act.status) { res.writeHead(act.status, { 'content-type': 'text/plain' }).end(`HTTP ${act.status}`); return; }
  if (act.redirect) { res.writeHead(302, { location: act.redirect }).end(); return; }
  const bytes = files[name];
  if (!bytes) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
  const etag = etagOf(bytes);
  if (req.headers['if-none-match'] === etag) { res.writeHead(304, { etag }).end(); return; }
  const encoding = act.gzip ? 'gzip' : act.br ? 'br' : null;
  const body = act.gzip ? gzipSync(bytes) : act.br ? brotliCompressSync(bytes) : bytes;
  const headers = { 'content-type': name.endsWith('.json') ? 'application/json' : 'application/octet-stream', etag,
    'content-length': body.length, ...(encoding ? { 'content-encoding': encoding } : {}) };
  res.writeHead(200, headers);
  if (req.method === 'HEAD') { res.end(); return; }
  if (act.truncate !== undefined) { res.write(body.subarray(0, act.truncate)); res.socket.destroySoon?.(); setTimeout(() => req.socket.destroy(), 20); return; }
  res.end(body);
}

/** A Cache API in memory (what the library uses of it), to check in Node what is kept. */
export function memoryCaches() {
  const stores = new Map();
  const open = async (name) => {
    if (!stores.has(name)) stores.set(name, new Map());
    const m = stores.get(name);
    return {
      async match(req) { const r = m.get(String(req.url ?? req)); return r?.clone(); },
      async put(req, res) { const body = await res.arrayBuffer(); m.set(String(req.url ?? req), new Response(body, res)); },
      async keys() { return [...m.keys()].map((url) => ({ url })); },
      async delete(req) { return m.delete(String(req.url ?? req)); },
    };
  };
  return { open, stores };
}
