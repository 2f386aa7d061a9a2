// The packed tarball, installed elsewhere the way users get it: ESM import, CJS require, the
// CLI, and a strict TypeScript consumer of the types.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ROOT, configOf, modelPath } from './helpers.mjs';

let dir;
const bin = () => join(dir, 'node_modules', '.bin', 'simdformer');

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdformer-package-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', join(dir, tarball)], { cwd: dir, stdio: 'inherit' });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(configOf('seq2seq')));
});

after(() => rmSync(dir, { recursive: true, force: true }));

const run = (file, source) => {
  writeFileSync(join(dir, file), source);
  return execFileSync(process.execPath, [join(dir, file)], { cwd: dir, encoding: 'utf8' });
};

test('the tarball holds the package files, the linux-x64 addon, the demo page with its models and the examples, in at most 10 MB', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  for (const f of ['dist/simdformer.wasm', 'dist/simdformer-scalar.wasm', 'dist/cli.mjs', 'web/index.html', 'web/serve.mjs',
    'web/models/fortune-bert/model.safetensors', 'web/models/fortune-gpt2/tokenizer.json', 'web/models/fortune-llama/model.safetensors', 'web/models/fortune-llama/heads.json',
    'web/models/fortune-topics/model.safetensors', 'web/models/fortune-topics/metrics.json',
    'web/models/reverse/config.json',
    'examples/node/fill-mask.mjs', 'README.md', 'BENCHMARKS.md',
    'dist/prebuilds/linux-x64-gnu/simdformer.node', 'dist/prebuilds/linux-x64-gnu/simdformer-avx2.node',
    'dist/prebuilds/linux-x64-gnu/simdformer-avx512.node']) {
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  }
  const shipped = (f) => ['package.json', 'README.md', 'BENCHMARKS.md'].includes(f) || ['dist/', 'web/', 'examples/node/'].some((d) => f.startsWith(d));
  assert.deepEqual(files.filter((f) => !shipped(f)), []);
  // Issue 31's limit with the prebuilt addon (three x86-64 levels, 6.7 MB in all); wasm alone was 4.5 MB.
  assert.ok(packed.size <= 10 * 1024 * 1024, `tarball is ${packed.size} bytes, more than 10 MB`);
});

// The README's blocks marked "runs as printed", in order, exactly as a reader copies them.
function readmeExamples() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/<!-- [^>]*runs this block exactly as printed -->\n```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, 'README.md lost its marked examples');
  return blocks;
}

test("the README's first example runs as printed in a fresh project", () => {
  const out = run('first.mjs', readmeExamples()[0]).trim().split('\n');
  const predictions = out.slice(0, 3).map((line) => line.split(' '));
  const scores = predictions.map(([score]) => Number(score));
  assert.ok(scores.every((x) => x > 0 && x <= 1) && scores[0] >= scores[1] && scores[1] >= scores[2], out.join('\n'));
  const rows = out.slice(3);
  assert.equal(rows[0].split(/ +/)[0], '[CLS]');
  for (const row of rows) {
    const weights = row.trim().split(/ +/).slice(1).map(Number);
    assert.equal(weights.length, rows.length, row);
    assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) <= 0.005 * weights.length, `attention row does not sum to 1: ${row}`);  // printed to 2 decimals
  }
});

test("the README's nn.Transformer example runs as printed and its comments say what it prints", () => {
  const out = run('transformer.mjs', readmeExamples()[1]).trim().split('\n');
  assert.deepEqual(out.slice(-2), ['[ 3, 64 ] [ 3, 3 ]', '[ 1, 6, 5, 4, 2 ]']);
});

test('every example runs from the installed package, in place and copied into the project', () => {
  const installed = join(dir, 'node_modules', 'simdformer', 'examples', 'node');
  const examples = readdirSync(installed).filter((f) => f.endsWith('.mjs'));
  assert.ok(examples.length >= 5, examples.join(', '));
  const expected = { 'fill-mask.mjs': /token \d+:/, 'embed.mjs': /bert, \d+ layers/, 'generate.mjs': /source 2 0 2 6 1 1 3 0 -> <bos> 0 3 1 1 6 2 0 2 <eos>/,
    'encode.mjs': /sequence 1: output \[3,64\]/, 'attention.mjs': /softmax, causal/ };
  for (const file of examples) {
    for (const path of [join(installed, file), join(dir, `copied-${file}`)]) {
      if (!path.startsWith(installed)) copyFileSync(join(installed, file), path);
      const r = spawnSync(process.execPath, [path], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, `${path}: ${r.stderr}`);
      if (expected[file]) assert.match(r.stdout, expected[file], `${file}: ${r.stdout}`);
    }
  }
});

test('npx simdformer demo serves the demo page from the installed package, and it runs in Chromium', async () => {
  const { launch } = await import('./chromium.mjs');
  // Its own process group, so stopping it stops npx and the server npx started.
  const server = spawn('npx', ['--no-install', 'simdformer', 'demo', '--port', '0', '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  server.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
  const browser = await launch();
  try {
    const { url } = JSON.parse(await new Promise((ok, fail) => {
      let out = '';
      server.stdout.on('data', (d) => { out += d; if (out.includes('\n')) ok(out.split('\n')[0]); });
      server.once('exit', () => fail(new Error(`demo exited: ${stderr}`)));
    }));
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.__demo?.ready && window.__demo.runs > 0, null, { timeout: 60000 });
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    process.kill(-server.pid, 'SIGTERM');
  }
  await exited;
  assert.doesNotMatch(stderr, /Error|simdformer:/);
});

test('ESM import works from an installed package', () => {
  const out = run('esm.mjs', `
    import { init, SimdformerError } from 'simdformer';
    import { readFileSync } from 'node:fs';
    const sf = await init();
    const model = await sf.loadModel(${JSON.stringify(modelPath('seq2seq'))}, JSON.parse(readFileSync('config.json', 'utf8')));
    const r = model.generate([3, 4, 5, 6, 7, 8], { maxLength: 8 });
    let threw = false;
    try { model.encode([99]); } catch (e) { threw = e instanceof SimdformerError; }
    console.log(JSON.stringify({ simd: sf.simd, backend: sf.backend, tokens: Array.from(r.tokens), threw }));
    model.dispose();
  `);
  const r = JSON.parse(out);
  assert.equal(r.simd, true);
  assert.equal(r.backend, 'native', 'the installed package runs the prebuilt addon on linux-x64');
  assert.equal(r.tokens[0], 1);
  assert.equal(r.threw, true);
});

test('CommonJS require works from an installed package', () => {
  const out = run('cjs.cjs', `
    const { init } = require('simdformer');
    init({ simd: false }).then(async (sf) => {
      const model = await sf.loadModel(${JSON.stringify(modelPath('mha_self'))}, ${JSON.stringify(configOf('mha_self'))});
      const r = model.encode([[...Array(16).keys()].map((i) => i / 16)]);
      console.log(JSON.stringify({ arch: sf.arch, shape: r.shape }));
      model.dispose();
    });
  `);
  assert.deepEqual(JSON.parse(out), { arch: 'scalar', shape: [1, 16] });
});

test('the CLI: help, info, encode with attention, generate, and failures', () => {
  const help = spawnSync(bin(), ['--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /encode +run an nn.Transformer-format model/);
  for (const command of ['info', 'embed', 'fill-mask', 'encode', 'generate']) {
    const h = spawnSync(bin(), [command, '--help'], { encoding: 'utf8' });
    assert.equal(h.status, 0, command);
    assert.match(h.stdout, new RegExp(`Usage:\\n  simdformer ${command} --model`), command);
    assert.match(h.stdout, /--json/);
  }
  const tensorsOnly = spawnSync(bin(), ['info', '--model', modelPath('encoder')], { encoding: 'utf8' });
  assert.equal(tensorsOnly.status, 0, tensorsOnly.stderr);
  assert.match(tensorsOnly.stdout, /tensors only/);
  assert.match(tensorsOnly.stdout, /layers\.1\.norm2\.weight +F32 +\[12\]/);
  const human = spawnSync(bin(), ['info', '--model', modelPath('encoder'), '--config', join(ROOT, 'tests/data/encoder.json')], { encoding: 'utf8' });
  assert.match(human.stdout, /encoder: d_model 12, 3 heads/);
  const info = spawnSync(bin(), ['info', '--json', '--model', modelPath('encoder'), '--config', join(ROOT, 'tests/data/encoder.json')], { encoding: 'utf8' });
  assert.equal(info.status, 0, info.stderr);
  const described = JSON.parse(info.stdout);
  assert.equal(described.config.model_type, 'encoder');
  assert.equal(described.parameters, 2392);
  assert.ok(described.tensors.some((t) => t.name === 'layers.1.norm2.weight'));

  writeFileSync(join(dir, 'input.json'), JSON.stringify({ input: [[3, 4, 5], [6, 7]] }));
  const enc = spawnSync(bin(), ['encode', '--model', modelPath('seq2seq'), '--config', join(dir, 'config.json'),
    '--input', join(dir, 'input.json'), '--attention', join(dir, 'att.json'), '--mean', '--json'], { encoding: 'utf8' });
  assert.equal(enc.status, 0, enc.stderr);
  const encoded = JSON.parse(enc.stdout);
  assert.deepEqual(encoded.results.map((r) => r.shape), [[3, 16], [2, 16]]);
  const att = JSON.parse(readFileSync(join(dir, 'att.json'), 'utf8'));
  assert.equal(att[1].attentions.length, 2);
  assert.deepEqual(att[1].attentions[0][0].shape, [2, 2]);

  writeFileSync(join(dir, 'src.json'), JSON.stringify([3, 4, 5, 6, 7, 8]));
  const gen = spawnSync(bin(), ['generate', '--model', modelPath('seq2seq'), '--config', join(dir, 'config.json'),
    '--input', join(dir, 'src.json'), '--max-length', '8', '--progress', '--json'], { encoding: 'utf8' });
  assert.equal(gen.status, 0, gen.stderr);
  assert.equal(JSON.parse(gen.stdout).results[0].tokens[0], 1);
  assert.match(gen.stderr, /generate: \d+\/7/);

  const missing = spawnSync(bin(), ['encode', '--model', '/nope.safetensors', '--input', join(dir, 'src.json')], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot open model file '\/nope.safetensors'/);
  const usage = spawnSync(bin(), ['encode', '--modle', 'x'], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /Unknown option '--modle'/);
  const noInput = spawnSync(bin(), ['encode', '--model', modelPath('seq2seq'), '--config', join(dir, 'config.json'),
    '--input', join(dir, 'config.json')], { encoding: 'utf8' });
  assert.equal(noInput.status, 2);
  assert.match(noInput.stderr, /input file has no "input" entry/);
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ input: [3, 4], colour: 'red' }));
  const badOption = spawnSync(bin(), ['encode', '--model', modelPath('seq2seq'), '--config', join(dir, 'config.json'),
    '--input', join(dir, 'bad.json')], { encoding: 'utf8' });
  assert.equal(badOption.status, 1);
  assert.match(badOption.stderr, /unknown option 'colour'/);
});

test('the CLI on Hugging Face folders: info, embed, fill-mask (human-readable and --json)', async () => {
  const { readTensors } = await import('./helpers.mjs');
  const hf = (name) => join(ROOT, 'tests', 'data', 'hf', name);
  const info = spawnSync(bin(), ['info', '--model', hf('bert_mlm_f16')], { encoding: 'utf8' });
  assert.equal(info.status, 0, info.stderr);
  assert.match(info.stdout, /architecture +bert \(BertForMaskedLM\)/);
  assert.match(info.stdout, /stored as F16/);
  const texts = JSON.parse(readFileSync(join(hf('bert'), 'texts.json'), 'utf8')).batch.slice(0, 2);
  const embed = spawnSync(bin(), ['embed', '--json', '--model', hf('bert'), '--text', texts[0], '--text', texts[1]], { encoding: 'utf8' });
  assert.equal(embed.status, 0, embed.stderr);
  const e = JSON.parse(embed.stdout);
  const golden = readTensors(join(hf('bert'), 'golden.safetensors')).sentence_embedding.data;
  assert.equal(e.dimensions, 32);
  e.embeddings.forEach((v, b) => v.forEach((x, j) => assert.ok(Math.abs(x - golden[b * 32 + j]) <= 1e-4)));
  const human = spawnSync(bin(), ['embed', '--model', hf('bert'), '--text', texts[0], '--text', texts[1]], { encoding: 'utf8' });
  assert.match(human.stdout, /2 text\(s\) -> 32-dimensional embeddings/);
  assert.match(human.stdout, /cosine similarity:/);
  const fill = spawnSync(bin(), ['fill-mask', '--model', hf('bert_mlm_f16'), '--text', 'The quick brown fox jumps over the lazy [MASK].', '--top-k', '3'], { encoding: 'utf8' });
  assert.equal(fill.status, 0, fill.stderr);
  assert.equal(fill.stdout.trim().split('\n').length, 4, fill.stdout);
  assert.match(fill.stdout, /^ +1\. +"\S+" +0\.\d{4} +the quick brown fox/m);
  const noHead = spawnSync(bin(), ['fill-mask', '--model', hf('bert'), '--text', 'a [MASK]'], { encoding: 'utf8' });
  assert.equal(noHead.status, 1);
  assert.match(noHead.stderr, /masked-language-model head/);
  const noText = spawnSync(bin(), ['embed', '--model', hf('bert')], { encoding: 'utf8' });
  assert.equal(noText.status, 2);
  assert.match(noText.stderr, /give the text with --text/);
});

test('a strict TypeScript consumer type-checks against the shipped types', () => {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'esnext.disposable'], types: [] },
    files: ['consumer.mts', 'consumer.cts'],
  }));
  writeFileSync(join(dir, 'consumer.mts'), `
    import { init, SimdformerError, type Attentions, type GenerateResult } from 'simdformer';
    const sf = await init({ simd: 'auto' });
    const model = await sf.loadModel(new Uint8Array(8), { d_model: 8 });
    const r = model.encode(new Float32Array(16), { returnAttention: 'mean', paddingMask: [false, true] });
    const heads: Attentions | undefined = r.attentions;
    const shape: [number, number] = r.shape;
    const batch = model.encode([new Int32Array([1, 2]), new Int32Array([3])]);
    const first: number = batch.sequences[0].output[0];
    const g: GenerateResult = model.generate([1, 2, 3], { maxLength: 4, onProgress: (p) => p.step });
    const w = sf.attention([[1]], [[1]], [[1]], { returnWeights: true, normalize: 'relu' });
    const pe: Float32Array = sf.positionalEncoding(4, 8).data;
    const e = new SimdformerError('x');
    const code: string = e.code;
    // @ts-expect-error: scores are 'scaled-dot' | 'dot' | 'additive'
    model.encode(new Float32Array(8), { score: 'cosine' });
    // @ts-expect-error: init takes no such option
    await init({ thread: 4 });
    const sf2 = await init({ threads: 'auto' });
    const nThreads: number = sf2.threads;
    const started: number = await sf2.threadsReady;
    // @ts-expect-error: threads is a number or 'auto'
    await init({ threads: '2' });
    model.dispose();
    export const used = [heads, shape, first, g.tokens, w.weights?.shape, pe, code, nThreads, started];
  `);
  writeFileSync(join(dir, 'consumer.cts'), `
    import simdformer = require('simdformer');
    simdformer.init({ simd: false }).then((sf) => sf.positionalEncoding(2, 2).shape);
  `);
  writeFileSync(join(dir, 'text.mts'), `
    import { bundledModelUrl, forgetModel, init, keptModels, type KeptModel, type TextEncoding } from 'simdformer';
    const sf = await init();
    const bundled = await sf.loadPretrained(bundledModelUrl('fortune-bert'), { cache: 'browser' });
    const keptList: KeptModel[] = await keptModels();
    const keptBytes: number = keptList[0].bytes;
    const forgotten: number = await forgetModel(keptList[0].url);
    // @ts-expect-error: cache is 'browser' or 'none'
    await sf.loadPretrained('folder', { cache: 'disk' });
    // @ts-expect-error: the package ships no such model
    bundledModelUrl('gpt-4');
    const m = await sf.loadPretrained('folder', { onProgress: (p) => p.loaded });
    const r = m.encodeText('hello', { returnAttention: true });
    const a: number = r.attentions[0][2].data[0];
    const offsets: [number, number] = r.offsets[1];
    const plainR: TextEncoding = m.encodeText('hello');
    // @ts-expect-error: attentions may be absent without returnAttention
    plainR.attentions[0];
    const batch = m.encodeText(['a', ['b', 'c']], { returnAttention: 'mean', maxLength: 8 });
    const c: number = batch[1].attentions[0][0].data[0];
    const e: Float32Array = m.embed('x');
    const es: Float32Array[] = m.embed(['x', 'y'], { normalize: false, pooling: 'cls' });
    const score: number = m.fillMask('a [MASK]', { topK: 3 }).masks[0].predictions[0].score;
    const w = sf.attention([[1]], [[1]], [[1]], { returnWeights: true });
    const ws: [number, number] = w.weights.shape;
    const model = sf.loadModelSync(new Uint8Array(8), { d_model: 8 });
    const x: number = model.encode(new Float32Array(16), { returnAttention: true }).attentions[0][0].data[0];
    const y: number = model.generate([1, 2], { returnAttention: 'mean' }).crossAttentions[0][0].data[0];
    const objects = await sf.loadPretrained({ config: {}, weights: new Uint8Array(1), tokenizer: '{}' });
    // @ts-expect-error: embed has no option 'pool'
    m.embed('x', { pool: 'mean' });
    const tokens: string = m.tokenClassify('Mira lives in Oslo.')[0].entity;
    const groups: string = m.tokenClassify(['a', 'b'], { aggregation: 'first', ignoreLabels: [] })[1][0].entityGroup;
    const answer: string = m.answer('Where?', 'In Oslo.').answer;
    const answers = m.answer('Where?', 'In Oslo.', { topK: 3, docStride: 64, handleImpossibleAnswer: true });
    const zs: number = m.zeroShot('The team won.', ['sports', 'politics'], { multiLabel: true }).scores[0];
    const ranked: number = m.rerank('q', ['d1', 'd2'], { topK: 1 })[0].index;
    // @ts-expect-error: no such aggregation
    m.tokenClassify('x', { aggregation: 'longest' });
    m.dispose();
    export const used = [a, offsets, c, e, es, score, ws, x, y, objects, bundled, keptBytes, forgotten, tokens, groups, answer, answers, zs, ranked];
  `);
  // The README's first example, as TypeScript (console declared: one set-up has neither DOM nor Node typings).
  writeFileSync(join(dir, 'first.mts'), `declare const console: { log(...items: unknown[]): void };\n${readmeExamples()[0]}`);
  // Node with the disposable lib, and a browser-only set-up without it and without @types/node.
  for (const lib of [['es2022', 'esnext.disposable'], ['es2022', 'dom']]) {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib, types: [] },
      files: ['consumer.mts', 'consumer.cts', 'text.mts', 'first.mts'],
    }));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, `lib ${lib}: ${tsc.stdout}${tsc.stderr}`);
  }
});

test('importing simdformer never loads @huggingface/tokenizers; loadPretrained names it when it is missing', () => {
  const lib = join(dir, 'node_modules', '@huggingface', 'tokenizers');
  const hidden = `${lib}.hidden`;
  renameSync(lib, hidden);
  try {
    const out = run('lazy.mjs', `
      import { init } from 'simdformer';
      const sf = await init();
      const model = await sf.loadModel(${JSON.stringify(modelPath('mha_self'))}, ${JSON.stringify(configOf('mha_self'))});
      const shape = model.encode([[...Array(16).keys()].map((i) => i / 16)]).shape;
      model.dispose();
      const error = await sf.loadPretrained(${JSON.stringify(join(ROOT, 'tests', 'data', 'hf', 'bert'))}).then(() => null, (e) => e);
      console.log(JSON.stringify({ shape, code: error?.code, message: error?.message, live: sf.liveBytes }));
    `);
    const r = JSON.parse(out);
    assert.deepEqual(r.shape, [1, 16]);
    assert.equal(r.code, 'unsupported');
    assert.match(r.message, /@huggingface\/tokenizers/);
    assert.equal(r.live, 0);
  } finally {
    renameSync(hidden, lib);
  }
});
