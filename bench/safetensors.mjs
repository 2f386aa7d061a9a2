// The one safetensors reader of the benchmark scripts (weights, inputs and PyTorch check files
// they exported): F32 tensors as Float32Array, I64 as BigInt64Array, each copied out of the file.
import { readFileSync } from 'node:fs';

/** {bytes: the whole file, tensors: {name: {data, shape, dtype, ortType}}} */
export function readSafetensors(path) {
  const bytes = readFileSync(path);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const tensors = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = t.data_offsets;
    const raw = bytes.buffer.slice(bytes.byteOffset + 8 + n + b, bytes.byteOffset + 8 + n + e);
    const int64 = t.dtype === 'I64';
    tensors[name] = { data: int64 ? new BigInt64Array(raw) : new Float32Array(raw), shape: t.shape, dtype: t.dtype, ortType: int64 ? 'int64' : 'float32' };
  }
  return { bytes: new Uint8Array(bytes), tensors };
}
