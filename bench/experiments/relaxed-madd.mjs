// Issue 29, the f32 ceiling: how fast the engine runs relaxed SIMD's f32x4.relaxed_madd (a * b + c,
// one vfmadd where V8 lowers it to FMA) against SIMD128's f32x4.mul + f32x4.add (two
// instructions, two issue slots), the pair today's f32 GEMM issues per 4 multiply-adds. Both
// loops keep CHAINS independent accumulators; in the "load" variants each product's second
// operand is loaded from L1 as a GEMM's k-loop loads B. Assembled byte by byte (clang 14 cannot
// emit the relaxed opcodes).
//   node --experimental-wasm-relaxed-simd bench/experiments/relaxed-madd.mjs [--no-browser]
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

// The page and Node both run this function's source: it must stay self-contained (bench/profile.mjs
// --browser runs it in its page too).
export function measure() {
  const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
  const SIMD = 0xfd, CHAINS = 12;
  const MUL = CHAINS + 1, ADDEND = CHAINS + 2, ADDR = CHAINS + 3;
  const f32x4Splat = (x) => [0x43, ...new Uint8Array(new Float32Array([x]).buffer), SIMD, 0x13];
  // func (iterations: i32) -> f32; v128 locals 1..CHAINS accumulate.
  function loopModule(step) {
    const body = [...f32x4Splat(0.999999), 0x21, MUL, ...f32x4Splat(1e-7), 0x21, ADDEND];
    for (let a = 1; a <= CHAINS; a++) body.push(...f32x4Splat(a), 0x21, a);
    body.push(0x03, 0x40);
    body.push(0x20, 0x00, 0x41, 4, 0x74, 0x41, ...leb(1008), 0x71, 0x21, ADDR);  // ADDR = (i << 4) & 1008
    for (let a = 1; a <= CHAINS; a++) body.push(...step(a));
    body.push(0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b);
    body.push(0x20, 1, SIMD, 0x1f, 0x00);
    for (let a = 2; a <= CHAINS; a++) body.push(0x20, a, SIMD, 0x1f, 0x00, 0x92);
    body.push(0x0b);
    const func = [0x02, CHAINS + 2, 0x7b, 0x01, 0x7f, ...body];
    return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0, 0, 0,
      ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7d]), ...section(3, [0x01, 0x00]), ...section(5, [0x01, 0x00, 0x01]),
      ...section(7, [0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00]), ...section(10, [0x01, ...leb(func.length), ...func])]);
  }
  const loadB = (a) => [0x20, ADDR, SIMD, 0x00, 0x04, ...leb(a * 1024)];  // v128.load chain a's operand
  const mulAdd = (bOperand) => (a) => [0x20, a, ...bOperand(a), SIMD, 0xe6, 0x01, 0x20, ADDEND, SIMD, 0xe4, 0x01, 0x21, a];
  const madd = (bOperand) => (a) => [0x20, a, ...bOperand(a), 0x20, ADDEND, SIMD, ...leb(0x105), 0x21, a];
  const reg = () => [0x20, MUL];
  const loops = {
    'mul + add, registers': mulAdd(reg),
    'relaxed_madd, registers': madd(reg),
    'mul + add, B loaded': mulAdd(loadB),
    'relaxed_madd, B loaded': madd(loadB),
  };
  const out = {};
  for (const [name, step] of Object.entries(loops)) {
    const bytes = loopModule(step);
    if (!WebAssembly.validate(bytes)) { out[name] = 'not supported'; continue; }
    const run = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.run;
    for (const until = performance.now() + 300; performance.now() < until;) run(1e5);
    const times = [];
    for (let i = 0; i < 7; i++) { const t = performance.now(); run(1e7); times.push(performance.now() - t); }
    times.sort((x, y) => x - y);
    out[name] = (1e7 * CHAINS * 8) / (times[3] * 1e6);  // GFLOP/s (2 flops x 4 lanes)
  }
  return out;
}

const show = (where, r) => console.log(`${where}: ${Object.entries(r).map(([k, v]) => `${k} ${typeof v === 'number' ? v.toFixed(1) + ' GFLOP/s' : v}`).join(' | ')}`);

async function main() {
  show(`Node ${process.version}`, measure());
  if (process.argv.includes('--no-browser')) return;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.goto('about:blank');
  const r = await page.evaluate(`(${measure.toString()})()`);
  show(`Chromium ${browser.version()}`, r);
  await browser.close();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
