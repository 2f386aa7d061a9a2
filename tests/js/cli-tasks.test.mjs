// The task commands of the command line (dist/cli.mjs) on the task-head fixtures: classify, ner,
// qa, zero-shot and rerank give the library's answers (--json compared with the references in
// texts.json), readable tables by default, and usage errors (exit 2) or model errors (exit 1)
// that say what is wrong.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { DATA, DIST } from './helpers.mjs';

const hf = (name) => join(DATA, 'hf', name);
const texts = (name) => JSON.parse(readFileSync(join(hf(name), 'texts.json'), 'utf8'));
const cli = (...args) => spawnSync(process.execPath, [join(DIST, 'cli.mjs'), ...args], { encoding: 'utf8' });
const close = (a, b) => Math.abs(a - b) <= 1e-4;

test('help lists the task commands', () => {
  const help = cli('--help');
  assert.equal(help.status, 0);
  for (const c of ['classify', 'ner', 'qa', 'zero-shot', 'rerank']) {
    assert.match(help.stdout, new RegExp(`^  ${c} +\\S`, 'm'), c);
    const h = cli(c, '--help');
    assert.equal(h.status, 0, c);
    assert.match(h.stdout, new RegExp(`Usage:\\n  simdformer ${c} --model`), c);
    assert.match(h.stdout, /--json/);
  }
});

test('classify: every label with --all, the top label by default', () => {
  const { batch, classify } = texts('bert_seqcls');
  const r = cli('classify', '--json', '--all', '--model', hf('bert_seqcls'), '--text', batch[0], '--text', batch[1]);
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  got.forEach((g, b) => {
    assert.deepEqual(g.predictions.map((p) => p.label), classify.rows[b].all.map((p) => p.label));
    g.predictions.forEach((p, k) => assert.ok(close(p.score, classify.rows[b].all[k].score)));
  });
  const human = cli('classify', '--model', hf('bert_seqcls'), '--text', batch[0]);
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`^  ${classify.rows[0].top1[0].label} +0\\.\\d{4}$`, 'm'));
  const bare = cli('classify', '--model', hf('bert'), '--text', 'Hello');
  assert.equal(bare.status, 1);
  assert.match(bare.stderr, /no classification head; it has: pooler/);
});

test('ner: entities as the pipeline, aggregation chosen', () => {
  const row = texts('bert_tokcls').ner[0];
  const r = cli('ner', '--json', '--aggregation', 'first', '--model', hf('bert_tokcls'), '--text', row.text);
  assert.equal(r.status, 0, r.stderr);
  const [{ entities }] = JSON.parse(r.stdout);
  assert.deepEqual(entities.map((e) => [e.entityGroup, e.word, e.start, e.end]),
    row.results.first.map((e) => [e.entity_group, e.word, e.start, e.end]));
  const human = cli('ner', '--model', hf('bert_tokcls'), '--text', row.text);
  assert.equal(human.status, 0, human.stderr);
  const first = row.results.simple[0];
  assert.match(human.stdout, new RegExp(`^  ${first.entity_group} +"${first.word}" +${first.start}-${first.end} +0\\.\\d{4}$`, 'm'));
  assert.equal(cli('ner', '--aggregation', 'longest', '--model', hf('bert_tokcls'), '--text', 'x').status, 2);
});

test('ner --stride and qa --doc-stride: 0 is a stride (windows that do not overlap); empty, negative or fractional ones are usage errors', () => {
  const long = texts('bert_tokcls').ner.find((r) => 'stride' in r);
  const r = cli('ner', '--json', '--model', hf('bert_tokcls'), '--text', long.text, '--max-length', String(long.max_length), '--stride', '0');
  assert.equal(r.status, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout)[0].entities.length > 0);
  for (const [flag, value, command] of [['--stride', '', 'ner'], ['--stride', '-1', 'ner'], ['--doc-stride', '1.5', 'qa'], ['--doc-stride', ' ', 'qa']]) {
    const bad = command === 'ner'
      ? cli('ner', '--model', hf('bert_tokcls'), '--text', 'x', `${flag}=${value}`)
      : cli('qa', '--model', hf('bert_qa'), '--question', 'q', '--context', 'c', `${flag}=${value}`);
    assert.equal(bad.status, 2, `${flag} '${value}': ${bad.stderr}`);
    assert.match(bad.stderr, new RegExp(`${flag} must be an integer >= 0, not '${value}'`));
  }
  const huge = cli('ner', '--model', hf('bert_tokcls'), '--text', 'x', '--stride', '100000');
  assert.equal(huge.status, 1);
  assert.match(huge.stderr, /stride must be an integer in \[0, \d+\]/);
});

test('ner --stride near 2^31, 2^32 and 2^53, NaN, Infinity and other spellings of numbers: an error naming the stride, never a run', () => {
  // Integers the option reads: the task refuses them (more than maxLength), exit 1.
  for (const value of ['2147483647', '2147483648', '4294967295', '4294967296', '9007199254740991']) {
    const r = cli('ner', '--json', '--model', hf('bert_tokcls'), '--text', 'John Smith', `--stride=${value}`);
    assert.equal(r.status, 1, `${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`tokenClassify: stride must be an integer in \\[0, \\d+\\], got ${value}`));
    assert.equal(r.stdout, '');
  }
  // Not an exact decimal integer >= 0: a usage error, exit 2.
  for (const value of ['9007199254740993', '18446744073709551616', 'NaN', 'Infinity', '-Infinity', '1e3', '0x10', '1.5', '-0', '4 2', '+5']) {
    const r = cli('ner', '--model', hf('bert_tokcls'), '--text', 'John Smith', `--stride=${value}`);
    assert.equal(r.status, 2, `${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`--stride must be an integer >= 0, not '${value.replace(/[.+]/g, '\\$&')}'`));
  }
});

test('qa: the answers over windows, from --context or --context-file', () => {
  const row = texts('bert_qa').qa[1];
  const r = cli('qa', '--json', '--model', hf('bert_qa'), '--question', row.question, '--context', row.context, '--top-k', '3',
    '--max-answer-length', '5', '--max-seq-len', '24', '--doc-stride', '8', '--allow-no-answer');
  assert.equal(r.status, 0, r.stderr);
  const { answers } = JSON.parse(r.stdout);
  assert.deepEqual(answers.map((a) => [a.answer, a.start, a.end]), row.answers.map((a) => [a.answer, a.start, a.end]));
  answers.forEach((a, k) => assert.ok(close(a.score, row.answers[k].score)));
  const file = cli('qa', '--model', hf('bert_qa'), '--question', row.question, '--context-file', join(hf('bert_qa'), 'missing.txt'));
  assert.equal(file.status, 2);
  assert.match(file.stderr, /cannot read --context-file/);
  const empty = cli('qa', '--model', hf('bert_qa'), '--question', row.question, '--context', ' ');
  assert.equal(empty.status, 1);
  assert.match(empty.stderr, /context is empty/);
  assert.equal(cli('qa', '--model', hf('bert_qa'), '--context', 'x').status, 2);
});

test('zero-shot and rerank', () => {
  const nli = texts('roberta_nli').nli.rows[0];
  const z = cli('zero-shot', '--json', '--model', hf('roberta_nli'), '--text', nli.text, '--label', nli.labels.join(','));
  assert.equal(z.status, 0, z.stderr);
  const [got] = JSON.parse(z.stdout);
  assert.deepEqual(got.labels, nli.single.labels);
  got.scores.forEach((s, k) => assert.ok(close(s, nli.single.scores[k])));
  assert.equal(cli('zero-shot', '--model', hf('roberta_nli'), '--text', 'x').status, 2);
  const rr = texts('bert_reranker').rerank;
  const args = rr.documents.flatMap((d) => ['--text', d]);
  const r = cli('rerank', '--json', '--model', hf('bert_reranker'), '--query', rr.query, ...args);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).ranked.map((x) => x.index), rr.ranked.map((x) => x.index));
  const human = cli('rerank', '--model', hf('bert_reranker'), '--query', rr.query, '--top-k', '2', ...args);
  assert.equal(human.status, 0, human.stderr);
  assert.equal(human.stdout.trim().split('\n').length, 3);
  const wrong = cli('rerank', '--model', hf('roberta_nli'), '--query', 'q', '--text', 'd');
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /one-label cross-encoder/);
});
