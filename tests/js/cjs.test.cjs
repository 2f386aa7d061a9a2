// The CommonJS entry: require() then the same API.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { test } = require('node:test');

const simdformer = require('../../dist/node.cjs');

test('require(simdformer).init loads the module and encodes', async () => {
  const sf = await simdformer.init();
  const data = path.join(__dirname, '..', 'data');
  const config = JSON.parse(fs.readFileSync(path.join(data, 'seq2seq.json'), 'utf8'));
  const model = await sf.loadModel(path.join(data, 'seq2seq.safetensors'), config);
  const r = model.generate([3, 4, 5, 6, 7, 8], { maxLength: 8 });
  assert.equal(r.tokens[0], config.bos_token);
  assert.ok(r.tokens.length >= 2);
  const { SimdformerError } = await simdformer.loadEsm();
  assert.throws(() => model.encode([42]), SimdformerError);
  model.dispose();
});

test('require(simdformer): a Hugging Face folder loads and its lazy tokenizer import resolves', async () => {
  const sf = await simdformer.init();
  const model = await sf.loadPretrained(path.join(__dirname, '..', 'data', 'hf', 'bert'));
  const r = model.encodeText('Hello, world!');
  assert.deepEqual(r.tokens, ['[CLS]', 'hello', ',', 'world', '!', '[SEP]']);
  assert.deepEqual(r.shape, [6, 32]);
  model.dispose();
});
