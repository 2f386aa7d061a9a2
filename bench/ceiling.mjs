// The wasm SIMD128 f32 ceiling of this machine: a loop of 8 independent f32x4 multiply-add
// chains (mul + add: no fused op without relaxed SIMD), assembled here byte by byte.
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
const CHAINS = 12;  // enough independent chains to cover mul + add latency on 2-4 vector pipes

export function ceilingModule() {
  // func (iterations: i32) -> f32: v128 locals 1..8 accumulate, local 9 = multiplier, 10 = addend
  const body = [];
  const SIMD = 0xfd;
  const f32x4Splat = (x) => [0x43, ...new Uint8Array(new Float32Array([x]).buffer), SIMD, 0x13];
  body.push(...f32x4Splat(0.999999), 0x21, CHAINS + 1);  // multiplier
  body.push(...f32x4Splat(1e-7), 0x21, CHAINS + 2);      // addend
  for (let a = 1; a <= CHAINS; a++) body.push(...f32x4Splat(a), 0x21, a);
  body.push(0x03, 0x40);                                  // loop
  for (let a = 1; a <= CHAINS; a++) {
    // acc_a = acc_a * m + c
    body.push(0x20, a, 0x20, CHAINS + 1, SIMD, 0xe6, 0x01, 0x20, CHAINS + 2, SIMD, 0xe4, 0x01, 0x21, a);
  }
  body.push(0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b);  // i -= 1; br_if loop
  // return the sum of lane 0 of every accumulator (keeps the work observable)
  body.push(0x20, 1, SIMD, 0x1f, 0x00);
  for (let a = 2; a <= CHAINS; a++) body.push(0x20, a, SIMD, 0x1f, 0x00, 0x92);
  body.push(0x0b);
  const locals = [0x01, CHAINS + 2, 0x7b];
  const func = [...locals, ...body];
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7d]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x03, ...Array.from('run', (c) => c.charCodeAt(0)), 0x00, 0x00]),
    ...section(10, [0x01, ...leb(func.length), ...func])];
  return new Uint8Array(bytes);
}

// GFLOP/s of the loop (median of several runs); 2 flops x 4 lanes x CHAINS per iteration.
export async function measureCeiling() {
  const { instance } = await WebAssembly.instantiate(ceilingModule());
  const run = instance.exports.run;
  run(1e6);  // tier up
  const iterations = 2e7, times = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    run(iterations);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const ms = times[3];
  return { gflops: (iterations * CHAINS * 4 * 2) / (ms * 1e6), ms, chains: CHAINS };
}
