// Shared helpers of the JavaScript suites: repository paths, golden files, comparisons.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DATA = join(ROOT, 'tests', 'data');
export const DIST = join(ROOT, 'dist');

export const modelPath = (name) => join(DATA, `${name}.safetensors`);
export const configOf = (name) => JSON.parse(readFileSync(join(DATA, `${name}.json`), 'utf8'));

// Reads an F32 safetensors file (the goldens) into {name: {data, shape}}; independent of the
// package, so a bug in its loader cannot hide here.
export function readGolden(name) {
  const bytes = readFileSync(join(DATA, `${name}.golden.safetensors`));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [key, t] of Object.entries(header)) {
    if (key === '__metadata__') continue;
    if (t.dtype !== 'F32') throw new Error(`golden ${name}.${key} is ${t.dtype}`);
    const [b, e] = t.data_offsets;
    const raw = bytes.subarray(8 + n + b, 8 + n + e);
    const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    out[key] = { data, shape: t.shape };
  }
  return out;
}

// Splits a flat [b, n, ...] array into b sequences.
export function split(data, parts) {
  const size = data.length / parts;
  return Array.from({ length: parts }, (_, i) => data.slice(i * size, (i + 1) * size));
}

export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return Infinity;
    m = Math.max(m, d);
  }
  return m;
}

export const masks = (golden, key, parts) => split(golden[key].data, parts).map((m) => Array.from(m, (x) => x !== 0));
export const tokens = (golden, key, parts) => split(golden[key].data, parts).map((t) => Array.from(t, Math.round));

// Reads an F32/I64 safetensors file (the Hugging Face goldens) into {name: {data, shape}}: F32 as
// Float32Array, I64 as plain numbers. Independent of the package, like readGolden.
export function readTensors(path) {
  const bytes = readFileSync(path);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [key, t] of Object.entries(header)) {
    if (key === '__metadata__') continue;
    const [b, e] = t.data_offsets;
    const raw = bytes.subarray(8 + n + b, 8 + n + e);
    const copy = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    if (t.dtype === 'F32') out[key] = { data: new Float32Array(copy), shape: t.shape };
    else if (t.dtype === 'I64') out[key] = { data: Array.from(new BigInt64Array(copy), Number), shape: t.shape };
    else throw new Error(`${path}: ${key} is ${t.dtype}`);
  }
  return out;
}

// Row-major slice helpers for goldens: rows [b, 0:len, :] of a [B, n, d] tensor, and the
// [b, h, 0:len, 0:len] block of a [B, H, n, n] one.
export function rowsOf(t, b, len) {
  const [, n, d] = t.shape;
  return t.data.slice(b * n * d, (b * n + len) * d);
}
export function blockOf(t, b, h, len) {
  const [, H, n] = t.shape;
  const out = new Float32Array(len * len);
  const base = (b * H + h) * n * n;
  for (let q = 0; q < len; q++) out.set(t.data.subarray(base + q * n, base + q * n + len), q * len);
  return out;
}

// A small seeded generator (mulberry32): uniform in [0, 1), the same sequence for a seed, so a
// fuzz or randomized run can be replayed.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
