// The text entry points under hostile input (issue 18): tokenizer ids are exact or refused,
// regexes that backtrack exponentially are refused, every bad input is a SimdformerError with a
// code and a message naming the file or argument, and an abort always settles the call.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { SimdformerError, init } from '../../dist/node.mjs';
import { unboundedRepetition } from '../../dist/lib/tokenizer-checks.mjs';
import { DATA } from './helpers.mjs';

const BERT = join(DATA, 'hf', 'bert');
const GPT2 = join(DATA, 'hf', 'gpt2');
const read = (dir, name) => readFileSync(join(dir, name), 'utf8');
const bertTokenizer = () => JSON.parse(read(BERT, 'tokenizer.json'));
const bertObjects = (tokenizer = bertTokenizer()) => ({
  config: read(BERT, 'config.json'), weights: readFileSync(join(BERT, 'model.safetensors')), tokenizer,
  tokenizerConfig: read(BERT, 'tokenizer_config.json'),
});
const scratch = mkdtempSync(join(tmpdir(), 'sf-robust-text-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;
const folderWith = (files, from = BERT) => {
  const dir = join(scratch, String(serial++));
  cpSync(from, dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
};
const error = (pattern, code = 'invalid_argument') => (e) => {
  assert.ok(e instanceof SimdformerError, `expected a SimdformerError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.code, code, e.message);
  assert.match(e.message, pattern);
  return true;
};
// A promise that fails the test instead of hanging it.
const within = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) => {
  setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms).unref();
})]);

const sf = await init();

describe('tokenizer ids are exact', () => {
  const withId = (token, id) => {
    const t = bertTokenizer();
    t.model.vocab[token] = id;
    return t;
  };

  test('an id of 2^32 + 5, 1.5, -1 or a string in model.vocab is refused, naming the token', async () => {
    for (const id of [2 ** 32 + 5, 1.5, -1, '5', 2 ** 53]) {
      await assert.rejects(sf.loadPretrained(bertObjects(withId('.', id))), error(/tokenizer\.json.*'\.'/), `id ${id}`);
    }
  });

  test('an id of 2^31 + 7 is refused at once (not a 2^31-slot walk)', async () => {
    const start = Date.now();
    await assert.rejects(sf.loadPretrained(bertObjects(withId('.', 2 ** 31 + 7))), error(/tokenizer\.json.*2147483655/));
    assert.ok(Date.now() - start < 5000, `took ${Date.now() - start} ms`);
  });

  test('added_tokens ids are checked the same way', async () => {
    for (const id of [2 ** 32, 0.5, null]) {
      const t = bertTokenizer();
      t.added_tokens[0].id = id;
      await assert.rejects(sf.loadPretrained(bertObjects(t)), error(/tokenizer\.json.*added_tokens\[0\]/), `id ${id}`);
    }
  });

  test('the real ids still load and encode exactly', async () => {
    const m = await sf.loadPretrained(bertObjects());
    const r = m.tokenizer.encodeOne('hello, world.', 40);
    assert.deepEqual(Array.from(r.ids), r.tokens.map((t) => bertTokenizer().model.vocab[t] ?? 1));
    m.dispose();
  });
});

// Each refused pattern with the input that makes a backtracking engine retry exponentially many
// ways of splitting it.
const REFUSED = [
  ['(a+)+$', 'a'.repeat(50) + '!'],
  ['(aa?)+$', 'a'.repeat(60) + '!'],
  ['(a{0,1}a)+$', 'a'.repeat(60) + '!'],
  ['(\\w\\d?)+$', '1'.repeat(60) + '!'],
  ['(a+?)+$', 'a'.repeat(50) + '!'],
  ['(a|aa)*b', 'a'.repeat(60)],
  ['((a|a))*$', 'a'.repeat(50) + '!'],
  ['(?:\\d{1,3})+x', '1'.repeat(60)],
  ['(\\w+\\s?)*$', 'a'.repeat(50) + '!'],
  ['(x+x+)+y', 'x'.repeat(50)],
  ['((?:a)?a)+$', 'a'.repeat(60) + '!'],
  ['a{1,3}+x', 'a'.repeat(60)],  // the library reads it as (?:a{1,3})+x
];
// The Hub's patterns, as their tokenizer.json files write them.
const HUB_PATTERNS = {
  'GPT-2': "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
  'Llama 3': "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  Qwen2: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  BLOOM: ' ?[^(\\s|[.,!?…。，、।۔،])]+',
  o200k: "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  'DeepSeek-V3': "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+",
  'XLM-R': ' {2,}',  // its normalizer folds runs of spaces before its Metaspace pre-tokenizer
};
// Runs `code` in a child node; resolves to 'slow' if it was still running after ms (and was
// killed), else to its exit code and output.
const runChild = (code, ms) => new Promise((resolve) => {
  execFile(process.execPath, ['-e', code], { timeout: ms, killSignal: 'SIGKILL' }, (e, stdout, stderr) => {
    resolve(e?.killed ? 'slow' : { code: e?.code ?? 0, stdout, stderr });
  });
});
// Code that runs the RegExp the tokenizer library compiles from a Split pattern on input.
const TOKENIZERS = import.meta.resolve('@huggingface/tokenizers');
const matchIn = (source, input) => `new Split(${JSON.stringify({ pattern: { Regex: source }, behavior: 'Isolated', invert: false })}).pattern.test(${JSON.stringify(input)})`;
const childCode = (lines) => `import(${JSON.stringify(TOKENIZERS)}).then(({ SplitPreTokenizer: Split }) => { ${lines.join(';')}; console.log('done'); })`;

describe('regexes that can take exponential time are refused', () => {
  const withPreTokenizer = (pre) => ({ ...bertTokenizer(), pre_tokenizer: pre });
  const split = (regex) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });

  test('a repeated group holding any quantifier (?, {0,1}, lazy, nested) or alternation is refused, as are back-references', async () => {
    for (const [regex] of [...REFUSED, ['(a)\\1+'], ['(?<w>a)\\k<w>']]) {
      await assert.rejects(sf.loadPretrained(bertObjects(withPreTokenizer(split(regex)))), error(/tokenizer\.json: the pre_tokenizer regex .*(repeat|stacks the quantifiers|back-reference)/, 'unsupported'), regex);
    }
    const nested = withPreTokenizer({ type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, split('(x+x+)+y')] });
    await assert.rejects(sf.loadPretrained(bertObjects(nested)), error(/pre_tokenizer regex/, 'unsupported'));
    const normalizer = { ...bertTokenizer(), normalizer: { type: 'Replace', pattern: { Regex: '(a*)*$' }, content: '' } };
    await assert.rejects(sf.loadPretrained(bertObjects(normalizer)), error(/normalizer regex/, 'unsupported'));
  });

  test('the verdict reads a pattern as the tokenizer library does (classes, escapes, group syntax, stacked quantifiers)', () => {
    const refused = ['[[a]](a+)+$', '[]a](a?a)+$', '\\((a+)+\\)', '(?<n>a?a)*$', '(?=x)(?:a|b)+', '(?>a+)+', '(a{,2}a)+$', '(a{2})+*',
      'a{2}*', 'a*{2}', '(\\p{L}{2,})+', '((a))((a)+)+', '(?i:a|b){2,}'];
    for (const regex of refused) assert.notEqual(unboundedRepetition(regex), null, regex);
    const accepted = ['(?:ab)+', '[a-z(|)+?]+', '\\(+', '(?:\\p{L}\\p{N})+', '(?:a\\u{1F600})+', '[[:alpha:]]+', '(ab){0,1}', '(a+)?',
      'a+?b*?', 'a?+', '(?:[^\\]]x)+', "(?i:'s|'t)|\\s+(?!\\S)"];
    for (const regex of accepted) assert.equal(unboundedRepetition(regex), null, regex);
  });

  test('the verdict is right: each refused pattern runs past 2 s on its worst input, the accepted ones at once', async () => {
    const ms = 2000;
    const verdicts = [];
    for (let i = 0; i < REFUSED.length; i += 2) {  // two at a time: the machine has two cores
      verdicts.push(...await Promise.all(REFUSED.slice(i, i + 2).map(([regex, input]) => runChild(childCode([matchIn(regex, input)]), ms))));
    }
    verdicts.forEach((verdict, i) => assert.equal(verdict, 'slow', `${REFUSED[i][0]} finished: ${JSON.stringify(verdict)}`));
    // The same harness on the accepted patterns and every one of those inputs finishes.
    const all = Object.values(HUB_PATTERNS).flatMap((regex) => REFUSED.map(([, input]) => matchIn(regex, input)));
    const control = await runChild(childCode(all), ms);
    assert.notEqual(control, 'slow');
    assert.deepEqual([control.code, control.stdout.trim()], [0, 'done'], control.stderr);
  });

  test('the patterns real tokenizers use load, and encode: GPT-2, Llama 3, Qwen2, BLOOM, o200k, DeepSeek-V3, XLM-R', async () => {
    for (const [name, regex] of Object.entries(HUB_PATTERNS)) {
      const m = await sf.loadPretrained(bertObjects(withPreTokenizer(split(regex))));
      assert.ok(m.encodeText(`hello world ${'a'.repeat(40)}!`).length > 2, name);
      m.dispose();
    }
    // Qwen2 writes its pattern as a Split before a ByteLevel without its own regex.
    const qwen2 = withPreTokenizer({ type: 'Sequence', pretokenizers: [split(HUB_PATTERNS.Qwen2), { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }] });
    const q = await sf.loadPretrained(bertObjects(qwen2));
    assert.ok(q.encodeText('hello world 12345').length > 2);
    q.dispose();
    // XLM-R: a Replace of runs of spaces in the normalizer, then Metaspace.
    const xlmr = {
      ...bertTokenizer(),
      normalizer: { type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { Regex: HUB_PATTERNS['XLM-R'] }, content: ' ' }] },
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    };
    const x = await sf.loadPretrained(bertObjects(xlmr));
    assert.ok(x.encodeText('hello    world').length > 2);
    x.dispose();
  });
});

describe('errors are SimdformerErrors naming the file or argument', () => {
  test('tokenizer.encodeOne: NaN, Infinity, 2.5 maxLength are refused; a huge one keeps everything', async () => {
    const m = await sf.loadPretrained(BERT);
    for (const max of [NaN, Infinity, 2.5, '10', undefined]) {
      assert.throws(() => m.tokenizer.encodeOne('hello world', max), error(/maxLength/), String(max));
    }
    const long = 'word '.repeat(70000);
    const r = m.tokenizer.encodeOne(long, 1e6);
    assert.equal(r.length, r.originalLength);
    assert.ok(r.length > 70000);
    assert.equal(r.truncated, false);
    assert.deepEqual([r.tokens[0], r.tokens.at(-1)], ['[CLS]', '[SEP]']);
    const pair = m.tokenizer.encodeOne([long, 'and more'], 1e6);
    assert.equal(pair.length, pair.originalLength);
    assert.equal(pair.typeIds.at(-1), 1);
    assert.throws(() => m.tokenizer.encodeOne(['a', 5], 10), error(/encodeOne: input/));
    m.dispose();
  });

  test('tokenizer.decode / idToToken / encodeBatch: null, strings, ids outside the vocabulary are refused; [] is empty text', async () => {
    const m = await sf.loadPretrained(BERT);
    for (const ids of [null, undefined, 'abc', 5, [1, 'x'], [1.5], [-1], [626], [2 ** 32]]) {
      assert.throws(() => m.tokenizer.decode(ids), error(/decode: ids/), JSON.stringify(ids));
    }
    assert.throws(() => m.tokenizer.decode([1], { skipSpecialTokens: 'yes' }), error(/skipSpecialTokens/));
    assert.equal(m.tokenizer.decode([]), '');
    for (const id of ['__proto__', 'length', -1, 1.5, 626, null]) {
      assert.throws(() => m.tokenizer.idToToken(id), error(/idToToken: id/), String(id));
    }
    assert.equal(m.tokenizer.idToToken(2), '[CLS]');
    for (const inputs of [null, 'text', { length: 2 }]) {
      assert.throws(() => m.tokenizer.encodeBatch(inputs, 10), error(/encodeBatch: inputs/), String(inputs));
    }
    assert.equal(m.tokenizer.decode(new Int32Array([2, 3]), { skipSpecialTokens: true }), '');
    m.dispose();
  });

  test('generateText([...], { onToken: () => false }) stops every prompt, as documented', async () => {
    const m = await sf.loadPretrained(GPT2);
    const r = await m.generateText(['Hello', 'Hi'], { onToken: () => false });
    assert.equal(r.length, 2);
    assert.deepEqual(r.map((x) => x.finishReason), ['cancelled', 'cancelled']);
    assert.equal(r[0].ids.length, 1);
    assert.equal(r[1].ids.length, 0);
    assert.equal(r[1].text, '');
    m.dispose();
  });

  test('a prompt longer than the model is "too long" (text of 200,000 words, 70,000 tokens, ids)', async () => {
    const m = await sf.loadPretrained(GPT2);
    for (const prompt of ['word '.repeat(200000), ' a'.repeat(70000), new Array(70000).fill(5), ['Hi', 'x'.repeat(500)]]) {
      await assert.rejects(m.generateText(prompt), error(/too long: \d+ tokens, and the model has 40 positions/));
    }
    m.dispose();
  });

  test('a malformed post_processor is an error at load, naming tokenizer.json', async () => {
    const malformed = [
      { type: 'TemplateProcessing', single: 5, pair: 'x', special_tokens: {} },
      { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }], pair: [], special_tokens: {} },
      { type: 'BertProcessing', sep: 5, cls: null },
      { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '[NOPE]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '[NOPE]': { id: '[NOPE]', ids: [9], tokens: ['[NOPE]'] } } },
    ];
    for (const post of malformed) {
      await assert.rejects(sf.loadPretrained(bertObjects({ ...bertTokenizer(), post_processor: post })), error(/tokenizer\.json/, 'unsupported'), JSON.stringify(post));
    }
  });

  test('a 100,000-level nested tokenizer.json, and an invalid 1_Pooling/config.json or modules.json, name the file', async () => {
    const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
    const text = read(BERT, 'tokenizer.json').replace('"pre_tokenizer":', `"deep": ${deep}, "pre_tokenizer":`);
    await assert.rejects(sf.loadPretrained(folderWith({ 'tokenizer.json': text })), error(/tokenizer\.json .*nests deeper than 128/));
    const deepPre = read(BERT, 'tokenizer.json').replace(/"pre_tokenizer": *\{[^}]*\}/, `"pre_tokenizer": {"type": "Sequence", "pretokenizers": ${deep}}`);
    await assert.rejects(sf.loadPretrained(folderWith({ 'tokenizer.json': deepPre })), error(/tokenizer\.json .*nests deeper/));
    await assert.rejects(sf.loadPretrained(bertObjects(deepPre)), error(/tokenizer\.json .*nests deeper/));
    for (const bad of ['{not json', '5', '[1, 2]']) {
      await assert.rejects(sf.loadPretrained(folderWith({ '1_Pooling/config.json': bad })), error(/1_Pooling\/config\.json/), bad);
    }
    await assert.rejects(sf.loadPretrained(folderWith({ 'modules.json': '{"a": 1}' })), error(/modules\.json/));
    await assert.rejects(sf.loadPretrained(folderWith({ 'modules.json': '[{"type": "x.Pooling", "path": 7}]' })), error(/modules\.json.*path/));
  });

  test('a Pooling config that asks for a pooling simdformer does not do is refused, not pooled another way', async () => {
    const pooling = (flags) => JSON.stringify({ word_embedding_dimension: 32, pooling_mode_mean_tokens: false, ...flags });
    for (const flags of [{ pooling_mode_lasttoken: true }, { pooling_mode_weightedmean_tokens: true }, { pooling_mode_mean_sqrt_len_tokens: true },
      { pooling_mode_mean_tokens: true, pooling_mode_max_tokens: true }]) {
      await assert.rejects(sf.loadPretrained(folderWith({ '1_Pooling/config.json': pooling(flags) })), error(/1_Pooling\/config\.json asks for/, 'unsupported'), JSON.stringify(flags));
    }
    for (const [flags, mode] of [[{ pooling_mode_cls_token: true }, 'cls'], [{ pooling_mode_max_tokens: true }, 'max'], [{}, 'mean']]) {
      const m = await sf.loadPretrained(folderWith({ '1_Pooling/config.json': pooling(flags) }));
      const text = 'pooling modes';
      assert.deepEqual(m.embed(text), m.embed(text, { pooling: mode }), JSON.stringify(flags));
      m.dispose();
    }
  });

  test('File-like objects that lie about their bytes are io_errors naming the file', async () => {
    const files = () => ['config.json', 'model.safetensors', 'tokenizer.json'].map((name) => new File([readFileSync(join(BERT, name))], name));
    const liar = (name, arrayBuffer, size) => files().map((f) => (f.name !== name ? f
      : { name, size: size ?? f.size, arrayBuffer, webkitRelativePath: '' }));
    const detached = () => { const b = new ArrayBuffer(16); structuredClone(b, { transfer: [b] }); return b; };
    for (const name of ['config.json', 'model.safetensors', 'tokenizer.json']) {
      const cases = [
        [async () => 1e6, /arrayBuffer\(\) gave 1000000, not an ArrayBuffer/],
        [async () => detached(), /says it has \d+ bytes but arrayBuffer\(\) gave 0/],
        [async () => new Uint8Array(4), /not an ArrayBuffer/],
        [async () => new ArrayBuffer(3), /says it has \d+ bytes but arrayBuffer\(\) gave 3/],
        [async () => { throw new TypeError('boom'); }, /cannot read .* boom/],
      ];
      for (const [arrayBuffer, message] of cases) {
        await assert.rejects(sf.loadPretrained(liar(name, arrayBuffer)), error(new RegExp(`${name.replace('.', '\\.')}`), 'io_error'), `${name} ${message}`);
        await assert.rejects(sf.loadPretrained(liar(name, arrayBuffer)), error(message, 'io_error'), `${name} ${message}`);
      }
    }
    // Objects given detached buffers.
    const view = new Uint8Array(16);
    structuredClone(view.buffer, { transfer: [view.buffer] });
    await assert.rejects(sf.loadPretrained({ ...bertObjects(), weights: view }), error(/model\.safetensors/, 'io_error'));
    await assert.rejects(sf.loadPretrained({ ...bertObjects(), config: detached() }), error(/config\.json .*detached/));
  });
});

describe('abort always settles', () => {
  test('abort while an onToken promise is pending rejects at once; dispose() then works', async () => {
    const m = await sf.loadPretrained(GPT2);
    const before = sf.mallocBytes;
    const ac = new AbortController();
    const reason = new Error('stopped by the test');
    let late = null;
    const run = m.generateText('Hello', { signal: ac.signal, maxNewTokens: 5, onToken: () => new Promise((resolve, reject) => {
      late = reject;  // never settles before the abort
    }) });
    setTimeout(() => ac.abort(reason), 50);
    await within(assert.rejects(run, (e) => e === reason), 3000, 'generateText after abort');
    late(new Error('the callback fails after the abort: ignored'));  // no unhandled rejection
    await new Promise((resolve) => { setTimeout(resolve, 20); });
    m.dispose();
    assert.equal(m.disposed, true);
    assert.ok(sf.mallocBytes <= before, `${sf.mallocBytes} > ${before}`);
  });

  test('abort without a reason rejects with an AbortError', async () => {
    const m = await sf.loadPretrained(GPT2);
    const ac = new AbortController();
    const run = m.generateText('Hello', { signal: ac.signal, onToken: () => new Promise(() => {}) });
    setTimeout(() => ac.abort(), 20);
    await within(assert.rejects(run, (e) => e.name === 'AbortError'), 3000, 'generateText after abort');
    m.dispose();
  });

  test("a dropped File whose arrayBuffer() never resolves: the load rejects when the signal aborts", async () => {
    const files = ['config.json', 'model.safetensors', 'tokenizer.json'].map((name) => new File([readFileSync(join(BERT, name))], name));
    files[1] = { name: 'model.safetensors', size: files[1].size, arrayBuffer: () => new Promise(() => {}) };
    const ac = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => ac.abort(reason), 50);
    await within(assert.rejects(sf.loadPretrained(files, { signal: ac.signal }), (e) => e === reason), 3000, 'loadPretrained after abort');
  });
});

// The task heads (tokenClassify, answer, zeroShot, rerank, classify) and chat templates under
// hostile input: each wrong value a SimdformerError naming what was wrong, each value Hugging
// Face's pipelines take accepted, arrays read once (holes, Proxies, lengths of 2^32 - 1), the
// caller's own exceptions passed on, and nothing left allocated.
describe('task heads and chat templates under hostile input', () => {
  const HF = join(DATA, 'hf');
  const NUMBERS = [2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, -1, NaN, Infinity, -Infinity, 1.5, '5', 5n, null, true, {}, []];
  const text = 'John Smith lives in New York and works at Google.';
  const models = {};
  const load = async (name) => { models[name] ??= await sf.loadPretrained(join(HF, name)); return models[name]; };
  after(() => { for (const m of Object.values(models)) m.dispose(); });
  // Runs `body`, then checks that the calls left malloc's bytes where the first valid call put them.
  const flat = async (body) => {
    await body();
    const base = sf.mallocBytes;
    await body();
    assert.equal(sf.mallocBytes, base, 'malloc bytes after a second round');
  };

  test('numbers near 2^31, 2^32, 2^53, 2^63, negative, NaN, Infinity, fractions, BigInt, strings: refused, naming the option', async () => {
    const [tok, qa, nli, rr, cls] = await Promise.all(['bert_tokcls', 'bert_qa', 'roberta_nli', 'bert_reranker', 'bert_seqcls'].map(load));
    const calls = {
      'tokenClassify stride': (v) => tok.tokenClassify(text, { aggregation: 'simple', stride: v }),
      'tokenClassify maxLength': (v) => tok.tokenClassify(text, { maxLength: v }),
      'tokenClassify batchSize': (v) => tok.tokenClassify(text, { batchSize: v }),
      'answer topK': (v) => qa.answer('Where?', text, { topK: v }),
      'answer maxAnswerLength': (v) => qa.answer('Where?', text, { maxAnswerLength: v }),
      'answer docStride': (v) => qa.answer('Where?', text, { docStride: v }),
      'answer maxSeqLen': (v) => qa.answer('Where?', text, { maxSeqLen: v }),
      'zeroShot maxLength': (v) => nli.zeroShot(text, ['a'], { maxLength: v }),
      'zeroShot batchSize': (v) => nli.zeroShot(text, ['a'], { batchSize: v }),
      'rerank topK': (v) => rr.rerank('q', ['a'], { topK: v }),
      'classify topK': (v) => cls.classify(text, { topK: v }),
      'classify batchSize': (v) => cls.classify(text, { batchSize: v }),
    };
    await flat(() => {
      for (const [name, call] of Object.entries(calls)) {
        const option = name.split(' ')[1];
        for (const v of NUMBERS) {
          // topK null is 'every one' (classify, rerank); 2^31 and 2^32 are counts Hugging Face takes.
          if (v === null && /topK/.test(name) && !name.startsWith('answer')) continue;
          if ((v === 2 ** 31 || v === 2 ** 32) && /topK|maxAnswerLength/.test(name)) continue;
          assert.throws(() => call(v), error(new RegExp(`${option} must be`)), `${name} ${String(v)}`);
        }
      }
    });
  });

  test("values Hugging Face's pipelines take: stride 0, topK 0 (none) and huge, maxAnswerLength 2^32; a stride of maxLength or more is refused however short the text", async () => {
    const [tok, qa, rr, cls] = await Promise.all(['bert_tokcls', 'bert_qa', 'bert_reranker', 'bert_seqcls'].map(load));
    assert.ok(Array.isArray(tok.tokenClassify(text, { aggregation: 'simple', stride: 0 })));
    assert.throws(() => tok.tokenClassify(text, { aggregation: 'simple', stride: tok.maxLength }), error(/stride must be an integer in \[0, \d+\]/));
    assert.deepEqual(cls.classify(text, { topK: 0 }).predictions, []);
    assert.equal(cls.classify(text, { topK: 2 ** 32 }).predictions.length, cls.info.num_labels);
    assert.deepEqual(rr.rerank('q', ['a', 'b'], { topK: 0 }), []);
    assert.equal(rr.rerank('q', ['a', 'b'], { topK: 2 ** 31 }).length, 2);
    const all = qa.answer('Where does John live?', text, { topK: 2 ** 32, maxAnswerLength: 2 ** 32 });
    assert.ok(all.length > 10 && all.every((a, i) => i === 0 || a.score <= all[i - 1].score));
    // A maxAnswerLength beyond the window changes nothing.
    assert.deepEqual(qa.answer('Where does John live?', text, { maxAnswerLength: 2 ** 32 }), qa.answer('Where does John live?', text, { maxAnswerLength: 1000 }));
    assert.throws(() => qa.answer('Where?', text, { topK: 0 }), error(/topK must be/));  // the pipeline's top_k >= 1
  });

  test('arrays are read once: holes, non-strings, a length of 2^32 - 1 and Proxies are refused or read as given', async () => {
    const [tok, qa, nli, rr, cls, chat] = await Promise.all(['bert_tokcls', 'bert_qa', 'roberta_nli', 'bert_reranker', 'bert_seqcls', 'llama_gqa'].map(load));
    const messages = [{ role: 'user', content: 'hi' }];
    const huge = () => new Array(2 ** 32 - 1);
    const endless = () => new Proxy(['a'], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : t[k]) });
    const start = Date.now();
    await flat(async () => {
      for (const [what, call, pattern] of [
        ['classify', (x) => cls.classify(x), /classify\[\d+\]: expected a string/],
        ['embed', (x) => cls.embed(x), /embed\[\d+\]: expected a string/],
        ['tokenClassify', (x) => tok.tokenClassify(x, { aggregation: 'simple' }), /tokenClassify\[\d+\]: expected a string/],
        ['zeroShot texts', (x) => nli.zeroShot(x, ['a']), /zeroShot\[\d+\]: expected a string/],
        ['zeroShot labels', (x) => nli.zeroShot(text, x), /zeroShot: labels must be .* at index \d+/],
        ['rerank', (x) => rr.rerank('q', x), /rerank: documents must be an array of strings, got .* at index \d+/],
        ['ignoreLabels', (x) => tok.tokenClassify(text, { ignoreLabels: x }), /ignoreLabels must be an array of strings, got .* at index \d+/],
      ]) {
        for (const bad of [['a', , 'b'], ['a', 5], [null], huge(), endless()]) assert.throws(() => call(bad), error(pattern), `${what} ${bad.length}`);
      }
      await assert.rejects(chat.applyChatTemplate([messages[0], , messages[0]]), error(/messages\[1\] must be an object with a string role, got undefined/));
      await assert.rejects(chat.applyChatTemplate(huge()), error(/4294967295 messages are more than any chat template can read/));
      await assert.rejects(chat.generateText([messages[0], , messages[0]]), error(/messages\[1\] must be an object/));
      await assert.rejects(chat.generateText([messages, , messages], { maxNewTokens: 1 }), error(/conversation 1 must be a non-empty array/));
      await assert.rejects(chat.generateText(['Hi', , 'there'], { maxNewTokens: 1 }), error(/prompt 1 must be a string or token ids, got undefined/));
      await assert.rejects(chat.generateText([[1, 2], huge()], { maxNewTokens: 1 }), error(/prompt 1 must be a string or token ids/));
      await assert.rejects(chat.generateText(Object.assign(huge(), { 0: 5 }), { maxNewTokens: 1 }), error(/token id undefined at index 1/));
      assert.throws(() => chat.tokenizer.decode(Object.assign(huge(), { 0: 5 })), error(/decode: ids\[1\] is undefined/));
      assert.throws(() => chat.tokenizer.decode([5, , 6]), error(/decode: ids\[1\] is undefined/));
      await assert.rejects(chat.generateText('hi', { maxNewTokens: 1, stop: Object.assign(huge(), { 0: 5 }) }), error(/stop\[1\] must be a token id/));
    });
    assert.ok(Date.now() - start < 10000, `took ${Date.now() - start} ms`);
    // A Proxy that answers differently the second time it is read: the value read (once) is used.
    const flipping = (items) => { const seen = new Set(); return new Proxy(items, { get: (t, k) => (seen.has(k) ? 5 : (seen.add(k), t[k])) }); };
    assert.deepEqual(rr.rerank('q', flipping(['a', 'b'])), rr.rerank('q', ['a', 'b']));
    assert.deepEqual(cls.classify(flipping(['a', ['b', 'c']])).map((r) => r.predictions), cls.classify(['a', ['b', 'c']]).map((r) => r.predictions));
    assert.deepEqual(nli.zeroShot('x', flipping(['a', 'b'])), nli.zeroShot('x', ['a', 'b']));
    // A getter that throws: the caller's own error, unchanged; the model works after it.
    const boom = new Error('the caller\'s getter');
    const throwing = Object.defineProperty(['a', 'b'], 1, { get() { throw boom; } });
    for (const call of [() => cls.classify(throwing), () => rr.rerank('q', throwing), () => nli.zeroShot(throwing, ['a']), () => qa.answer('q', { toString() { throw boom; } })]) {
      assert.throws(call, (e) => e === boom || (e instanceof SimdformerError && /question and context must be strings/.test(e.message)));
    }
    assert.equal(rr.rerank('q', ['a']).length, 1);
    // A label whose hypothesis cannot fit maxLength (only the text is cut): named.
    assert.throws(() => nli.zeroShot(text, ['short', 'word '.repeat(100)], { batchSize: 1 }), error(/zeroShot: the hypothesis for label 'word word.*' is too long: the second text has \d+ tokens/));
    // A million labels with a wrong last one are refused at once, before any forward pass.
    const million = Array.from({ length: 1e6 }, (_, i) => `label ${i}`);
    million[999999] = 7;
    assert.throws(() => nli.zeroShot(text, million), error(/at index 999999/));
    assert.throws(() => rr.rerank('q', million), error(/at index 999999/));
  });

  test('applyChatTemplate and generateText: options that are not objects, messages of the wrong kind, cycles and deep nesting are refused', async () => {
    const chat = await load('llama_gqa');
    const messages = [{ role: 'user', content: 'hi' }];
    await flat(async () => {
      for (const options of [5, 'x', true, null, [], 5n]) {
        await assert.rejects(chat.applyChatTemplate(messages, options), error(/applyChatTemplate: options must be an object/), String(options));
      }
      for (const chatTemplate of [5, 'x', []]) {
        await assert.rejects(chat.generateText(messages, { chatTemplate }), error(/generateText: chatTemplate must be an object/), String(chatTemplate));
      }
      for (const [bad, pattern] of [
        [[{ role: 'user', content: 5 }], /messages\[0\]\.content must be a string or a list of parts/],
        [[{ role: 'user', content: {} }], /messages\[0\]\.content must be/],
        [[{ content: 'no role' }], /messages\[0\] must be an object with a string role/],
        [[{ role: 5, content: 'x' }], /messages\[0\] must be an object with a string role/],
        [[null], /messages\[0\] must be an object/],
        [[{ role: 'user' }], /chat template failed/],  // the template reads the missing content (Jinja2 refuses it too)
      ]) {
        await assert.rejects(chat.applyChatTemplate(bad), error(pattern), JSON.stringify(bad));
      }
      const cyclic = { role: 'user', content: 'hi' };
      cyclic.self = cyclic;
      let deep = {};
      for (let i = 0; i < 100000; i++) deep = { d: deep };
      await assert.rejects(chat.applyChatTemplate([cyclic]), error(/chat template failed: it recursed too deeply/));
      await assert.rejects(chat.applyChatTemplate([{ role: 'user', content: 'x', deep }]), error(/chat template failed: it recursed too deeply/));
      await assert.rejects(chat.applyChatTemplate(messages, { variables: { deep } }), error(/chat template failed: it recursed too deeply/));
      await assert.rejects(chat.generateText([{ role: 'user', content: 'word '.repeat(3000) }]), error(/the conversation is too long: \d+ tokens, and the model has \d+ positions/));
    });
  });

  test('generateText options near 2^31, 2^32, 2^53, negative, NaN, Infinity, fractions, BigInt, strings: refused naming the option, for a text and for messages', async () => {
    const chat = await load('llama_gqa');
    const messages = [{ role: 'user', content: 'hi' }];
    const { max_positions: positions, vocab_size: vocab } = chat.info;
    // Values each option takes (seeds are 64-bit, temperatures any in [0, 10^6]; topK any count,
    // as Hugging Face's min(top_k, vocab), -0 being 0: no filter; topP in [0, 1]).
    const counts = [2 ** 31, 2 ** 32, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 + 1, -0];
    const valid = { seed: counts, topK: counts, temperature: [1.5, -0], topP: [-0] };
    await flat(async () => {
      for (const option of ['maxNewTokens', 'topK', 'seed', 'temperature', 'topP']) {
        for (const v of [...NUMBERS, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 + 1, 2 ** 53 + 2, -(2 ** 31), -0.5]) {
          for (const input of ['hi', messages, [messages, messages]]) {
            const call = () => chat.generateText(input, { maxNewTokens: 2, stop: [], [option]: v });
            if (valid[option]?.includes(v)) assert.equal((await call()).length ?? 1, Array.isArray(input[0]) ? 2 : 1);
            else await assert.rejects(call, error(new RegExp(`generateText: ${option} must be`)), `${option} ${String(v)}`);
          }
        }
      }
      // The largest values that fit: every new position of the context, every token, the largest exact seed.
      const r = await chat.generateText(messages, { maxNewTokens: 2, stop: [], topK: vocab, seed: Number.MAX_SAFE_INTEGER, temperature: 1e6, topP: 1 });
      assert.equal(r.ids.length, 2);
      const prompt = await chat.applyChatTemplate(messages, { addGenerationPrompt: true, tokenize: true });
      const all = await chat.generateText(messages, { maxNewTokens: positions - prompt.length, stop: [] });
      assert.equal(all.ids.length, positions - prompt.length);
      await assert.rejects(chat.generateText(messages, { maxNewTokens: positions - prompt.length + 1, stop: [] }),
        error(new RegExp(`the prompt's ${prompt.length} tokens \\+ maxNewTokens ${positions - prompt.length + 1} exceed the model's ${positions} positions`)));
      for (const tokenize of [1, 2 ** 32, 'yes', null]) await assert.rejects(chat.applyChatTemplate(messages, { tokenize }), error(/tokenize must be true or false/));
      for (const addGenerationPrompt of [1, 2 ** 32, 'yes', null]) await assert.rejects(chat.applyChatTemplate(messages, { addGenerationPrompt }), error(/addGenerationPrompt must be true or false/));
    });
  });

  test('applyChatTemplate tools: a list of schemas, or null / left out for none, as transformers passes tools=None; anything else is refused', async () => {
    const chat = await load('llama_gqa');
    const messages = [{ role: 'user', content: 'hi' }];
    // Mistral's templates test `tools is not none`: without tools that is false, as in Jinja2 with tools=None.
    const template = '{% if tools is not none %}[TOOLS {{ tools | length }}]{% endif %}{% if documents is none %}[no documents]{% endif %}{{ messages[0].content }}';
    await flat(async () => {
      assert.equal(await chat.applyChatTemplate(messages, { template }), '[no documents]hi');
      assert.equal(await chat.applyChatTemplate(messages, { template, tools: null }), '[no documents]hi');
      assert.equal(await chat.applyChatTemplate(messages, { template, tools: [{ name: 'a' }, { name: 'b' }], documents: [] }), '[TOOLS 2]hi');
      assert.equal(await chat.applyChatTemplate(messages, { template, variables: { tools: [{}] } }), '[TOOLS 1][no documents]hi');
      for (const [tools, pattern] of [[2 ** 31, /tools must be a list of tool schemas \(objects\), got 2147483648/], [2 ** 32, /tools must be a list/],
        ['x', /tools must be a list/], [{}, /tools must be a list/], [[{}, 5], /tools\[1\] must be a tool's JSON schema \(an object\), got 5/],
        [[{}, , {}], /tools\[1\] must be/], [[() => 1], /tools\[0\] must be/], [[[]], /tools\[0\] must be/]]) {
        await assert.rejects(chat.applyChatTemplate(messages, { tools }), error(pattern), String(tools));
        await assert.rejects(chat.generateText(messages, { maxNewTokens: 1, chatTemplate: { tools } }), error(pattern), String(tools));
      }
    });
  });

  test('a million messages, or a list that says it has 2^32 - 1 valid ones, are refused before they are read or rendered', async () => {
    const chat = await load('llama_gqa');
    const message = { role: 'user', content: 'hi' };
    const million = Array.from({ length: 1e6 }, () => message);
    // Every index answers a valid message: reading the list item by item would never end.
    const endless = new Proxy([message], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : /^\d+$/.test(k) ? message : t[k]) });
    const tooMany = (n) => error(new RegExp(`: ${n} messages are more than any chat template can read within its budget of 1000000 steps`));
    await flat(async () => {
      await assert.rejects(chat.applyChatTemplate(million), tooMany(1e6));
      await assert.rejects(chat.applyChatTemplate(endless), tooMany(2 ** 32 - 1));
      await assert.rejects(chat.generateText(million, { maxNewTokens: 1 }), tooMany(1e6));
      await assert.rejects(chat.generateText([[message], endless], { maxNewTokens: 1 }), tooMany(2 ** 32 - 1));
      // A template that never reads the messages is not run either: any that did could not finish.
      await assert.rejects(chat.applyChatTemplate(million, { template: 'x' }), tooMany(1e6));
      // Under the bound the template's own budget decides: this one spends the list's length + 3.
      assert.equal(await chat.applyChatTemplate(million.slice(3), { template: '{{ messages | length }}' }), '999997');
      await assert.rejects(chat.applyChatTemplate(million.slice(2), { template: '{{ messages | length }}' }), error(/it ran more than 1000000 steps/));
    });
  });

  test('tools, documents, variables and message contents that claim 2^32 - 1 items, or contain themselves, are refused before the engine converts them', async () => {
    const chat = await load('llama_gqa');
    const messages = [{ role: 'user', content: 'hi' }];
    // Every index answers a valid item: converting the list item by item would never end.
    const endless = (item) => new Proxy([item], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : /^\d+$/.test(k) ? item : t[k]) });
    const tooMany = (what) => error(new RegExp(`: ${what} holds more list items than any chat template can read within its budget of 1000000 steps`));
    const looped = { name: 'a' };
    looped.self = looped;
    await flat(async () => {
      await assert.rejects(chat.applyChatTemplate(messages, { tools: endless({ name: 'a' }) }), tooMany('tools'));
      await assert.rejects(chat.applyChatTemplate(messages, { documents: endless({ text: 'a' }) }), tooMany('documents'));
      await assert.rejects(chat.applyChatTemplate(messages, { variables: { x: endless(1) } }), tooMany('variables'));
      await assert.rejects(chat.applyChatTemplate([{ role: 'user', content: endless({ type: 'text', text: 'a' }) }]), tooMany('messages'));
      await assert.rejects(chat.generateText(messages, { maxNewTokens: 1, chatTemplate: { documents: endless('a') } }), tooMany('documents'));
      // The budget is shared: two lists of 600,000 items are more than any template could read.
      const many = Array.from({ length: 600_000 }, () => 1);
      await assert.rejects(chat.applyChatTemplate(messages, { documents: many, variables: { more: many } }), tooMany('documents'));
      await assert.rejects(chat.applyChatTemplate(messages, { tools: [looped] }), error(/chat template failed: it recursed too deeply/));
      // Under the bound everything reaches the template as given (copies, read once).
      assert.equal(await chat.applyChatTemplate(messages, { documents: many, template: '{{ documents | length }} {{ messages[0].content }}' }), '600000 hi');
      assert.equal(await chat.applyChatTemplate([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
        { template: '{% for p in messages[0].content %}{{ p.text }}{% endfor %}', variables: { f: () => 1 } }), 'ab');
    });
  });

  test('tokenClassify with lone surrogates, emoji and astral characters: spans index the text, never split a pair, and read a lone surrogate as U+FFFD', async () => {
    const texts = ['John \uD800 Smith lives in \uDC00New York', '\uD83D John Smith\uDE00 in Paris \uD83D\uDE00 Google',
      'Jo\uD800hn Smith 😀 lives in 𝒩ew York', '\uDC00\uDC00 John', 'John  Smith \uD800\uD800 in  Paris'];
    const high = (c) => c >= 0xd800 && c <= 0xdbff, low = (c) => c >= 0xdc00 && c <= 0xdfff;
    const decodesTo = (slice) => new RegExp(`^${[...slice].map((c) => (c.codePointAt(0) < 0x80 ? c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : `(?:${c}|\uFFFD+)`)).join('')}$`, 'u');
    const splitsPair = (text, i) => i > 0 && i < text.length && high(text.charCodeAt(i - 1)) && low(text.charCodeAt(i));
    let empty = 0, seen = 0;
    for (const name of ['roberta_tokcls', 'bert_tokcls', 'xlmr_tokcls']) {
      const m = await load(name);
      const byteLevel = name === 'roberta_tokcls';
      for (const text of texts) {
        for (const aggregation of ['none', 'simple', 'first', 'average', 'max']) {
          const entities = m.tokenClassify(text, { aggregation });
          const what = `${name} ${aggregation} ${JSON.stringify(text)}`;
          seen += entities.length;
          for (const e of entities) {
            const got = `${what}: ${JSON.stringify(e)}`;
            assert.ok(Number.isInteger(e.start) && e.start >= 0 && e.start <= e.end && e.end <= text.length, got);
            assert.ok(!splitsPair(text, e.start) && !splitsPair(text, e.end), got);
            const slice = text.slice(e.start, e.end).toWellFormed();
            if (e.start === e.end) {
              // Only a byte-level token of spaces (Ġ): Hugging Face's trim_offsets gives it the empty
              // span at its end, and the pipeline reports it so (word 'Ġ', or ' ' when grouped).
              assert.ok(byteLevel && e.word.replace(/Ġ/g, ' ').trim() === '', got);
              assert.ok(e.start > 0 && /\s/.test(text[e.start - 1]), got);
              empty++;
            } else if (byteLevel && aggregation !== 'none') {
              // A group's word is its tokens' bytes decoded: the text, a lone surrogate as U+FFFD, and
              // a character whose bytes the group holds only some of as U+FFFD too (the pipeline's
              // convert_tokens_to_string).
              assert.ok(decodesTo(slice.trim()).test(e.word.trim()), got);
            }
          }
          // The same text with U+FFFD for each lone surrogate: the same entities (XLM-R's unknown
          // token takes its word from the text).
          const wellFormed = m.tokenClassify(text.toWellFormed(), { aggregation });
          const norm = (list) => list.map((e) => ({ ...e, word: e.word.toWellFormed() }));
          assert.deepEqual(norm(entities), norm(wellFormed), what);
        }
      }
    }
    assert.ok(seen > 100 && empty > 0, `${seen} entities, ${empty} of spaces only`);
  });

  test('empty texts with a tokenizer that adds no special tokens: no entities, else an error saying so', async () => {
    const tokenizer = JSON.parse(read(join(HF, 'bert_tokcls'), 'tokenizer.json'));
    tokenizer.post_processor = null;
    const dir = join(HF, 'bert_tokcls');
    const m = await sf.loadPretrained({ config: read(dir, 'config.json'), weights: readFileSync(join(dir, 'model.safetensors')), tokenizer,
      tokenizerConfig: read(dir, 'tokenizer_config.json') });
    await flat(() => {
      assert.deepEqual(m.tokenClassify(''), []);
      assert.deepEqual(m.tokenClassify(['', ''], { aggregation: 'simple', stride: 2 }), [[], []]);
      const [none, some] = m.tokenClassify(['', 'John Smith'], { aggregation: 'simple' });
      assert.deepEqual([none, some], [[], m.tokenClassify('John Smith', { aggregation: 'simple' })]);
      for (const call of [() => m.encodeText(''), () => m.embed(['', '']), () => m.attentionSteps('')]) {
        assert.throws(call, error(/the input has no tokens: its texts are empty and this tokenizer adds no special tokens/));
      }
    });
    m.dispose();
  });

  test('re-entrant calls from onToken and from template functions are busy; other models work; nothing stays allocated', async () => {
    const chat = await load('llama_gqa'), cls = await load('bert_seqcls');
    const messages = [{ role: 'user', content: 'hi' }];
    await flat(async () => {
      const errors = [];
      let label = null;
      const r = await chat.generateText(messages, { maxNewTokens: 2, stop: [], onToken: () => {
        for (const call of [() => chat.dispose(), () => chat.encodeText('x'), () => chat.attentionSteps('x')]) {
          try { call(); } catch (e) { errors.push(e); }
        }
        chat.applyChatTemplate(messages).catch((e) => errors.push(e));
        chat.generateText('x').catch((e) => errors.push(e));
        label = cls.classify('a').predictions[0].label;
      } });
      assert.equal(r.ids.length, 2);
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      assert.equal(errors.length, 10);
      assert.ok(errors.every((e) => e instanceof SimdformerError && e.code === 'busy'), errors.map(String).join('; '));
      assert.equal(typeof label, 'string');
      // A template's function (options.variables) calling back into the model.
      const inside = [];
      const text = await chat.applyChatTemplate(messages, { template: '{{ f() }}', variables: { f: () => {
        try { chat.dispose(); } catch (e) { inside.push(e.code); }
        return 'ok';
      } } });
      assert.equal(text, 'ok');
      assert.deepEqual(inside, ['busy']);
      assert.equal(chat.disposed, false);
    });
  });
});
