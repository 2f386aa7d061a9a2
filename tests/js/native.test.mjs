// The native backend (issue 31): the Node-API addon under the same JavaScript API as wasm.
//  - init() picks it in Node (auto), wasm on request or where it cannot load; sf.backend says which;
//    each SIMD level the CPU runs (SIMDFORMER_NATIVE_LEVEL: baseline SSE2, AVX2 + FMA, AVX-512) is
//    really taken.
//  - Results equal the wasm build's within 1e-5 -- not bit for bit: the AVX2 and AVX-512 builds
//    fuse multiply-adds (FMA rounds once where wasm's mul + add rounds twice) and sum 8 or 16
//    lanes, not 4 --
//    and generated tokens are the same. Results are bit-identical across native thread counts.
//  - Hostile sizes give the same SimdformerError (code and message) on both backends.
//  - Allocation failure (the addon's test limit), throwing and re-entrant callbacks and misuse of
//    the raw addon give clear errors, never a crash, and leave nothing allocated.
//  - With the addon hidden or broken, init() runs wasm silently; backend: 'native' says why not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { Simdformer, SimdformerError, init } from '../../dist/node.mjs';
import { folderFileSet } from '../../dist/node/files.mjs';
import { loadNative, platformTag } from '../../dist/node/native.mjs';
import { DATA, DIST, ROOT, configOf, maxAbsDiff, modelPath, readGolden, split } from './helpers.mjs';

delete process.env.SIMDFORMER_BACKEND;  // this file says which backend it wants
// SIMDFORMER_NATIVE_PATH (scripts/test-native.sh --asan) loads one file: the level tests are skipped.
const CUSTOM = Boolean(process.env.SIMDFORMER_NATIVE_PATH);
const TOL = 1e-5;
const HF = join(DATA, 'hf');
const isError = (code, re) => (e) => e instanceof SimdformerError && e.code === code && (!re || re.test(e.message));
const bits = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

const native = loadNative();
// The best level this CPU runs, as dist/node/native.mjs chooses it: [level, arch, lanes].
const cpu = native.module?.cpuLevels() ?? [];
const LEVELS = [['avx512', 'avx512bw', 16, ['avx512f', 'avx512cd', 'avx512dq', 'avx512bw']],
  ['avx2', 'fma3+avx2', 8, ['fma3+avx2']], ['baseline', 'sse2', 4, []]].filter(([, , , needs]) => needs.every((n) => cpu.includes(n)));
const [, BEST_ARCH, BEST_LANES] = CUSTOM ? [null, native.module.simdArch(), native.module.simdLanes()] : LEVELS[0];
test('a prebuilt addon for this platform is in dist/prebuilds and loads', () => {
  assert.equal(platformTag(), 'linux-x64-gnu');
  assert.equal(native.level, CUSTOM ? 'custom' : LEVELS[0][0]);
  assert.ok(native.module, native.reason);
});

const sf = await init();
const wasm = await init({ backend: 'wasm' });

describe('choosing the backend', () => {
  test('init() runs the addon in Node; backend: wasm, simd: false or wasmBinary run wasm', async () => {
    assert.equal(sf.backend, 'native');
    assert.equal(sf.simd, true);
    assert.equal(sf.arch, BEST_ARCH);
    assert.equal(sf.lanes, BEST_LANES);
    assert.equal(wasm.backend, 'wasm');
    assert.equal(wasm.arch, 'wasm');
    assert.equal((await init({ backend: 'native' })).backend, 'native');
    const scalar = await init({ simd: false });
    assert.equal(scalar.backend, 'wasm');
    assert.equal(scalar.arch, 'scalar');
    const bytes = readFileSync(join(DIST, 'simdformer.wasm'));
    assert.equal((await init({ wasmBinary: bytes })).backend, 'wasm');
  });

  test('bad backend options are SimdformerErrors', async () => {
    await assert.rejects(init({ backend: 'gpu' }), isError('invalid_argument', /backend must be 'auto', 'native' or 'wasm'/));
    await assert.rejects(init({ backend: 'native', simd: false }), isError('invalid_argument', /cannot be combined with backend: 'native'/));
    await assert.rejects(init({ backend: 'native', threads: 65 }), isError('invalid_argument', /threads must be/));
  });

  // A fresh process per level: the choice is made once per process.
  const run = (env, code) => execFileSync(process.execPath, ['--input-type=module', '-e', code],
    { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
  const report = `import { init } from ${JSON.stringify(join(DIST, 'node.mjs'))};
    const sf = await init().catch((e) => ({ backend: 'error', arch: e.code, lanes: e.message }));
    console.log(JSON.stringify({ backend: sf.backend, arch: sf.arch, lanes: sf.lanes }));`;

  test('SIMDFORMER_NATIVE_LEVEL forces each level this CPU runs, and that level runs', { skip: CUSTOM && 'SIMDFORMER_NATIVE_PATH is set' }, () => {
    assert.ok(LEVELS.length >= 2, `this CPU runs only ${LEVELS.map((l) => l[0])}`);
    for (const [level, arch, lanes] of LEVELS) {
      assert.deepEqual(JSON.parse(run({ SIMDFORMER_NATIVE_LEVEL: level }, report)), { backend: 'native', arch, lanes }, level);
    }
    assert.deepEqual(JSON.parse(run({}, report)), { backend: 'native', arch: BEST_ARCH, lanes: BEST_LANES });
    // An unknown level: auto falls back to wasm, 'native' says why.
    assert.deepEqual(JSON.parse(run({ SIMDFORMER_NATIVE_LEVEL: 'avx9' }, report)), { backend: 'wasm', arch: 'wasm', lanes: 4 });
    const r = JSON.parse(run({ SIMDFORMER_NATIVE_LEVEL: 'avx9', SIMDFORMER_BACKEND: 'native' }, report));
    assert.equal(r.arch, 'unsupported');
    assert.match(r.lanes, /SIMDFORMER_NATIVE_LEVEL must be one of avx512, avx2, baseline/);
  });

  test('with the addon hidden or broken, init() runs wasm silently; backend: native says why', { skip: CUSTOM && 'SIMDFORMER_NATIVE_PATH is set' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdformer-no-addon-'));
    try {
      const copy = join(dir, 'dist');
      cpSync(DIST, copy, { recursive: true, filter: (src) => !src.includes(`${DIST}/prebuilds`) });
      const encode = `import { init } from ${JSON.stringify(join(copy, 'node.mjs'))};
        const sf = await init();
        const m = await sf.loadModel(${JSON.stringify(modelPath('encoder'))}, ${JSON.stringify(configOf('encoder'))});
        const out = m.encode(new Float32Array(36).fill(0.5)).output;
        const n = await init({ backend: 'native' }).then(() => 'loaded', (e) => e.code + ': ' + e.message);
        console.log(JSON.stringify({ backend: sf.backend, finite: out.every(Number.isFinite), native: n }));`;
      const hidden = JSON.parse(run({}, encode));
      assert.equal(hidden.backend, 'wasm');
      assert.equal(hidden.finite, true);
      assert.match(hidden.native, /^unsupported: init: backend 'native' is not available: no prebuilt addon for linux-x64-gnu/);
      // A file that is not a loadable shared object (another libc, a truncated download).
      const folder = join(copy, 'prebuilds', platformTag());
      cpSync(join(DIST, 'prebuilds'), join(copy, 'prebuilds'), { recursive: true });
      writeFileSync(join(folder, 'simdformer.node'), 'not an ELF file');
      const broken = JSON.parse(run({}, encode));
      assert.equal(broken.backend, 'wasm');
      assert.match(broken.native, /^unsupported: .*does not load/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('results equal the wasm build within 1e-5', () => {
  test('encoder stack, multihead attention with its weights, seq2seq decoding', async () => {
    for (const name of ['encoder', 'mha_self']) {
      const g = readGolden(name);
      const [a, b] = await Promise.all([sf, wasm].map((s) => s.loadModel(modelPath(name), configOf(name))));
      const x = split(g.x.data, g.x.shape[0]);
      const ra = a.encode(x, { returnAttention: true }), rb = b.encode(x, { returnAttention: true });
      ra.sequences.forEach((s, i) => {
        assert.ok(maxAbsDiff(s.output, rb.sequences[i].output) < TOL, `${name} sequence ${i}`);
        s.attentions.forEach((layer, l) => layer.forEach((h, j) =>
          assert.ok(maxAbsDiff(h.data, rb.sequences[i].attentions[l][j].data) < TOL, `${name} ${i} layer ${l} head ${j}`)));
      });
      a.dispose();
      b.dispose();
    }
    {
      const g = readGolden('transformer_prenorm');
      const [a, b] = await Promise.all([sf, wasm].map((s) => s.loadModel(modelPath('transformer_prenorm'), configOf('transformer_prenorm'))));
      const src = split(g.src.data, 2), tgt = split(g.tgt.data, 2);
      const ra = a.forward(src, tgt, { returnAttention: true }), rb = b.forward(src, tgt, { returnAttention: true });
      ra.sequences.forEach((s, i) => {
        assert.ok(maxAbsDiff(s.output, rb.sequences[i].output) < TOL, `transformer_prenorm ${i}`);
        assert.ok(maxAbsDiff(s.crossAttentions[1][0].data, rb.sequences[i].crossAttentions[1][0].data) < TOL);
      });
      a.dispose();
      b.dispose();
    }
    const g = readGolden('seq2seq');
    const [a, b] = await Promise.all([sf, wasm].map((s) => s.loadModel(modelPath('seq2seq'), configOf('seq2seq'))));
    const src = split(g.src.data, 2).map((t) => Array.from(t, Math.round));
    const tokensOf = (m) => m.generate(src, { maxLength: 8 }).map((r) => Array.from(r.tokens));
    assert.deepEqual(tokensOf(a), tokensOf(b));
    a.dispose();
    b.dispose();
  });

  test('Hugging Face text models: embeddings, fill-mask, classification, GPT-2 generation', async () => {
    const texts = ['hello world', 'a somewhat longer sentence, with punctuation and more words in it'];
    for (const name of ['bert', 'roberta', 'distilbert']) {
      const [a, b] = await Promise.all([sf, wasm].map((s) => s.loadPretrained(join(HF, name))));
      a.embed(texts).forEach((e, i) => assert.ok(maxAbsDiff(e, b.embed(texts)[i]) < TOL, `${name} embedding ${i}`));
      a.dispose();
      b.dispose();
    }
    const [ca, cb] = await Promise.all([sf, wasm].map((s) => s.loadPretrained(join(HF, 'bert_seqcls'))));
    const [ka, kb] = [ca.classify(texts), cb.classify(texts)];
    ka.forEach((k, i) => assert.ok(maxAbsDiff(k.logits, kb[i].logits) < TOL, `classify ${i}`));
    ca.dispose();
    cb.dispose();
    const [ga, gb] = await Promise.all([sf, wasm].map((s) => s.loadPretrained(join(HF, 'gpt2'))));
    const [ta, tb] = await Promise.all([ga, gb].map((m) => m.generateText('The quick brown fox', { maxNewTokens: 12 })));
    assert.deepEqual(Array.from(ta.ids), Array.from(tb.ids));
    ga.dispose();
    gb.dispose();
  });

  test('standalone operations: attention, layerNorm, linear, positionalEncoding', () => {
    const rows = (n, d, f) => Array.from({ length: n }, (_, i) => Array.from({ length: d }, (_, j) => f(i, j)));
    const Q = rows(5, 8, (i, j) => Math.sin(i + j)), K = rows(7, 8, (i, j) => Math.cos(i * j)), V = rows(7, 3, (i, j) => i - j);
    const [ra, rb] = [sf, wasm].map((s) => s.attention(Q, K, V, { returnWeights: true, causal: true }));
    assert.ok(maxAbsDiff(ra.output.data, rb.output.data) < TOL);
    assert.ok(maxAbsDiff(ra.weights.data, rb.weights.data) < TOL);
    const x = Float32Array.from({ length: 6 * 10 }, (_, i) => Math.sin(i));
    const [la, lb] = [sf, wasm].map((s) => s.layerNorm({ data: x, shape: [6, 10] }));
    assert.ok(maxAbsDiff(la.data, lb.data) < TOL);
    const w = Float32Array.from({ length: 5 * 10 }, (_, i) => Math.cos(i)), bias = Float32Array.from({ length: 5 }, (_, i) => i);
    const [fa, fb] = [sf, wasm].map((s) => {
      const lin = s.linear(w, bias, 10, 5);
      const y = lin.forward(x, 6);
      lin.dispose();
      return y;
    });
    assert.ok(maxAbsDiff(fa.data ?? fa, fb.data ?? fb) < TOL);
    assert.ok(maxAbsDiff(sf.positionalEncoding(50, 16).data, wasm.positionalEncoding(50, 16).data) < TOL);
    // Inputs over a SharedArrayBuffer (from a worker) are copied in as any other.
    const shared = new Float32Array(new SharedArrayBuffer(x.byteLength + 8), 8);  // at byte offset 8
    shared.set(x);
    const [sa, sb] = [sf, wasm].map((s) => s.layerNorm({ data: shared, shape: [6, 10] }));
    assert.ok(maxAbsDiff(sa.data, la.data) < TOL);
    assert.ok(maxAbsDiff(sa.data, sb.data) < TOL);
  });

  test('bit-identical across native thread counts (1, 2, 3)', async () => {
    const texts = ['hello world', 'a somewhat longer sentence, with punctuation and more words in it'];
    const outputs = [];
    for (const threads of [1, 2, 3]) {
      const s = await init({ backend: 'native', threads });
      assert.equal(s.threads, threads);
      const m = await s.loadPretrained(join(HF, 'bert'));
      const e = m.embed(texts);
      const g = await (await s.loadPretrained(join(HF, 'gpt2'))).generateText('The quick brown fox', { maxNewTokens: 6 });
      outputs.push({ e: Buffer.concat(e.map(bits)), ids: Array.from(g.ids) });
      m.dispose();
      s.dispose();
    }
    for (const o of outputs.slice(1)) {
      assert.equal(Buffer.compare(o.e, outputs[0].e), 0);
      assert.deepEqual(o.ids, outputs[0].ids);
    }
    assert.equal(native.module.threads(), 1, 'dispose() stopped the pool');
  });
});

test('worker_threads: the addon loads in each, calls run one at a time, results equal the main thread\'s', async () => {
  const { Worker } = await import('node:worker_threads');
  const texts = ['hello world', 'a somewhat longer sentence, with punctuation and more words in it'];
  const m = await sf.loadPretrained(join(HF, 'bert'));
  const want = Buffer.concat(m.embed(texts).map(bits));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.entry).then(async ({ init }) => {
      const sf = await init({ backend: 'native' });
      const m = await sf.loadPretrained(workerData.folder);
      let out;
      for (let i = 0; i < 20; i++) out = m.embed(workerData.texts);
      parentPort.postMessage(out.map((e) => Array.from(e)));
      m.dispose();
    });`;
  const run = () => new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { entry: join(DIST, 'node.mjs'), folder: join(HF, 'bert'), texts } });
    w.once('message', resolve);
    w.once('error', reject);
  });
  const [a, b] = await Promise.all([run(), run(), m.embed(texts)]);
  for (const r of [a, b]) assert.equal(Buffer.compare(Buffer.concat(r.map((e) => bits(Float32Array.from(e)))), want), 0);
  m.dispose();
});

describe('the same errors as wasm', () => {
  // Every call fails on both backends with the same code and message.
  const same = async (what, call) => {
    const errors = [];
    for (const s of [sf, wasm]) {
      try {
        await call(s);
        errors.push(null);
      } catch (e) {
        errors.push(e);
      }
    }
    const [n, w] = errors;
    assert.ok(w instanceof SimdformerError, `${what}: wasm threw ${w}`);
    assert.ok(n instanceof SimdformerError, `${what}: native threw ${n}`);
    assert.equal(n.code, w.code, what);
    assert.equal(n.message, w.message, what);
  };

  test('hostile sizes near 2^31, 2^32, 2^53 and 2^63', async () => {
    const HOSTILE = [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 2 ** 53, 2 ** 63, -1, 1.5, NaN];
    for (const v of HOSTILE) {
      await same(`positionalEncoding(${v}, 4)`, (s) => s.positionalEncoding(v, 4));
      await same(`positionalEncoding(4, ${v})`, (s) => s.positionalEncoding(4, v));
      await same(`linear(in=${v})`, (s) => s.linear(new Float32Array(4), null, v, 2));
      await same(`layerNorm eps=${v}`, (s) => s.layerNorm({ data: new Float32Array(4), shape: [2, 2] }, { eps: -Math.abs(v) || v }));
    }
    const models = await Promise.all([sf, wasm].map((s) => s.loadModel(modelPath('encoder'), configOf('encoder'))));
    const byBackend = new Map([[sf, models[0]], [wasm, models[1]]]);
    for (const v of [2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63]) {
      await same(`encode maxLength ${v}`, (s) => byBackend.get(s).encode(new Float32Array(12), { maxLength: v }));
    }
    await same('a 60000-position sequence', (s) => byBackend.get(s).encode(new Float32Array(60000 * 12)));
    models.forEach((m) => m.dispose());
    // safetensors headers whose shapes and offsets are near 2^32 and 2^63.
    for (const [shape, offsets] of [[[2 ** 31], [0, 2 ** 33]], [[2 ** 32 + 1], [0, 4]], [[2 ** 62, 4], [0, 16]],
      [[3], ['0', 12]], [[3], [0, 2 ** 63]]]) {
      const header = new TextEncoder().encode(JSON.stringify({ w: { dtype: 'F32', shape, data_offsets: offsets } }));
      const file = new Uint8Array(8 + header.length + 16);
      new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
      file.set(header, 8);
      await same(`safetensors shape ${shape} offsets ${offsets}`, (s) => s.loadModelSync(file, configOf('encoder')));
      await same(`inspect shape ${shape}`, (s) => s.inspect(file));
    }
  });
});

describe('the raw addon in the user\'s process', () => {
  const m = native.module;
  const raw = new Simdformer(m, { simd: true, readSource: async (source) => source, localFolder: folderFileSet, backend: 'native' });

  test('copies in and out are checked against the blocks JavaScript allocated', () => {
    const p = m._malloc(16);
    assert.ok(p > 0);
    m.write(p, new Float32Array([1, 2, 3, 4]));
    assert.deepEqual(Array.from(new Float32Array(m.read(p, 16))), [1, 2, 3, 4]);
    const refused = (fn, re) => assert.throws(fn, (e) => e.name === 'BindingError' && re.test(e.message));
    refused(() => m.write(p, new Float32Array(5)), /runs past the end of its block/);
    refused(() => m.write(p + 8, new Float32Array(3)), /runs past the end of its block/);
    refused(() => m.read(p + 4, 16), /runs past the end of its block/);
    refused(() => m.write(4096, new Uint8Array(1)), /not in a block JavaScript allocated/);
    refused(() => m.write(2 ** 53 + 2, new Uint8Array(1)), /bad address/);
    refused(() => m.read(0, 4), /address is 0/);
    refused(() => m.read(p, 2 ** 32), /bad address or size/);
    refused(() => m.write(p, [1, 2]), /expected a typed array/);
    m._free(p);
    refused(() => m.write(p, new Uint8Array(1)), /not in a block/);
    refused(() => m._free(p), /not a block _malloc returned/);
    for (const bad of [-1, 2 ** 32, 2 ** 53, NaN, 1.5, '8']) assert.equal(m._malloc(bad), 0, `_malloc(${bad})`);
  });

  test('throwing and re-entrant loader callbacks: the load fails cleanly, nothing stays allocated', async () => {
    const bytes = readFileSync(modelPath('encoder'));
    const base = m.mallocBytes();
    const text = (s) => {
      const b = new TextEncoder().encode(s);
      const p = m._malloc(b.length);
      m.write(p, b);
      return { ptr: p, length: b.length };
    };
    const load = (read, progress) => {
      const h = m.createModelHandle();
      const t = [text(JSON.stringify(configOf('encoder'))), text(JSON.stringify([{ name: 'model.safetensors', size: bytes.length }])),
        { ptr: 0, length: 0 }, text('{"weights":"f32"}')];
      try {
        return { h, reply: h.loadCheckpoint(t[0], t[1], t[2], (...a) => read(h, ...a), progress, t[3]) };
      } finally {
        for (const x of t) if (x.ptr) m._free(x.ptr);
      }
    };
    const copy = (h, shard, offset, length, dst) => {
      m.write(dst, bytes.subarray(offset, offset + length));
      return true;
    };
    // A callback that throws: its exception comes out of loadCheckpoint, after C++ cleaned up.
    const boom = new Error('boom from read');
    let r;
    assert.throws(() => load(() => { throw boom; }), (e) => e === boom);
    assert.throws(() => load(copy, () => { throw boom; }), (e) => e === boom);
    // A callback that calls back into its own handle: 'busy', and delete() is refused.
    r = load((h, ...a) => {
      assert.match(h.infoJson(), /^busy\t/);
      assert.throws(() => h.delete(), (e) => e.name === 'BindingError' && /while it runs a call/.test(e.message));
      return copy(h, ...a);
    });
    assert.equal(r.reply, '');
    r.h.delete();
    // A callback that writes outside its destination: refused, and that error ends the load.
    assert.throws(() => load((h, shard, offset, length, dst) => {
      m.write(dst + 1, bytes.subarray(offset, offset + length));
      return true;
    }), (e) => e.name === 'BindingError' && /is not in a block JavaScript allocated nor in the buffer being filled/.test(e.message));
    // Calls into other handles and operations from a callback work.
    r = load((h, ...a) => {
      assert.equal(raw.positionalEncoding(2, 2).data.length, 4);
      return copy(h, ...a);
    });
    assert.equal(r.reply, '');
    r.h.delete();
    assert.equal(m.mallocBytes(), base);
    // Use after delete is an internal error through the public classes, never a crash.
    assert.throws(() => r.h.infoJson(), (e) => e.name === 'BindingError');
  });

  test('allocation failure: every operation works or is out_of_memory, then works again as before', async () => {
    const encoderBytes = readFileSync(modelPath('encoder'));
    const bert = join(HF, 'bert');
    const ops = {
      loadAndEncode: () => {
        const model = raw.loadModelSync(encoderBytes, configOf('encoder'));
        try {
          return bits(model.encode(new Float32Array(5 * 12).fill(0.25)).output);
        } finally {
          model.dispose();
        }
      },
      attention: () => bits(raw.attention([[1, 2], [3, 4]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]], { returnWeights: true }).weights.data),
      positional: () => bits(raw.positionalEncoding(64, 32).data),
    };
    const model = await raw.loadPretrained(bert);
    ops.embed = () => bits(model.embed('hello world, and more words'));
    let failures = 0;
    for (const [name, op] of Object.entries(ops)) {
      const want = op();
      const level = m.mallocBytes();
      for (const hole of [0, 16, 1024, 1 << 14, 1 << 16, 1 << 18, 1 << 20]) {
        m.setAllocationLimit(level + hole);
        let r;
        try {
          r = op();
        } catch (e) {
          r = e;
        } finally {
          m.setAllocationLimit(0);
        }
        if (r instanceof Error) {
          assert.ok(isError('out_of_memory')(r), `${name}, hole ${hole}: ${r.name}: ${r.message}`);
          failures++;
        } else {
          assert.equal(Buffer.compare(r, want), 0, `${name}, hole ${hole}: a different answer`);
        }
        assert.equal(m.mallocBytes(), level, `${name}, hole ${hole}: bytes left allocated`);
        assert.equal(Buffer.compare(op(), want), 0, `${name}, hole ${hole}: different afterwards`);
      }
    }
    model.dispose();
    assert.ok(failures >= 10, `only ${failures} runs hit the limit`);
    console.log(`native allocation failure: ${failures} runs out_of_memory, all clean`);
  });
});

test('the package script builds the addon from source (npm run build:native)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.scripts['build:native'], 'bash scripts/build-native.sh');
});
