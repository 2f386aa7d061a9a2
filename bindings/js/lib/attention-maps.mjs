// Copies a model's recorded attention maps out of its workspace, cropped to each sequence's
// real (unpadded) length, as result[b][layer][head] = {data, shape: [nq, nk]}.
import { copyF32 } from './heap.mjs';

// Which maps ModelHandle.attention(kind, layer) returns.
export const ENCODER_MAPS = 0;       // encoder self-attention (or the multihead attention)
export const DECODER_SELF_MAPS = 1;
export const DECODER_CROSS_MAPS = 2;

/** mode: true (every head) or 'mean' (one mean map per layer, flagged mean: true). */
export function readAttentionMaps(module, handle, kind, layers, lengthsQ, lengthsK, mode) {
  const perSequence = lengthsQ.map(() => []);
  for (let layer = 0; layer < layers; layer++) {
    const m = handle.attention(kind, layer);
    if (!m) continue;
    const all = copyF32(module, m.ptr, m.nBatch * m.nhead * m.nSeqQ * m.nSeqK);  // [B, h, nQ, nK]
    for (let b = 0; b < m.nBatch; b++) {
      const heads = cropHeads(all, b, m, lengthsQ[b], lengthsK[b]);
      perSequence[b].push(mode === 'mean' ? [meanOf(heads)] : heads);
    }
  }
  return perSequence;
}

function cropHeads(all, b, m, nq, nk) {
  const heads = [];
  for (let head = 0; head < m.nhead; head++) {
    const data = new Float32Array(nq * nk);
    const base = (b * m.nhead + head) * m.nSeqQ * m.nSeqK;
    for (let q = 0; q < nq; q++) data.set(all.subarray(base + q * m.nSeqK, base + q * m.nSeqK + nk), q * nk);
    heads.push({ data, shape: [nq, nk] });
  }
  return heads;
}

function meanOf(heads) {
  const [nq, nk] = heads[0].shape;
  const mean = new Float32Array(nq * nk);
  for (const h of heads) for (let i = 0; i < mean.length; i++) mean[i] += h.data[i] / heads.length;
  return { data: mean, shape: [nq, nk], mean: true };
}
