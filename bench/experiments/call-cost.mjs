// Where the time of one short call goes (issue 20, "fixed cost per call"), in Node on the
// package's wasm build: text -> normalised embedding on the bench/models folders, split into
//   tokenize      model.tokenizer.encodeBatch (JavaScript)
//   forward+copy  model.encodeText(..., {returnAttention: false}) minus tokenize: copy in, the
//                 C++ forward, and the copy of the last hidden state out of wasm memory
//   pool+norm     model.embed minus encodeText: mean pooling and L2 normalisation (JavaScript),
//                 plus embed's option checks
// for a short, a medium and a longer text (6, 21 and 67 tokens with MiniLM's tokenizer). Each part is the median over interleaved rounds; the
// differences of medians are estimates, not exact splits.
//   node bench/experiments/call-cost.mjs [--threads N] [--models minilm-l6,bert-base] [--rounds 41]
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { init } from '../../dist/node.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const THREADS = Number(arg('--threads', 1));
const MODELS = arg('--models', 'minilm-l6,bert-base').split(',');
const ROUNDS = Number(arg('--rounds', 41));
const TEXTS = [
  'Hello, world!',
  'Attention is what the model uses to read every word in the light of the others.',
  'A sentence embedding is the mean of the last hidden states over the real tokens, normalised to unit length, which is what search engines compare.',
];
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

// ms of one call of fn (the median over rounds is taken by the caller).
function time(fn) {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

async function main() {
  const sf = await init(THREADS > 1 ? { simd: true, threads: THREADS } : { simd: true });
  console.log(`simdformer ${sf.arch}, ${THREADS} thread(s), ${ROUNDS} rounds; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const name of MODELS) {
    const model = await sf.loadPretrained(join(HERE, '..', 'models', name));
    for (const text of TEXTS) {
      const n = model.tokenizer.encodeBatch([text], model.maxLength).nSeq;
      const parts = { tokenize: [], encode: [], embed: [] };
      for (let i = 0; i < 5; i++) model.embed(text);  // warm-up: V8 tiers, first-call allocations
      for (let r = 0; r < ROUNDS; r++) {
        parts.tokenize.push(time(() => model.tokenizer.encodeBatch([text], model.maxLength)));
        parts.encode.push(time(() => model.encodeText(text, { returnAttention: false })));
        parts.embed.push(time(() => model.embed(text)));
      }
      const tok = median(parts.tokenize), enc = median(parts.encode), emb = median(parts.embed);
      console.log(`${name.padEnd(10)} ${String(n).padStart(3)} tokens: embed ${emb.toFixed(3)} ms = tokenize ${tok.toFixed(3)}`
        + ` + forward+copy ${(enc - tok).toFixed(3)} + pool+norm ${(emb - enc).toFixed(3)}`
        + ` (non-forward share ${(100 * (tok + Math.max(0, emb - enc)) / emb).toFixed(1)} %)`);
    }
    model.dispose();
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  sf.dispose?.();
  process.exit(0);
}

await main();
