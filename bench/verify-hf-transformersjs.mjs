// Loads the BERT-shaped folders of bench/models/ the way the benchmark's transformers.js peer does
// (local folder, remote models off, `feature-extraction`, fp32; device from TJS_DEVICE, default cpu = Node's native backend) and compares its
// mean-pooled, normalised embeddings with the PyTorch reference in check.safetensors. This proves
// the folders are laid out as transformers.js expects and that both tokenizers agree.
//   node bench/verify-hf-transformersjs.mjs [path/to/@huggingface/transformers/dist/transformers.node.mjs]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MODELS = join(dirname(fileURLToPath(import.meta.url)), 'models');
const spec = process.argv[2] ? pathToFileURL(resolve(process.argv[2])).href : '@huggingface/transformers';
const { pipeline, env } = await import(spec);
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = MODELS + '/';

function readF32(path, name) {
  const bytes = readFileSync(path);
  const n = Number(bytes.readBigUInt64LE(0));
  const t = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'))[name];
  const [b, e] = t.data_offsets;
  return { data: new Float32Array(bytes.buffer.slice(bytes.byteOffset + 8 + n + b, bytes.byteOffset + 8 + n + e)), shape: t.shape };
}

const manifest = JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8'));
let passed = 0, failed = 0;
for (const m of manifest.models.filter((x) => x.kind === 'bert')) {
  const extractor = await pipeline('feature-extraction', m.name, { dtype: 'fp32', device: process.env.TJS_DEVICE ?? 'cpu' });
  const got = await extractor(m.texts, { pooling: 'mean', normalize: true });
  const want = readF32(join(MODELS, m.name, 'check.safetensors'), 'sentence_embedding');
  let diff = 0;
  for (let i = 0; i < want.data.length; i++) diff = Math.max(diff, Math.abs(got.data[i] - want.data[i]));
  const ok = diff <= 1e-4 && got.data.length === want.data.length;
  ok ? passed++ : failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${m.name}: transformers.js embeddings [${got.dims}] vs reference, max |diff| = ${diff.toExponential(2)}`);
  await extractor.dispose();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
