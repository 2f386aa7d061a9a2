// Native wasm exceptions (issue 30). The SIMD128 and threads builds are compiled with
// -fwasm-exceptions; init() probes the engine for wasm exception handling as it probes for SIMD128
// (lib/simd-detect.mjs) and gives an engine without it the scalar build, which keeps
// JavaScript-based exceptions. What is checked here:
//  - the probe is a real one: a validator without the exceptions feature rejects it;
//  - which build uses which mechanism (a tag section, or invoke_* trampolines);
//  - on an emulated engine without wasm exceptions (no-wasm-eh.mjs) init() loads the scalar
//    build, refuses to load another, and the hardening, validation, boundary and loading-fuzz
//    suites pass on it;
//  - the scalar build reports out_of_memory at every heap level, as the SIMD build does in
//    oom.test.mjs, and frees what the failed call took;
//  - a C++ exception that escapes a binding anyway (a WebAssembly.Exception from the EH builds, a
//    number from the scalar one) becomes SimdformerError 'internal', and the module keeps working.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { translateInternalErrors } from '../../dist/lib/errors.mjs';
import { PROBES, wasmExceptionsSupported, wasmSimdSupported } from '../../dist/lib/simd-detect.mjs';
import { Simdformer, SimdformerError, init } from '../../dist/node.mjs';
import { folderFileSet } from '../../dist/node/files.mjs';
import { DIST, ROOT, configOf, modelPath } from './helpers.mjs';
import { emulateNoWasmExceptions, usesWasmExceptions } from './no-wasm-eh.mjs';

const wasm = (name) => readFileSync(join(DIST, `${name}.wasm`));
const bits = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

test('the exception probe validates here and is rejected by a validator without the exceptions feature', (t) => {
  assert.equal(wasmExceptionsSupported(), true);
  assert.equal(wasmSimdSupported(), true);
  assert.equal(usesWasmExceptions(PROBES.exceptions), true);
  let help;
  try {
    help = execFileSync('wasm-validate', ['--help'], { encoding: 'utf8' });
  } catch {
    t.skip('wabt (wasm-validate) is not installed: scripts/setup.sh bench installs it');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sf-eh-probe-'));
  try {
    const file = join(dir, 'probe.wasm');
    writeFileSync(file, PROBES.exceptions);
    // wabt 1.0.32 (Debian) has exceptions off unless --enable-exceptions; later ones on unless --disable-exceptions.
    const off = help.includes('--disable-exceptions') ? ['--disable-exceptions'] : [];
    const on = help.includes('--enable-exceptions') ? ['--enable-exceptions'] : [];
    const without = spawnSync('wasm-validate', [...off, file], { encoding: 'utf8' });
    assert.notEqual(without.status, 0, 'the probe validated without the exceptions feature: it probes nothing');
    assert.match(without.stderr, /section|tag|try|opcode/i);
    execFileSync('wasm-validate', [...on, file]);  // throws when the probe is not a valid EH module
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the SIMD128 and threads builds use native wasm exceptions; the scalar build JavaScript-based ones', () => {
  assert.equal(usesWasmExceptions(wasm('simdformer')), true);
  assert.equal(usesWasmExceptions(wasm('simdformer-threads')), true);
  assert.equal(usesWasmExceptions(wasm('simdformer-scalar')), false);
  // Emscripten's emulation calls through invoke_* JS trampolines, which flag a throw through the
  // module's setThrew; native EH needs neither. The one-thread glues ship minified
  // (scripts/build-package.sh): the trampolines' names are gone, Module's quoted _setThrew stays.
  assert.match(readFileSync(join(DIST, 'simdformer-scalar.mjs'), 'utf8'), /_setThrew/);
  assert.doesNotMatch(readFileSync(join(DIST, 'simdformer.mjs'), 'utf8'), /_setThrew/);
});

test('an engine without wasm exceptions gets the scalar build, which refuses bad input with a SimdformerError', async () => {
  const undo = emulateNoWasmExceptions();
  try {
    assert.equal(wasmExceptionsSupported(), false);
    assert.equal(wasmSimdSupported(), true);  // SIMD128 alone is not enough for the SIMD build
    assert.throws(() => new WebAssembly.Module(wasm('simdformer')), WebAssembly.CompileError);  // the emulation is real
    const sf = await init();
    assert.equal(sf.simd, false);
    assert.equal(sf.lanes, 1);
    await assert.rejects(init({ simd: true }), (e) => e instanceof SimdformerError && e.code === 'unsupported' && /exception handling/.test(e.message));
    await assert.rejects(init({ threads: 2 }), (e) => e instanceof SimdformerError && e.code === 'unsupported' && /exception handling/.test(e.message));

    const encoder = sf.loadModelSync(readFileSync(modelPath('encoder')), configOf('encoder'));
    const good = Float32Array.from({ length: 4 * 12 }, (_, i) => Math.sin(i));
    const want = bits(encoder.encode(good).output);
    const cases = [
      [() => encoder.encode(good.subarray(0, 13)), 'invalid_argument'],
      [() => { const x = good.slice(); x[5] = NaN; return encoder.encode(x); }, 'invalid_argument'],
      [() => sf.attention([[1, 2]], [[1, 2, 3]], [[1]]), 'shape_mismatch'],
      [() => sf.loadModelSync(readFileSync(modelPath('encoder')).subarray(0, 40), configOf('encoder')), null],
      [() => sf.loadModelSync(readFileSync(modelPath('encoder')), { ...configOf('encoder'), nhead: 5 }), null],
      [() => encoder.encode(new Float32Array(12 * 600).fill(0.1)), null],
    ];
    for (const [call, code] of cases) {
      assert.throws(call, (e) => e instanceof SimdformerError && (code === null || e.code === code) && e.message.length > 10, String(call));
      assert.ok(Buffer.compare(bits(encoder.encode(good).output), want) === 0, 'a valid call after a refused one is right');
    }
    encoder.dispose();
  } finally {
    undo();
  }
});

// The same heap-filling as oom.test.mjs, on the scalar build.
async function rawBuild(name) {
  const { default: create } = await import(pathToFileURL(join(DIST, `${name}.mjs`)).href);
  const module = await create({ wasmBinary: wasm(name) });
  const sf = new Simdformer(module, { simd: name !== 'simdformer-scalar', readSource: async (s) => s, localFolder: folderFileSet });
  const blocks = [];
  const fill = (hole) => {
    const h = hole ? module._malloc(hole) : 0;
    for (let size = 1 << 28; size >= 8; size >>>= 1) for (let p; (p = module._malloc(size));) blocks.push(p);
    if (h) module._free(h);
  };
  const release = () => { for (const p of blocks.splice(0)) module._free(p); };
  return { module, sf, fill, release };
}

test('the scalar build: every allocation failure is out_of_memory, then the same answer and a flat heap', async () => {
  const { module, sf, fill, release } = await rawBuild('simdformer-scalar');
  const encoderBytes = readFileSync(modelPath('encoder'));
  const seq2seq = sf.loadModelSync(readFileSync(modelPath('seq2seq')), configOf('seq2seq'));
  const x = Float32Array.from({ length: 5 * 12 }, (_, i) => Math.sin(i));
  const ops = {
    loadModelSync: [() => sf.loadModelSync(encoderBytes, configOf('encoder')),
      (m) => { const r = bits(m.encode(x).output); m.dispose(); return r; }],
    encode: [() => { const m = sf.loadModelSync(encoderBytes, configOf('encoder')); try { return m.encode([x, x.subarray(0, 24)], { returnAttention: true }); } finally { m.dispose(); } },
      (r) => Buffer.concat([bits(r.sequences[0].output), bits(r.sequences[1].attentions[1][0].data)])],
    generate: [() => seq2seq.generate([[3, 4, 5, 6], [7, 8]], { maxLength: 8 }), (r) => bits(r[0].tokens)],
    attention: [() => sf.attention([[1, 2], [3, 4]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]], { returnWeights: true }),
      (r) => Buffer.concat([bits(r.output.data), bits(r.weights.data)])],
    positionalEncoding: [() => sf.positionalEncoding(64, 32), (r) => bits(r.data)],
  };
  const holes = [0];
  for (let h = 64; h <= 64 << 20; h = Math.ceil(h * 2.5)) holes.push(h);
  const summary = [];
  for (const [name, [op, key]] of Object.entries(ops)) {
    const want = key(op());
    const level = module.mallocBytes();
    const outcomes = { ok: 0, oom: 0 };
    for (const hole of holes) {
      fill(hole);
      try {
        assert.ok(Buffer.compare(key(op()), want) === 0, `${name}, hole ${hole}: a different answer`);
        outcomes.ok++;
      } catch (e) {
        assert.ok(e instanceof SimdformerError && e.code === 'out_of_memory', `${name}, hole ${hole}: ${e?.name}: ${e?.message ?? e}`);
        outcomes.oom++;
      } finally {
        release();
      }
      assert.ok(Buffer.compare(key(op()), want) === 0, `${name}, hole ${hole}: the next call gave a different answer`);
      assert.equal(module.mallocBytes(), level, `${name}, hole ${hole}: malloc bytes not back at their level`);
    }
    assert.ok(outcomes.oom > 0 && outcomes.ok > 0, `${name}: ${JSON.stringify(outcomes)}`);
    summary.push(`${name} ${outcomes.oom}/${holes.length}`);
  }
  console.log(`# eh-fallback oom (scalar build): out_of_memory/levels ${summary.join(', ')}`);
  seq2seq.dispose();
});

// setThreads(n) builds its refusal with std::string outside guarded(): in a module whose reserves
// were never taken (no model call yet), a full heap makes that allocation throw std::bad_alloc
// straight out of the binding -- the one way from JavaScript to an escaping C++ exception, used
// here as the stand-in for a bug. The refusal is ~70 bytes (the number as JavaScript writes it,
// "1e+300"; it was printf's 301 digits before issue 30), less than the exception object, so the
// hole left is smaller than both: libc++abi takes the exception object from its emergency heap.
class Escape {
  constructor(module) { this.module = module; }
  setThreads(n) { return this.module.setThreads(n); }
}
translateInternalErrors(Escape);

for (const [name, raw] of [['simdformer', (e) => e instanceof WebAssembly.Exception], ['simdformer-scalar', (e) => typeof e === 'number']]) {
  test(`${name}: a C++ exception escaping a binding is SimdformerError 'internal', and the module keeps working`, async () => {
    const { module, sf, fill, release } = await rawBuild(name);
    const escape = new Escape(module);
    const huge = 1e300;  // the refusal's text is a heap allocation, never the short-string buffer
    const refusal = escape.setThreads(huge);
    assert.match(refusal, /^invalid_argument\tthreads must be an integer/);
    // The answer to compare with comes from a second module: any model call on this one would
    // take the reserves (reply.h), and the retry reserve would then let the allocation succeed.
    const want = bits((await rawBuild(name)).sf.positionalEncoding(8, 4).data);
    let thrown;
    fill(32);  // no room for the string (the exception object comes from the emergency heap)
    try {
      module.setThreads(huge);
    } catch (e) {
      thrown = e;
    } finally {
      release();
    }
    assert.ok(raw(thrown), `${name}: the raw escape was ${thrown?.constructor?.name}: ${thrown}`);
    fill(32);
    try {
      assert.throws(() => escape.setThreads(huge), (e) => e instanceof SimdformerError && e.code === 'internal' && /uncaught C\+\+ exception/.test(e.message));
    } finally {
      release();
    }
    assert.equal(escape.setThreads(huge), refusal);
    assert.ok(Buffer.compare(bits(sf.positionalEncoding(8, 4).data), want) === 0);
    const m = sf.loadModelSync(readFileSync(modelPath('encoder')), configOf('encoder'));
    assert.equal(m.encode(new Float32Array(24).fill(0.5)).output.length, 24);
    m.dispose();
  });
}

// The hostile and fuzz suites, whole, in a Node process that is an engine without wasm
// exceptions (the loading fuzzer for 10 s instead of its default 55).
for (const suite of ['hardening', 'validation', 'boundary', 'fuzz-loading']) {
  test(`${suite}.test.mjs passes on an engine without wasm exceptions (the scalar build)`, () => {
    // Without the runner's NODE_TEST_CONTEXT the child reports in plain TAP, as when run by hand.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    env.FUZZ_SECONDS ??= '10';
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'tests', 'js', 'no-wasm-eh.mjs')).href,
      join(ROOT, 'tests', 'js', `${suite}.test.mjs`)], { encoding: 'utf8', timeout: 300_000, env });
    assert.equal(r.status, 0, `${suite} failed on the scalar build:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-2000)}`);
    const [, compiled, refused] = r.stderr.match(/no-wasm-eh: (\d+) modules compiled, (\d+) refused/) ?? [];
    assert.ok(Number(compiled) >= 1, `${suite}: no module was loaded (${r.stderr.slice(-500)})`);
    assert.equal(Number(refused), 0, `${suite}: an EH build was tried`);
    assert.match(r.stdout, /# pass [1-9]/);
  });
}
