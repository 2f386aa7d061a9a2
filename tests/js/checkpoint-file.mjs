// Large safetensors checkpoints written at test or benchmark time (never committed), tensor by
// tensor so that no copy of the whole file is ever in memory: list = [[name, shape], ...], F32.
//   random: small values from a fixed LCG (|x| < 0.02), norm weights (names ending in
//           norm.weight, any case) 1: a model that runs;
//   sparse: only the header is written and the file extended to its full size (a hole reads as
//           zeros): for checks that refuse a checkpoint before reading its tensors.
// Returns the file's size in bytes.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';

export function writeCheckpoint(path, list, { fill = 'random' } = {}) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of list) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(path, 'w');
  try {
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(json.length));
    writeSync(fd, prefix);
    writeSync(fd, json);
    if (fill === 'sparse') {
      ftruncateSync(fd, 8 + json.length + offset);
    } else {
      let seed = 12345;
      for (const [name, shape] of list) {
        const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
        if (/norm\.weight$/i.test(name)) values.fill(1);
        else for (let i = 0; i < values.length; i++) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; values[i] = (seed / 2 ** 32 - 0.5) * 0.04; }
        writeSync(fd, new Uint8Array(values.buffer));
      }
    }
  } finally {
    closeSync(fd);
  }
  return 8 + json.length + offset;
}
