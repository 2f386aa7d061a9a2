// The size budget of what the package ships, as size-limit does for npm packages: the test
// command fails when a build of the engine grows past its budget (gzip -9 bytes, what a page
// downloads from a server that compresses). The budgets sit a little above today's sizes, so
// growth is noticed where it happens; BENCHMARKS.md ("Footprint") has the sizes, where the bytes
// go, and the 150 KB goal. A change that shrinks a build lowers its budget in the same commit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { DIST } from './helpers.mjs';

const KB = 1024;
const BUDGET = {  // today (zlib level 9 B): 217,073 / 214,000 / 235,043; glue 15,229 / 23,103; bundle 36,400 (issue 27's URL loading and folder cache: +2.0 KB)
  'simdformer.wasm': 220 * KB,
  'simdformer-scalar.wasm': 218 * KB,
  'simdformer-threads.wasm': 238 * KB,
  'simdformer.mjs': 17 * KB,
  'simdformer-threads.mjs': 24 * KB,
  'browser.bundle.mjs': 37 * KB,
};

for (const [file, budget] of Object.entries(BUDGET)) {
  test(`${file} stays within ${(budget / KB).toFixed(0)} KB gzip`, () => {
    const bytes = readFileSync(join(DIST, file));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    console.log(`# size: ${file} ${bytes.length} B raw, ${gzip} B gzip (budget ${budget} B)`);
    assert.ok(gzip <= budget, `${file} is ${gzip} B gzip, over its ${budget} B budget`);
  });
}
