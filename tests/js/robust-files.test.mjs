// Hostile model folders (issue 18): every file a folder names stays inside it, for every
// spelling and every source kind (folder, base URL, dropped files, objects), and symlinks out are
// refused (the Hugging Face hub cache's own layout still loads); only regular files are opened --
// a FIFO as model.safetensors / config.json / a CLI argument is an io_error at once, never a hang
// (those cases run in a child process: on failure they would block the whole process).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs, { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { after, describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { DATA, DIST } from './helpers.mjs';

const BERT = join(DATA, 'hf', 'bert');
const SECRET = 'SECRET-OUTSIDE-THE-FOLDER';
const scratch = mkdtempSync(join(tmpdir(), 'sf-robust-files-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;

// <scratch>/<n>/{config.json (not JSON, the secret), secret/, model/ (a copy of the bert folder)}.
function hostileCopy(edit = () => {}) {
  const base = join(scratch, String(serial++));
  const model = join(base, 'model');
  cpSync(BERT, model, { recursive: true });
  writeFileSync(join(base, 'config.json'), SECRET);
  mkdirSync(join(base, 'secret'));
  cpSync(join(BERT, 'tokenizer.json'), join(base, 'secret', 'tokenizer.json'));
  cpSync(join(BERT, 'model.safetensors'), join(base, 'secret', 'model.safetensors'));
  writeFileSync(join(base, 'secret', 'config.json'), JSON.stringify({ pooling_mode_cls_token: true }));
  edit(model, base);
  return model;
}

const setPoolingPath = (model, path) => {
  const modules = JSON.parse(readFileSync(join(model, 'modules.json'), 'utf8'));
  modules.find((m) => m.type.endsWith('.Pooling')).path = path;
  writeFileSync(join(model, 'modules.json'), JSON.stringify(modules));
};

// A refusal: a SimdformerError whose message names `mention`, and never shows what is outside.
const refused = (mention, code) => (e) => {
  assert.ok(e instanceof SimdformerError, `expected a SimdformerError, got ${e?.name}: ${e?.message}`);
  if (code) assert.equal(e.code, code, e.message);
  assert.match(e.message, mention);
  assert.ok(!e.message.includes(SECRET), e.message);
  return true;
};

const POOLING_PATHS = ['..', '../..', 'a/../..', '1_Pooling/../..', '/etc', '/', '%2e%2e', '%2E%2E/%2e%2e', '..\\..', '1_Pooling\\..\\..',
  'https://evil.test/x', '//evil.test/x', 'C:/Windows', '1_Pooling/%2f..',
  // decoded more than once by a lax server; look-alikes of . and /; parts Windows trims to '..'
  '%252e%252e', '%252e%252e%252f%252e%252e', '1_Pooling/%25252e%25252e/%25252e%25252e', '\u2024\u2024', '\uFF0E\uFF0E/\uFF0E\uFF0E',
  '..\u2215..', '..\uFF0F..', '1_Pooling\u2215\u2024\u2024\u2215\u2024\u2024', '.. ', '.. /.. ', '1_Pooling/.. /... ', '1_Pooling/../. .'];

// Files of a folder as a dropped folder lists them (webkitRelativePath 'model/...').
function filesOf(dir) {
  const out = [];
  const walk = (d, rel) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) { walk(path, `${rel}${entry}/`); continue; }
      const file = new File([readFileSync(path)], entry);
      Object.defineProperty(file, 'webkitRelativePath', { value: `model/${rel}${entry}` });
      out.push(file);
    }
  };
  walk(dir, '');
  return out;
}

// fetch, replaced by a server of the files under `root` at http://models.test/org/model/, with the
// secret at http://models.test/org/config.json. It decodes %-escapes and '..' as many servers do,
// and records the path each request really reached.
function stubFetch(root) {
  const reached = [];
  const saved = globalThis.fetch;
  globalThis.fetch = async (input, init = {}) => {
    const url = new URL(String(input));
    const path = new URL(decodeURIComponent(url.pathname).replaceAll('\\', '/'), 'http://x').pathname;
    reached.push(`${url.host}${path}`);
    if (url.host !== 'models.test') return new Response('no', { status: 404 });
    if (path === '/org/config.json') return new Response(SECRET);
    if (!path.startsWith('/org/model/')) return new Response('no', { status: 404 });
    let bytes;
    try {
      bytes = readFileSync(join(root, path.slice('/org/model/'.length)));
    } catch {
      return new Response('no', { status: 404 });
    }
    return new Response(init.method === 'HEAD' ? null : bytes, { status: 200 });
  };
  return { reached, restore: () => { globalThis.fetch = saved; } };
}

describe('paths stay inside the folder', async () => {
  const sf = await init();

  test('the bert fixture loads as a folder, a URL and dropped files (the stubs below serve it right)', async () => {
    const model = hostileCopy();
    const fromFolder = await sf.loadPretrained(model);
    const expected = fromFolder.embed('hello world');
    fromFolder.dispose();
    const server = stubFetch(model);
    try {
      const fromUrl = await sf.loadPretrained('http://models.test/org/model');
      assert.deepEqual(fromUrl.embed('hello world'), expected);
      fromUrl.dispose();
      assert.ok(server.reached.every((p) => p.startsWith('models.test/org/model/')), server.reached.join(' '));
    } finally {
      server.restore();
    }
    const fromFiles = await sf.loadPretrained(filesOf(model));
    assert.deepEqual(fromFiles.embed('hello world'), expected);
    fromFiles.dispose();
  });

  test('modules.json: a Pooling path that leaves the folder is refused, folder source, every spelling', async () => {
    for (const path of POOLING_PATHS) {
      const model = hostileCopy((m) => setPoolingPath(m, path));
      await assert.rejects(sf.loadPretrained(model), refused(/modules\.json/, 'invalid_argument'), `path ${path}`);
    }
  });

  test('modules.json: the same spellings are refused for a URL source, and no request leaves the base', async () => {
    for (const path of POOLING_PATHS) {
      const model = hostileCopy((m) => setPoolingPath(m, path));
      const server = stubFetch(model);
      try {
        await assert.rejects(sf.loadPretrained('http://models.test/org/model/'), refused(/modules\.json/, 'invalid_argument'), `path ${path}`);
      } finally {
        server.restore();
      }
      const outside = server.reached.filter((p) => !p.startsWith('models.test/org/model/'));
      assert.deepEqual(outside, [], `path ${path}`);
    }
  });

  test('modules.json: the same spellings are refused for dropped files', async () => {
    for (const path of POOLING_PATHS) {
      const model = hostileCopy((m) => setPoolingPath(m, path));
      await assert.rejects(sf.loadPretrained(filesOf(model)), refused(/modules\.json/, 'invalid_argument'), `path ${path}`);
    }
  });

  test('a Pooling path inside the folder still works, with any harmless spelling', async () => {
    for (const path of ['1_Pooling', './1_Pooling', '1_Pooling/', '1_Pooling/.']) {
      const model = hostileCopy((m) => setPoolingPath(m, path));
      const m = await sf.loadPretrained(model);
      assert.equal(m.embed('a').length, 32);
      m.dispose();
    }
  });

  test('shard names of model.safetensors.index.json cannot leave the folder (folder and URL)', async () => {
    const names = ['../secret/model.safetensors', '%2e%2e%2fsecret%2fmodel.safetensors', '..%5csecret%5cmodel.safetensors', '/tmp/x.safetensors',
      '%252e%252e%252fsecret%252fmodel.safetensors', '\uFF0E\uFF0E\uFF0Fsecret\uFF0Fmodel.safetensors', '.. /secret/model.safetensors'];
    for (const name of names) {
      const model = hostileCopy((m) => {
        rmSync(join(m, 'model.safetensors'));
        writeFileSync(join(m, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: { 'embeddings.word_embeddings.weight': name } }));
      });
      await assert.rejects(sf.loadPretrained(model), refused(/model\.safetensors\.index\.json/), `shard ${name}`);
      const server = stubFetch(model);
      try {
        await assert.rejects(sf.loadPretrained('http://models.test/org/model/'), refused(/model\.safetensors\.index\.json/), `shard ${name}`);
      } finally {
        server.restore();
      }
      assert.deepEqual(server.reached.filter((p) => !p.startsWith('models.test/org/model/')), [], `shard ${name}`);
    }
  });

  test('symlinks that point out of the folder are refused: config.json, tokenizer.json, model.safetensors, 1_Pooling', async () => {
    const cases = {
      'config.json': '../config.json',
      'tokenizer.json': '../secret/tokenizer.json',
      'model.safetensors': '../secret/model.safetensors',
      '1_Pooling': '../secret',
    };
    for (const [name, target] of Object.entries(cases)) {
      const model = hostileCopy((m) => {
        rmSync(join(m, name), { recursive: true });
        symlinkSync(target, join(m, name));
      });
      await assert.rejects(sf.loadPretrained(model), refused(/outside the model folder/, 'invalid_argument'), name);
    }
    // A folder linked out, with no config.json behind it: the outside is not even probed.
    const model = hostileCopy((m, base) => {
      mkdirSync(join(base, 'secret', 'empty'));
      rmSync(join(m, '1_Pooling'), { recursive: true });
      symlinkSync('../secret/empty', join(m, '1_Pooling'));
    });
    await assert.rejects(sf.loadPretrained(model), refused(/1_Pooling leads to .* outside the model folder/, 'invalid_argument'));
  });

  test('symlinks inside the folder, and the Hugging Face hub cache layout (snapshots -> ../../blobs), load', async () => {
    const inside = hostileCopy((m) => {
      writeFileSync(join(m, 'real-tokenizer.json'), readFileSync(join(m, 'tokenizer.json')));
      rmSync(join(m, 'tokenizer.json'));
      symlinkSync('real-tokenizer.json', join(m, 'tokenizer.json'));
    });
    (await sf.loadPretrained(inside)).dispose();
    // <cache>/models--org--bert/{blobs/<hash>, snapshots/<rev>/<file> -> ../../blobs/<hash>}
    const repo = join(scratch, `hub-${serial++}`, 'models--org--bert');
    const snapshot = join(repo, 'snapshots', '0123abcd');
    mkdirSync(join(repo, 'blobs'), { recursive: true });
    const link = (rel) => {
      const blob = `blob${serial++}`;
      cpSync(join(BERT, rel), join(repo, 'blobs', blob));
      mkdirSync(join(snapshot, rel, '..'), { recursive: true });
      symlinkSync(join('..', '..', ...rel.split('/').slice(1).map(() => '..'), 'blobs', blob), join(snapshot, rel));
    };
    for (const rel of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'modules.json', '1_Pooling/config.json']) link(rel);
    const m = await sf.loadPretrained(snapshot);
    assert.equal(m.embed('a').length, 32);
    m.dispose();
  });

  test('a folder where a file is expected is an io_error naming it', async () => {
    for (const name of ['model.safetensors', 'config.json', 'tokenizer.json', '1_Pooling/config.json']) {
      const model = hostileCopy((m) => {
        rmSync(join(m, name));
        mkdirSync(join(m, name));
      });
      await assert.rejects(sf.loadPretrained(model), refused(new RegExp(`${name.replace('.', '\\.')} is not a file but a folder`), 'io_error'), name);
    }
  });

  test("an empty source string is an error, not the current folder", async () => {
    await assert.rejects(sf.loadPretrained(''), refused(/empty string/, 'invalid_argument'));
  });

  test('the heap is flat after all the refusals', async () => {
    const before = sf.mallocBytes;
    for (let i = 0; i < 3; i++) {
      await assert.rejects(sf.loadPretrained(hostileCopy((m) => setPoolingPath(m, '..'))), SimdformerError);
    }
    assert.equal(sf.mallocBytes, before);
  });
});

// A Hugging Face cache at <hub>/models--org--bert/{blobs/<hash>, snapshots/<rev>/<file>} and a
// folder made by `huggingface-cli download --local-dir` (before 2024) whose files are links to
// those blobs. -> {hub, dir}
function localDirIntoCache(hub) {
  const repo = join(hub, 'models--org--bert');
  const dir = join(scratch, `local-dir-${serial++}`);
  for (const rel of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'modules.json', '1_Pooling/config.json']) {
    const blob = join(repo, 'blobs', `blob${serial++}`);
    mkdirSync(dirname(blob), { recursive: true });
    cpSync(join(BERT, rel), blob);
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    symlinkSync(blob, join(dir, rel));
  }
  return { hub, dir };
}

// Runs fn with these environment variables (undefined: unset), then restores them.
async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return await fn();
  } finally {
    set(saved);
  }
}
const NO_HF_ENV = { HF_HOME: undefined, HF_HUB_CACHE: undefined, HUGGINGFACE_HUB_CACHE: undefined, XDG_CACHE_HOME: undefined };

describe('symlinks into a Hugging Face cache, and followSymlinks', async () => {
  const sf = await init();
  const embeds = async (dir, options) => {
    const m = await sf.loadPretrained(dir, options);
    try {
      assert.equal(m.embed('a').length, 32);
    } finally {
      m.dispose();
    }
  };

  test('a --local-dir folder linked into $HF_HOME/hub or $HF_HUB_CACHE loads', async () => {
    const home = join(scratch, `hf-home-${serial++}`);
    const viaHome = localDirIntoCache(join(home, 'hub'));
    await withEnv({ ...NO_HF_ENV, HF_HOME: home }, () => embeds(viaHome.dir));
    const viaCache = localDirIntoCache(join(scratch, `hf-hub-cache-${serial++}`));
    await withEnv({ ...NO_HF_ENV, HF_HUB_CACHE: viaCache.hub }, () => embeds(viaCache.dir));
    // The cache is known by its real path: a cache reached through a link counts too.
    const alias = join(scratch, `hf-hub-alias-${serial++}`);
    symlinkSync(viaCache.hub, alias);
    await withEnv({ ...NO_HF_ENV, HF_HUB_CACHE: alias }, () => embeds(viaCache.dir));
  });

  test('~/.cache/huggingface/hub is the cache when no variable names one', () => {
    const home = join(scratch, `home-${serial++}`);
    const { dir } = localDirIntoCache(join(home, '.cache', 'huggingface', 'hub'));
    const env = { ...process.env, HOME: home };
    for (const k of Object.keys(NO_HF_ENV)) delete env[k];
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
      import { init } from ${JSON.stringify(join(DIST, 'node.mjs'))};
      const m = await (await init()).loadPretrained(${JSON.stringify(dir)});
      console.log('LOADED', m.embed('a').length);`], { encoding: 'utf8', timeout: 20000, env });
    assert.equal(r.stdout.trim(), 'LOADED 32', r.stderr);
  });

  test('without the cache (variables unset) the same folder is refused, naming followSymlinks; with it, it loads', async () => {
    const { dir } = localDirIntoCache(join(scratch, `not-a-cache-${serial++}`));
    await withEnv({ ...NO_HF_ENV, HOME: join(scratch, 'no-home') }, async () => {
      await assert.rejects(sf.loadPretrained(dir), refused(/outside the model folder .*not into a Hugging Face cache.*loadPretrained\(dir, \{ followSymlinks: true \}\)/, 'invalid_argument'));
      await embeds(dir, { followSymlinks: true });
    });
  });

  test('inside a cache only a repository\'s blobs and snapshots count, not the rest of it', async () => {
    const hub = join(scratch, `hf-hub-other-${serial++}`);
    const model = hostileCopy((m) => {
      mkdirSync(hub, { recursive: true });
      cpSync(join(BERT, 'tokenizer.json'), join(hub, 'tokenizer.json'));
      rmSync(join(m, 'tokenizer.json'));
      symlinkSync(join(hub, 'tokenizer.json'), join(m, 'tokenizer.json'));
    });
    await withEnv({ ...NO_HF_ENV, HF_HUB_CACHE: hub }, () => assert.rejects(sf.loadPretrained(model), refused(/tokenizer\.json leads to .*outside the model folder/, 'invalid_argument')));
  });

  test('followSymlinks: true follows links out, but names written in the folder stay inside it', async () => {
    const linked = hostileCopy((m) => {
      rmSync(join(m, 'model.safetensors'));
      symlinkSync('../secret/model.safetensors', join(m, 'model.safetensors'));
    });
    await embeds(linked, { followSymlinks: true });
    for (const path of ['..', '../secret', '/etc', '%2e%2e']) {
      const model = hostileCopy((m) => setPoolingPath(m, path));
      await assert.rejects(sf.loadPretrained(model, { followSymlinks: true }), refused(/modules\.json names the file .*inside itself/, 'invalid_argument'), path);
    }
    const sharded = hostileCopy((m) => {
      writeFileSync(join(m, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { 'embeddings.word_embeddings.weight': '../secret/model.safetensors' } }));
      rmSync(join(m, 'model.safetensors'));
    });
    await assert.rejects(sf.loadPretrained(sharded, { followSymlinks: true }), refused(/names the shard '..\/secret\/model.safetensors'; shards must be .safetensors files in the same folder/, 'invalid_argument'));
    await assert.rejects(sf.loadPretrained(linked, { followSymlinks: 'yes' }), refused(/followSymlinks must be true or false/, 'invalid_argument'));
  });

  test('no error shows a linked file\'s contents (config.json, tokenizer.json, model.safetensors linked to a text file)', async () => {
    for (const name of ['config.json', 'tokenizer.json', 'model.safetensors']) {
      const model = hostileCopy((m) => {
        rmSync(join(m, name));
        symlinkSync('../config.json', join(m, name));  // SECRET, not JSON
      });
      await assert.rejects(sf.loadPretrained(model, { followSymlinks: true }), refused(new RegExp(name.replace('.', '\\.'))), name);
    }
  });
});

// Runs fn while every fs.realpathSync of a path ending in `suffix` (under `dir`) is followed, once,
// by swap(): the moment right after the loader checked where that file leads, before it opens it.
// The library's own `import { realpathSync } from 'node:fs'` sees the wrapper
// (syncBuiltinESMExports), so the swap lands exactly between check and open, every run.
async function withSwapAfterCheck(dir, suffix, swap, fn) {
  const original = fs.realpathSync;
  let swapped = false;
  fs.realpathSync = function (path, ...rest) {
    const real = original.call(this, path, ...rest);
    if (!swapped && String(path).startsWith(dir + sep) && String(path).endsWith(suffix)) {
      swapped = true;
      swap();
    }
    return real;
  };
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    fs.realpathSync = original;
    syncBuiltinESMExports();
    assert.ok(swapped, `nothing checked ${suffix}`);
  }
}

describe('the file read is the file checked', async () => {
  const sf = await init();

  test('model.safetensors swapped for a symlink out between check and open is refused, not read', async () => {
    const model = hostileCopy();
    const swap = () => {
      rmSync(join(model, 'model.safetensors'));
      symlinkSync('../secret/model.safetensors', join(model, 'model.safetensors'));
    };
    await withSwapAfterCheck(model, `${sep}model.safetensors`, swap, () => assert.rejects(sf.loadPretrained(model), refused(/model\.safetensors changed while it was being opened/, 'io_error')));
  });

  test('tokenizer.json swapped the same way is refused', async () => {
    const model = hostileCopy();
    const swap = () => {
      rmSync(join(model, 'tokenizer.json'));
      symlinkSync('../secret/tokenizer.json', join(model, 'tokenizer.json'));
    };
    await withSwapAfterCheck(model, `${sep}tokenizer.json`, swap, () => assert.rejects(sf.loadPretrained(model), refused(/tokenizer\.json changed while it was being opened/, 'io_error')));
  });

  test('the 1_Pooling folder swapped for a symlink out between check and open is refused (not CLS pooling from outside)', async () => {
    const model = hostileCopy();
    const swap = () => {
      renameSync(join(model, '1_Pooling'), join(model, '1_Pooling.checked'));
      symlinkSync('../secret', join(model, '1_Pooling'));
    };
    await withSwapAfterCheck(model, `${sep}1_Pooling${sep}config.json`, swap, () => assert.rejects(sf.loadPretrained(model), refused(/1_Pooling.config\.json changed while it was being opened/, 'io_error')));
  });
});

// Runs a module script in a child Node process; its output, or 'TIMEOUT'.
function runChild(script, timeout = 20000) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout });
  return r.error?.code === 'ETIMEDOUT' || r.signal ? 'TIMEOUT' : `${r.stdout}${r.stderr}`;
}

const loadScript = (source, options = '{}') => `
  import { init } from ${JSON.stringify(join(DIST, 'node.mjs'))};
  const sf = await init();
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('ABORTED')), 1000);
  try {
    await sf.loadPretrained(${JSON.stringify(source)}, { signal: ac.signal, ...${options} });
    console.log('LOADED');
  } catch (e) {
    console.log('ERROR', e.name, e.code, e.message);
  }
  process.exit(0);`;

describe('special files never block', () => {
  const withFifo = (name) => hostileCopy((m) => {
    rmSync(join(m, name));
    execFileSync('mkfifo', [join(m, name)]);
  });

  test('model.safetensors as a FIFO: an io_error at once (not a blocked process)', () => {
    const out = runChild(loadScript(withFifo('model.safetensors')));
    assert.match(out, /ERROR SimdformerError io_error .*model\.safetensors is not a regular file/);
  });

  test('config.json and tokenizer.json as FIFOs: an io_error at once, before any abort', () => {
    for (const name of ['config.json', 'tokenizer.json', '1_Pooling/config.json']) {
      const out = runChild(loadScript(withFifo(name)));
      assert.match(out, new RegExp(`ERROR SimdformerError io_error .*${name.replace('.', '\\.')} is not a regular file`), name);
    }
  });

  test('loadModel and inspect of a FIFO: an io_error at once', () => {
    const fifo = join(withFifo('config.json'), 'config.json');
    const out = runChild(`
      import { init } from ${JSON.stringify(join(DIST, 'node.mjs'))};
      const sf = await init();
      for (const call of [() => sf.loadModel(${JSON.stringify(fifo)}), () => sf.inspect(${JSON.stringify(fifo)})]) {
        try { await call(); console.log('LOADED'); } catch (e) { console.log('ERROR', e.name, e.code, e.message); }
      }
      process.exit(0);`);
    assert.equal(out.match(/ERROR SimdformerError io_error .*is not a regular file/g)?.length, 2, out);
  });

  test('simdformer info --model <fifo> (and a folder holding one) exits with a clear error', () => {
    const model = withFifo('model.safetensors');
    for (const target of [join(model, 'model.safetensors'), model]) {
      const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'info', '--model', target], { encoding: 'utf8', timeout: 20000 });
      assert.equal(r.error, undefined, `${target}: ${r.error?.code}`);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /simdformer: .*model\.safetensors is not a regular file/);
    }
  });

  test('the CLI\'s --config and --input FIFOs are usage errors at once', () => {
    const fifo = join(withFifo('config.json'), 'config.json');
    for (const args of [['info', '--model', join(DATA, 'encoder.safetensors'), '--config', fifo], ['embed', '--model', BERT, '--input', fifo]]) {
      const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), ...args], { encoding: 'utf8', timeout: 20000 });
      assert.equal(r.error, undefined, `${args[0]}: ${r.error?.code}`);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /cannot read .*is not a regular file/);
    }
  });
});
