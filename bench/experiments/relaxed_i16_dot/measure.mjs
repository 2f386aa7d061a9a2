// Times kloops.wasm's three k-loops in headless Chromium (GMAC/s, medians of 15 interleaved rounds after a warm-up), once as V8 runs on
// this CPU and once with --js-flags=--no-enable-avx-vnni (x86 without AVX-VNNI: Zen 3 / Zen 4).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { chromium } = createRequire(import.meta.url)('playwright-core');
const bytes = [...readFileSync(process.argv[2])];
for (const flags of ['', '--no-enable-avx-vnni']) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', ...(flags ? [`--js-flags=${flags}`] : [])] });
  try {
    const page = await browser.newPage();
    const rates = await page.evaluate(async (wasm) => {
      const { instance } = await WebAssembly.instantiate(new Uint8Array(wasm));
      const e = instance.exports, mem = new Uint8Array(e.memory.buffer);
      for (let i = 0; i < 65536; i++) mem[i] = (i * 37) & 63;
      const k = 768, reps = 20000, loops = [['pairs', k / 2], ['quads16', k / 4], ['quadsadd', k / 4]];
      const run = (name, steps) => { const t0 = performance.now(); e[name](0, 16384, steps, reps, 60000); return performance.now() - t0; };
      // Warm-up: V8 first runs Liftoff's code and tiers a function up after some calls.
      for (let i = 0; i < 5; i++) for (const [name, steps] of loops) run(name, steps);
      const t = Object.fromEntries(loops.map(([name]) => [name, []]));
      for (let i = 0; i < 15; i++) for (const [name, steps] of loops) t[name].push(run(name, steps));
      const out = {};
      for (const [name] of loops) {
        const s = t[name].sort((x, y) => x - y);
        out[name] = Number((4 * 8 * k * reps / (s[7] * 1e6)).toFixed(1));
      }
      return out;
    }, bytes);
    console.log(`${flags || 'as the CPU allows'}: ${Object.entries(rates).map(([n, r]) => `${n} ${r}`).join(', ')} GMAC/s`);
  } finally {
    await browser.close();
  }
}
