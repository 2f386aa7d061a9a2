// Issue 29, int8 on VNNI: how fast the engine runs relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s
// (16 int8 multiply-adds into 4 i32 sums, one instruction where V8 lowers it to AVX-VNNI / AVX-512
// VNNI's vpdpbusd) against what today's int8 kernel issues per 8 multiply-adds (a sign-extension
// of the int8 weights to i16 and i32x4.dot_i16x8_s, pmaddwd, plus the i32 add). Both loops keep
// CHAINS independent accumulators, load one operand per product from L1 as a GEMM's k-loop loads
// B, and are assembled here byte by byte (clang 14 cannot emit the relaxed opcodes): the
// instruction's throughput in a loop, not a GEMM's.
// Runs in this Node (which needs --experimental-wasm-relaxed-simd for the relaxed loop; Node 20
// does not lower it to VNNI: `node --experimental-wasm-relaxed-simd --print-wasm-code` shows
// vpmaddubsw + vpmaddwd) and in headless Chromium (on by default there).
//   node --experimental-wasm-relaxed-simd bench/experiments/relaxed-dot.mjs [--no-browser]
import { chromium } from 'playwright-core';

// The page and Node both run this function's source: it must stay self-contained.
function measure() {
  const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
  const SIMD = 0xfd, CHAINS = 8;
  const ADDR = CHAINS + 3;  // i32 local: the byte offset this iteration loads from
  // func (iterations: i32) -> i32; v128 locals 1..CHAINS accumulate, CHAINS+1 is the broadcast
  // operand (A's role), CHAINS+2 unused; each chain loads its other operand (B's role) from its
  // own 1 KiB of memory at an offset that moves every iteration, so no product is loop-invariant
  // (with two constant operands V8 hoists extend + dot out of the loop and times only the adds).
  function loopModule(step) {
    const body = [0x41, 5, SIMD, 0x0f, 0x21, CHAINS + 1, 0x03, 0x40];
    body.push(0x20, 0x00, 0x41, 4, 0x74, 0x41, ...leb(1008), 0x71, 0x21, ADDR);  // ADDR = (i << 4) & 1008
    for (let a = 1; a <= CHAINS; a++) body.push(...step(a));
    body.push(0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b);  // i -= 1; br_if loop
    body.push(0x20, 1, SIMD, 0x1b, 0x00);
    for (let a = 2; a <= CHAINS; a++) body.push(0x20, a, SIMD, 0x1b, 0x00, 0x6a);  // sum of lanes 0
    body.push(0x0b);
    const func = [0x02, CHAINS + 2, 0x7b, 0x01, 0x7f, ...body];
    return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0, 0, 0,
      ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]), ...section(3, [0x01, 0x00]), ...section(5, [0x01, 0x00, 0x01]),
      ...section(7, [0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00]), ...section(10, [0x01, ...leb(func.length), ...func])]);
  }
  // v128.load of chain a's operand: memarg align 2^4, offset a * 1024 from ADDR
  const loadB = (a) => [0x20, ADDR, SIMD, 0x00, 0x04, ...leb(a * 1024)];
  const loops = {
    // acc = relaxed_dot_i8x16_i7x16_add_s(b, broadcast, acc): 16 multiply-adds (the broadcast, 5, is the 7-bit operand)
    relaxedDot: { macs: 16, bytes: loopModule((a) => [...loadB(a), 0x20, CHAINS + 1, 0x20, a, SIMD, ...leb(0x113), 0x21, a]) },
    // acc += dot_i16x8_s(broadcast, extend_low_s(b)): 8 multiply-adds, as the int8 kernel's k-loop does
    extendDot: { macs: 8, bytes: loopModule((a) => [0x20, a, 0x20, CHAINS + 1, ...loadB(a), SIMD, ...leb(0x87), SIMD, ...leb(0xba), SIMD, ...leb(0xae), 0x21, a]) },
  };
  const out = {};
  for (const [name, l] of Object.entries(loops)) {
    if (!WebAssembly.validate(l.bytes)) { out[name] = 'not supported'; continue; }
    const run = new WebAssembly.Instance(new WebAssembly.Module(l.bytes)).exports.run;
    // Tier-up: wasm has no on-stack replacement, so the optimised code only runs from the next
    // call on; short calls for a while let V8 compile it in the background.
    for (const until = performance.now() + 300; performance.now() < until;) run(1e5);
    const times = [];
    for (let i = 0; i < 7; i++) { const t = performance.now(); run(1e7); times.push(performance.now() - t); }
    times.sort((x, y) => x - y);
    out[name] = (1e7 * CHAINS * l.macs) / (times[3] * 1e6);  // G multiply-adds per second
  }
  return out;
}

const show = (where, r) => console.log(`${where.padEnd(22)} relaxed dot: ${typeof r.relaxedDot === 'number' ? `${r.relaxedDot.toFixed(1)} G int8 MAC/s` : r.relaxedDot}`
  + ` | extend + dot_i16x8: ${r.extendDot.toFixed(1)} G int8 MAC/s`);
show(`Node ${process.version}`, measure());
if (!process.argv.includes('--no-browser')) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.goto('about:blank');
  show(`Chromium ${browser.version()}`, await page.evaluate(`(${measure.toString()})()`));
  await browser.close();
}
