// Fuzz target for the JavaScript loading surface (issue 18): loadPretrained on folders, base URLs,
// dropped files and objects made from the Hugging Face fixtures with mutated config.json,
// tokenizer.json, tokenizer_config.json, modules.json, 1_Pooling/config.json, shard indexes and
// safetensors bytes, hostile file names, symlinks out, and File-like objects that lie about their
// bytes. For a fixed time (FUZZ_SECONDS, default 55) from a fixed seed (FUZZ_SEED) it asserts that
// every case ends in a model (which then encodes or generates, with results or SimdformerErrors)
// or a SimdformerError (or the abort's reason when the case aborts), within a per-case limit; that
// no file outside the case's folder is opened (node:fs is spied on, and each file it opened is
// judged by its real path: the kernel's path of the open descriptor, symlinks resolved) and no URL
// outside its base is fetched, as the laxest server would resolve it (%-decoded until it stops
// changing, Unicode look-alikes of . and / taken for them, trailing dots and spaces of a segment
// dropped, as Windows does); and that the wasm heap is flat at the end. Hostile names include
// double-encoded ones (%252e%252e), look-alikes (U+2024, U+FF0E, U+2215, U+FF0F) and trailing
// dots and spaces. It prints the number of executions.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { after, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, mulberry32 } from './helpers.mjs';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 55);
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed18);
const CASE_LIMIT_MS = 15000;
const CODES = ['invalid_argument', 'shape_mismatch', 'unsupported', 'io_error', 'out_of_memory', 'cancelled'];
const SECRET = 'SECRET-OUTSIDE';

const rand = mulberry32(SEED);
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];

// The fixtures as {relative name: Buffer}.
function filesOf(dir, rel = '', out = {}) {
  for (const entry of readdirSync(join(dir, rel))) {
    const name = rel ? `${rel}/${entry}` : entry;
    if (statSync(join(dir, name)).isDirectory()) filesOf(dir, name, out);
    else if (!['golden.safetensors', 'texts.json', 'vocab.txt', 'merges.txt', 'vocab.json'].includes(entry)) out[name] = readFileSync(join(dir, name));
  }
  return out;
}
const BASES = ['bert', 'bert_sharded', 'gpt2', 'roberta'].map((name) => ({ name, files: filesOf(join(DATA, 'hf', name)) }));

// -- mutations -------------------------------------------------------------------------------

const HOSTILE_NAMES = ['..', '../config.json', 'a/../..', '/etc/passwd', '%2e%2e', '%2e%2e%2fconfig.json', '..\\..', 'https://evil.test/x',
  '//evil.test/x', 'C:/x', '1_Pooling/../../config.json', 'outside', 'outside/config.json', '\u0000', '', '.',
  // decoded twice or three times by a lax server
  '%252e%252e', '%252e%252e%252fconfig.json', '%252E%252E/config.json', '%25252e%25252e/config.json', '1_Pooling/%252e%252e/%252e%252e',
  // look-alikes of . and / (ONE DOT LEADER, FULLWIDTH FULL STOP, DIVISION SLASH, FULLWIDTH SOLIDUS)
  '\u2024\u2024', '\u2024\u2024/config.json', '\uFF0E\uFF0E', '\uFF0E\uFF0E\uFF0Fconfig.json', '..\u2215config.json', '..\uFF0Fconfig.json',
  '1_Pooling\u2215\u2024\u2024\u2215\u2024\u2024',
  // trailing dots and spaces (Windows drops them: '.. ' is '..')
  '.. ', '.. /config.json', '... ', '..%20/config.json', '. ./config.json', 'config.json.', 'config.json ', '1_Pooling./config.json', '1_Pooling /config.json'];
const deep = (n) => { let v = 0; for (let i = 0; i < n; i++) v = [v]; return v; };
const INTERESTING = [null, true, false, -1, 0, 1, 1.5, 2 ** 31 + 7, 2 ** 32 + 7, 2 ** 53, 1e308, -1e308, 'NaN', '', 'x'.repeat(5000),
  [], {}, [1, 2, 3], { Regex: '(a+)+$' }, { Regex: '(' }, { String: '' }, ...HOSTILE_NAMES];
const value = () => (int(20) === 0 ? deep(50 + int(300)) : pick(INTERESTING));

// Every [parent, key] of a JSON tree (depth-limited, sampled for big trees).
function slots(root) {
  const out = [];
  const stack = [[root, 0]];
  while (stack.length && out.length < 20000) {
    const [node, depth] = stack.pop();
    if (node === null || typeof node !== 'object' || depth > 12) continue;
    for (const key of Object.keys(node)) {
      out.push([node, key]);
      stack.push([node[key], depth + 1]);
    }
  }
  return out;
}

function mutateJson(text, name) {
  if (int(6) === 0) return mutateText(text);
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return mutateText(text);
  }
  if (name === 'modules.json' && Array.isArray(json) && int(2) === 0) {
    const pooling = json.find((m) => m?.type?.endsWith?.('.Pooling')) ?? json[0];
    if (pooling) pooling.path = pick([...HOSTILE_NAMES, 7, null]);
    return JSON.stringify(json);
  }
  if (name.endsWith('index.json') && json?.weight_map && int(2) === 0) {
    const keys = Object.keys(json.weight_map);
    json.weight_map[pick(keys)] = pick([...HOSTILE_NAMES.map((n) => `${n}.safetensors`), ...HOSTILE_NAMES, 5]);
    return JSON.stringify(json);
  }
  const all = slots(json);
  for (let n = 1 + int(3); n > 0 && all.length; n--) {
    const [parent, key] = pick(all);
    if (int(5) === 0) delete parent[key];
    else parent[key] = value();
  }
  if (!all.length || int(10) === 0) json = value();
  return JSON.stringify(json);
}

function mutateText(text) {
  const at = int(text.length + 1);
  switch (int(4)) {
    case 0: return text.slice(0, at);
    case 1: return `${text.slice(0, at)}${pick(['{', '[', '"', '\\', '\u0000', ',', '}', '\uFFFF'])}${text.slice(at)}`;
    case 2: return `${'['.repeat(int(200000))}${text}`;
    default: return text.slice(at);
  }
}

function mutateBytes(bytes) {
  const out = Buffer.from(bytes);
  switch (int(3)) {
    case 0: return out.subarray(0, int(out.length));
    case 1:
      for (let n = 1 + int(8); n > 0; n--) out[int(Math.min(out.length, 400))] = int(256);
      return out;
    default:
      out.writeBigUInt64LE(BigInt(pick([0, 1, 7, 2 ** 31, out.length, out.length + 1]) ), 0);
      return out;
  }
}

// A mutated copy of a fixture: {files: {name: Buffer}, base}.
function mutatedCase() {
  const base = pick(BASES);
  const files = { ...base.files };
  for (let n = 1 + int(3); n > 0; n--) {
    const names = Object.keys(files);
    const name = pick(names);
    if (int(12) === 0) delete files[name];
    else if (name.endsWith('.json')) files[name] = Buffer.from(mutateJson(files[name].toString('utf8'), name));
    else files[name] = mutateBytes(files[name]);
  }
  if (int(8) === 0) files['modules.json'] ??= Buffer.from(JSON.stringify([{ type: 'x.Pooling', path: pick(HOSTILE_NAMES) }]));
  return { base: base.name, files };
}

// -- sources ---------------------------------------------------------------------------------

const scratch = mkdtempSync(join(tmpdir(), 'sf-fuzz-loading-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const OUTSIDE = join(scratch, 'outside');
mkdirSync(OUTSIDE);
for (const name of ['config.json', 'tokenizer.json', 'model.safetensors']) writeFileSync(join(OUTSIDE, name), SECRET);

// A folder on disk; `special` makes one file a symlink out of the folder, a folder or a FIFO.
function folderSource(c, n, special) {
  const dir = join(scratch, `case-${n}`);
  for (const [name, bytes] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
  mkdirSync(dir, { recursive: true });
  if (special) {
    rmSync(join(dir, special.name), { recursive: true, force: true });
    const path = join(dir, special.name);
    if (special.mode === 'link') symlinkSync(join(OUTSIDE, special.name === '1_Pooling' ? '' : special.name), path);
    else if (special.mode === 'fifo') execFileSync('mkfifo', [path]);
    else mkdirSync(path);
  }
  return dir;
}

// A File-like object that lies, or an honest File (always, when honest is true).
function fileLike(name, bytes, honest = false) {
  const file = new File([bytes], name.split('/').at(-1));
  Object.defineProperty(file, 'webkitRelativePath', { value: `m/${name}` });
  if (honest || int(8) !== 0) return file;
  const detached = () => { const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); return b; };
  const lie = pick([async () => bytes.length, async () => detached(), async () => new ArrayBuffer(Math.max(0, bytes.length - 1)),
    async () => { throw new Error('read failed'); }, async () => new Uint8Array(bytes), () => 'not a promise', () => new Promise(() => {})]);
  return { name: name.split('/').at(-1), webkitRelativePath: `m/${name}`, size: pick([bytes.length, bytes.length + 5, 0]), arrayBuffer: lie };
}

function objectSource(c) {
  const as = (bytes) => (bytes === undefined ? undefined : pick([() => bytes.toString('utf8'), () => new Uint8Array(bytes), () => {
    try { return JSON.parse(bytes.toString('utf8')); } catch { return bytes.toString('utf8'); }
  }])());
  const shards = Object.keys(c.files).filter((n) => n.endsWith('.safetensors') && n !== 'model.safetensors');
  const weights = c.files['model.safetensors'] ? new Uint8Array(c.files['model.safetensors'])
    : Object.fromEntries(shards.map((n) => [n, new Uint8Array(c.files[n])]));
  const o = { config: as(c.files['config.json']), weights, tokenizer: as(c.files['tokenizer.json']), tokenizerConfig: as(c.files['tokenizer_config.json']),
    index: as(c.files['model.safetensors.index.json']) };
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

// -- spies -----------------------------------------------------------------------------------

const opened = [];  // {path, real} of every file node:fs opened while spying
let spying = false;
const OPENERS = ['openSync', 'readFileSync', 'open', 'readFile', 'createReadStream'];
const PROMISE_OPENERS = ['open', 'readFile'];
// Where what was opened really is: for a descriptor, the kernel's own path of it (Linux), else
// the name's real path (symlinks resolved), else the name as given.
function realOf(path, result) {
  if (typeof result === 'number') {
    try {
      return readlinkSync(`/proc/self/fd/${result}`);
    } catch {
      // not Linux
    }
  }
  try {
    return realpathSync(path);
  } catch {
    return resolve(String(path));
  }
}
function installSpies() {
  const wrap = (object, key) => {
    const original = object[key];
    object[key] = function spied(path, ...rest) {
      const result = original.call(this, path, ...rest);  // a failed open opened nothing
      if (spying && (typeof path === 'string' || path instanceof URL)) opened.push({ path: String(path), real: realOf(path, result) });
      return result;
    };
  };
  for (const k of OPENERS) wrap(fs, k);
  for (const k of PROMISE_OPENERS) wrap(fs.promises, k);
  syncBuiltinESMExports();  // the package imports named exports of node:fs: update them too
}

// A URL path as the laxest server resolves it: %-decoded until it stops changing, look-alikes of
// . and / taken for them (a best-fit code-page conversion), a segment's trailing dots and spaces
// dropped (Windows, so '.. ' is '..'), backslashes as slashes, then dot segments resolved.
// A segment of dots and spaces only is '.' or (anything longer) '..'; others lose trailing ones.
const laxSegment = (seg) => (/^[. ]*\.[. ]*$/.test(seg) ? (seg.trim() === '.' ? '.' : '..') : seg.replace(/[. ]+$/, ''));
const LOOK_ALIKES = { '\u2024': '.', '\uFF0E': '.', '\u2215': '/', '\uFF0F': '/' };
function laxServerPath(pathname) {
  let path = pathname;
  for (let i = 0; i < 8; i++) {
    let next;
    try {
      next = decodeURIComponent(path);
    } catch {
      break;
    }
    if (next === path) break;
    path = next;
  }
  path = path.replace(/[\u2024\uFF0E\u2215\uFF0F]/g, (c) => LOOK_ALIKES[c]).replaceAll('\\', '/');
  path = path.split('/').map(laxSegment).join('/');
  return new URL(path.replace(/[^\x21-\x7e]/g, encodeURIComponent), 'http://x').pathname;
}

const fetched = [];
function installFetch(servedFiles) {
  globalThis.fetch = async (input, init = {}) => {
    const url = new URL(String(input));
    const path = laxServerPath(url.pathname);
    fetched.push({ host: url.host, path });
    if (url.host === 'fuzz.test' && path === '/m/config.json') return new Response(SECRET);
    const m = /^\/m\/(\d+)\/(.*)$/.exec(path);
    const bytes = url.host === 'fuzz.test' && m ? servedFiles.get(Number(m[1]))?.[m[2]] : undefined;
    if (!bytes) return new Response('missing', { status: 404 });
    return new Response(init.method === 'HEAD' ? null : bytes, { status: 200 });
  };
}

// -- one case --------------------------------------------------------------------------------

async function exercise(model) {
  const calls = model.info.causal ? [() => model.generateText('Hello there', { maxNewTokens: 2 })] : [() => model.encodeText(['hello world', 'a b']), () => model.embed('fuzz')];
  for (const call of calls) {
    try {
      await call();
    } catch (e) {
      if (!(e instanceof SimdformerError)) throw e;
    }
  }
}

// The first cases are a sweep, not random: every hostile name as the Pooling path of modules.json
// and as a shard of the index, from a folder, a URL and dropped files. Then random cases.
const SWEEP = HOSTILE_NAMES.flatMap((name) => ['folder', 'url', 'files'].flatMap((kind) => [
  { kind, base: 'bert', edit: (json) => { json.find((m) => m.type.endsWith('.Pooling')).path = name; }, file: 'modules.json' },
  { kind, base: 'bert_sharded', edit: (json) => { json.weight_map[Object.keys(json.weight_map)[0]] = name; }, file: 'model.safetensors.index.json' },
]));
function sweepSpec({ kind, base, edit, file }) {
  const files = { ...BASES.find((b) => b.name === base).files };
  const json = JSON.parse(files[file].toString('utf8'));
  edit(json);
  files[file] = Buffer.from(JSON.stringify(json));
  const c = { base, files };
  return { c, kind, special: null, files: kind === 'files' ? Object.entries(files).map(([name, bytes]) => fileLike(name, bytes, true)) : null, objects: null };
}

// Every random choice of a case, so that it can be run again.
function makeSpec(n) {
  if (n < SWEEP.length) return sweepSpec(SWEEP[n]);
  const c = mutatedCase();
  const kind = pick(['folder', 'folder', 'url', 'files', 'objects']);
  const special = kind === 'folder' && int(6) === 0 ? { name: pick(['config.json', 'tokenizer.json', 'model.safetensors', '1_Pooling']), mode: pick(['link', 'dir', 'fifo']) } : null;
  const files = kind === 'files' ? Object.entries(c.files).map(([name, bytes]) => fileLike(name, bytes)) : null;
  const objects = kind === 'objects' ? objectSource(c) : null;
  return { c, kind, special, files, objects };
}

// Runs one case -> its outcome ('model', an error code, 'aborted'); asserts what it may touch.
async function runCase(sf, spec, n, served) {
  const { c, kind } = spec;
  const root = kind === 'folder' ? folderSource(c, n, spec.special) : null;
  if (kind === 'url') served.set(n, c.files);
  const source = root ?? (kind === 'url' ? `http://fuzz.test/m/${n}/` : spec.files ?? spec.objects);
  const ac = new AbortController();
  const reason = new Error('fuzz abort');
  const timer = setTimeout(() => ac.abort(reason), 300);  // only never-resolving File-likes wait this long
  const started = opened.length, startedFetch = fetched.length;
  let outcome;
  spying = true;
  try {
    const load = sf.loadPretrained(source, kind === 'files' ? { signal: ac.signal } : undefined);
    const model = await Promise.race([load, new Promise((_, reject) => { setTimeout(() => reject(new Error(`case ${n} (${kind}, ${c.base}) hung`)), CASE_LIMIT_MS).unref(); })]);
    try {
      await exercise(model);
    } finally {
      model.dispose();
    }
    outcome = 'model';
  } catch (e) {
    if (e === reason) outcome = 'aborted';
    else if (e instanceof SimdformerError && CODES.includes(e.code) && !e.message.includes(SECRET)) outcome = e.code;
    else throw new Error(`case ${n} (${kind}, ${c.base}): ${e?.name}: ${e?.message}`);
  } finally {
    spying = false;
    clearTimeout(timer);
    served.delete(n);
  }
  if (root) {
    const realRoot = realpathSync(root);
    for (const { path, real } of opened.slice(started)) {
      assert.ok(real === realRoot || real.startsWith(realRoot + sep), `case ${n}: opened ${path}, really ${real}, outside ${realRoot}`);
    }
    rmSync(root, { recursive: true, force: true });
  }
  for (const { host, path } of fetched.slice(startedFetch)) {
    assert.ok(host === 'fuzz.test' && path.startsWith(`/m/${n}/`), `case ${n}: fetched ${host}${path}, outside the base`);
  }
  return outcome;
}

test(`fuzz loadPretrained for ${SECONDS} s (seed ${SEED}): results or SimdformerErrors, nothing read outside, a flat heap`, async (t) => {
  const sf = await init();
  (await sf.loadPretrained(join(DATA, 'hf', 'bert'))).dispose();  // the tokenizer library is loaded before the spies
  installSpies();
  const savedFetch = globalThis.fetch;
  const served = new Map();
  installFetch(served);
  const before = sf.mallocBytes;
  const outcomes = {};
  const changed = [];  // cases after which the heap was not where it was before them
  const start = Date.now();
  let n = 0;
  try {
    for (; Date.now() - start < SECONDS * 1000; n++) {
      const spec = makeSpec(n);
      const heap = sf.mallocBytes;
      const outcome = await runCase(sf, spec, n, served);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (sf.mallocBytes !== heap) changed.push({ spec, n, delta: sf.mallocBytes - heap });
    }
    // A case that left memory behind is run again: a leak leaves it again, a one-time allocation
    // (a first use of some C++ static) does not.
    for (const { spec, n: first, delta } of changed) {
      const heap = sf.mallocBytes;
      await runCase(sf, spec, n++, served);
      assert.equal(sf.mallocBytes, heap, `case ${first} (${spec.kind}, ${spec.c.base}) leaks: ${delta} bytes, then ${sf.mallocBytes - heap} again`);
    }
  } finally {
    globalThis.fetch = savedFetch;
  }
  const once = changed.reduce((sum, x) => sum + x.delta, 0);
  const seconds = ((Date.now() - start) / 1000).toFixed(1);
  const summary = `fuzz-loading: ${n} executions in ${seconds} s (seed ${SEED}): ${JSON.stringify(outcomes)}; `
    + `${changed.length} case(s) allocated ${once} bytes once, none again`;
  console.log(summary);
  t.diagnostic(summary);
  assert.ok(n > 50, `only ${n} executions`);
  assert.ok(opened.length > 0 && fetched.length > 0, 'the spies saw nothing: they are not in the path of the package');
  assert.ok(outcomes.model > 0, 'no case loaded a model: the mutations are too coarse to reach the later stages');
  assert.equal(sf.mallocBytes, before + once, 'the wasm heap is not flat');
  assert.ok(once <= 64 * 1024, `${once} bytes of one-time allocations`);
});
