// Side-by-side GEMM micro-kernel comparison in one Node process: every variant built by
// bench/experiments/gemm_ab/build.sh is timed in interleaved rounds (order rotated each round) together with
// the SIMD128 mul+add ceiling loop, so all of them see the same machine load. Reports median and
// p10 GFLOP/s per variant, % of the ceiling's median and the time ratio to the first variant.
//   node bench/experiments/gemm-ab.mjs build/gemm_ab/a.cjs build/gemm_ab/b.cjs [--shape 128x768x768,...]
//        [--rounds 41] [--bias] [--gelu] [--stream MB] [--browser [--mul-add]]
// --browser: the same rounds in a headless Chromium page instead (drivers built with
// AB_ENV=web,node bash bench/experiments/gemm_ab/build.sh ...), where V8 runs relaxed SIMD and the
// GEMM its relaxed k-loops (--mul-add: not); the page's relaxed_madd ceiling is printed beside
// the mul + add one.
// --stream MB: each variant cycles through enough packed copies of B to fill MB megabytes (say 96,
// beyond a 32 MB L3), so every call streams its weights from memory as a forward pass does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';

import { chromium } from 'playwright-core';

import { ceilingModule } from '../ceiling.mjs';
import { measure as measureMadd } from './relaxed-madd.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : args.splice(i, 2)[1]; };
const shapes = opt('--shape', '128x768x768,1x768x768,128x768x3072,128x3072x768').split(',').map((s) => s.split('x').map(Number));
const rounds = Number(opt('--rounds', 41));
const streamMb = Number(opt('--stream', 0));
const browser = args.includes('--browser') ? (args.splice(args.indexOf('--browser'), 1), true) : false;
// --mul-add (page only): SIMD128's multiply and add instead of the relaxed k-loops.
const relaxedOn = args.includes('--mul-add') ? (args.splice(args.indexOf('--mul-add'), 1), false) : true;
const flag = (name) => (args.includes(name) ? (args.splice(args.indexOf(name), 1), 1) : 0);
// --gelu: the exact GELU in the epilogue (bit 1 of ab_run's second argument; drivers built before
// it ignore the bit and time the bias alone).
const bias = flag('--bias') | (flag('--gelu') << 1);
// Instances of the very same build differ: measured 2026-12-02 on a Xeon (idle) with three copies
// of one file, the first instantiated ran 5-15 % slower than the others (paired x1.00 / x0.92 /
// x0.92 at 5 rows, x1.00 / x0.90 / x0.89 at 128 rows), and with a throwaway first instance (below)
// copies still spread up to 11 % (x1.00 / x0.95 / x0.89 at 5x768x3072) -- where each instance's
// memory lands, not its code. So: a throwaway instance of the first variant takes the first place
// (set up with each shape, never timed), and an A/B should time a copy of its baseline as a
// control (cp today.cjs today2.cjs): only differences beyond the control's spread count.
// Every shape's interleaved rounds over `variants` ({name, mod}: instantiated drivers) and the
// ceiling loop; -> the lines to print. Self-contained: the page runs its source too.
function timeVariants(throwaway, variants, ceilingBytes, { shapes, rounds, bias, streamMb, callFlops }) {
  const lines = [];
  const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
  const ceilRun = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(ceilingBytes))).exports.run;
  ceilRun(1e6);
  const CEIL_ITERS = 2e6, CEIL_FLOPS = CEIL_ITERS * 12 * 4 * 2;
  for (const [m, k, n] of shapes) {
    const flops = 2 * m * k * n;
    const reps = Math.max(1, Math.round(callFlops / flops));
    const copies = streamMb > 0 ? Math.max(1, Math.ceil((streamMb * 2 ** 20) / (4 * k * n))) : 1;
    if (!throwaway._ab_setup(m, k, n, copies)) throw new Error('setup failed');
    throwaway._ab_run(1, bias);
    for (const v of variants) if (!v.mod._ab_setup(m, k, n, copies)) throw new Error('setup failed');
    const sums = variants.map((v) => v.mod._ab_run(3, bias));
    // Hash of every bit of C (drivers built before ab_bits existed print '-').
    const bits = variants.map((v) => (v.mod._ab_bits ? (v.mod._ab_bits() >>> 0).toString(16).padStart(8, '0') : '-'));
    const times = variants.map(() => []), ceil = [];
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j <= variants.length; j++) {
        const i = (j + r) % (variants.length + 1);
        const t = performance.now();
        if (i === variants.length) { ceilRun(CEIL_ITERS); ceil.push(performance.now() - t); continue; }
        variants[i].mod._ab_run(reps, bias);
        times[i].push((performance.now() - t) / reps);
      }
    }
    const ceilGf = CEIL_FLOPS / (pct(ceil, 0.5) * 1e6);
    lines.push(`${m}x${k}x${n} (bias ${bias}, B copies ${copies}, ${rounds} rounds x ${reps} calls; ceiling median ${ceilGf.toFixed(1)} GFLOP/s, best ${(CEIL_FLOPS / (pct(ceil, 0) * 1e6)).toFixed(1)})`);
    const base = pct(times[0], 0.5);
    variants.forEach((v, i) => {
      const ms = pct(times[i], 0.5), gf = flops / (ms * 1e6), gf10 = flops / (pct(times[i], 0.1) * 1e6);
      // Paired: the median over rounds of (this variant / the first one) within each round, which
      // survives load that changes between rounds better than a ratio of the two medians.
      const paired = pct(times[i].map((t, r) => t / times[0][r]), 0.5);
      lines.push(`  ${v.name.padEnd(16)} ${ms.toFixed(3).padStart(8)} ms  ${gf.toFixed(1).padStart(5)} GFLOP/s (p10 ${gf10.toFixed(1).padStart(5)})  ${(100 * gf / ceilGf).toFixed(0).padStart(3)}% of ceiling  x${(ms / base).toFixed(3)} (paired x${paired.toFixed(3)})  sum ${sums[i].toFixed(4)} bits ${bits[i]}`);
    });
  }
  return lines;
}

// Work per timed call: ~2-3 ms in Node; ~20 ms in the page, whose clock ticks in 0.1 ms.
const options = { shapes, rounds, bias, streamMb, callFlops: browser ? 6e8 : 6e7 };
const ceilingBytes = Array.from(ceilingModule());
if (!browser) {
  const throwaway = require(resolve(args[0]))();
  const variants = args.map((f) => ({ name: basename(f, '.cjs'), mod: require(resolve(f))() }));
  for (const line of timeVariants(throwaway, variants, ceilingBytes, options)) console.log(line);
} else {
  const chrome = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await chrome.newPage();
    await page.goto('about:blank');
    const madd = await page.evaluate(`(${measureMadd.toString()})()`);
    console.log(`Chromium ${chrome.version()}: relaxed_madd ceiling ${typeof madd['relaxed_madd, registers'] === 'number' ? `${madd['relaxed_madd, registers'].toFixed(1)} GFLOP/s` : 'not supported'}`);
    // A driver's single file, run as CommonJS: its factory from module.exports.
    const sources = args.map((f) => readFileSync(resolve(f), 'utf8'));
    const lines = await page.evaluate(`(() => {
      const make = (src) => { const module = { exports: {} }; new Function('module', 'exports', src)(module, module.exports); return module.exports(); };
      const sources = ${JSON.stringify(sources)}, names = ${JSON.stringify(args.map((f) => basename(f, '.cjs')))};
      const variants = sources.map((src, i) => ({ name: names[i], mod: make(src) }));
      const throwaway = make(sources[0]);
      // The relaxed k-loops where the driver has them (ab_relaxed) and the page's V8 runs them.
      const relaxed = [throwaway, ...variants.map((v) => v.mod)].map((m) => (m._ab_relaxed ? m._ab_relaxed(${relaxedOn ? 1 : 0}) : 0));
      return [\`relaxed f32 k-loops: \${relaxed.slice(1).map((on, i) => \`\${names[i]} \${on ? 'on' : 'off'}\`).join(', ')}\`,
              ...(${timeVariants.toString()})(throwaway, variants, ${JSON.stringify(ceilingBytes)}, ${JSON.stringify(options)})];
    })()`);
    for (const line of lines) console.log(line);
  } finally {
    await chrome.close();
  }
}
