// The textbook attention, computed by simdformer: scores, masks, softmax or ReLU, weights · V.
//   node examples/node/attention.mjs
import { init } from 'simdformer';

const sf = await init();
const Q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]];
const K = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]];
const V = [[1, 0], [0, 1], [0.5, 0.5]];

for (const normalize of ['softmax', 'relu']) {
  const { output, weights } = sf.attention(Q, K, V, { normalize, causal: true, returnWeights: true });
  console.log(`${normalize}, causal: weights ${JSON.stringify(weights.shape)}`);
  for (let i = 0; i < weights.shape[0]; i++) {
    console.log('  ', Array.from(weights.data.subarray(i * 3, i * 3 + 3), (w) => w.toFixed(3)).join(' '),
                ' -> ', Array.from(output.data.subarray(i * 2, i * 2 + 2), (x) => x.toFixed(3)).join(' '));
  }
}
const pe = sf.positionalEncoding(4, 6);
console.log('positional encoding [4, 6], row 1:', Array.from(pe.data.subarray(6, 12), (x) => x.toFixed(4)).join(' '));
