// Opens bench/embed-page/ in headless Chromium on 127.0.0.1 (cross-origin isolated, so the
// threaded builds of both engines can run): the simdformer package (dist/), its tokenizer library,
// bench's own npm packages (transformers.js, onnxruntime-web) and bench/models/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startServer } from '../../web/serve.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCH = join(HERE, '..');
const ROOT = join(BENCH, '..');

// BENCH_V8_FLAGS: V8 flags for every page, e.g. '--no-enable-avx-vnni' makes V8 lower relaxed
// SIMD's int8 dot product as it does on x86 without AVX-VNNI (AMD Zen 3 / Zen 4): pmaddubsw +
// pmaddwd, for both engines -- what those machines run, measured on a machine that has VNNI.
const V8_FLAGS = process.env.BENCH_V8_FLAGS ? [`--js-flags=${process.env.BENCH_V8_FLAGS}`] : [];

// -> { page, errors, notFound, close }; page has window.embedBench ready (or the global `ready`
// names, of the page `file`: decode.html has window.decodeBench). query: e.g. 'threads=2'. dist:
// the package folder served as /dist/ (another build of it, for A/B runs and bench/profile.mjs).
export async function openEmbedPage(query = '', { file = 'index.html', ready = 'embedBench', dist = join(ROOT, 'dist') } = {}) {
  const server = await startServer({ mounts: [['/', HERE], ['/dist/', dist],
    ['/nm/', join(ROOT, 'node_modules')], ['/bnm/', join(BENCH, 'node_modules')], ['/models/', join(BENCH, 'models')]] });
  const profile = mkdtempSync(join(tmpdir(), 'simdformer-embed-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      ...V8_FLAGS],
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await server.close();
  };
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
    const notFound = new Set();  // optional files transformers.js probes for
    page.on('response', (r) => { if (r.status() === 404) notFound.add(new URL(r.url()).pathname); });
    await page.goto(`${server.url}${file}${query ? `?${query}` : ''}`);
    await page.waitForFunction((name) => window[name], ready, { timeout: 120000 });
    return { page, errors, notFound, close };
  } catch (e) {
    await close();
    throw e;
  }
}
