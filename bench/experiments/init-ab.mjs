// Start-up A/B: runs init-time.mjs in fresh processes, alternating between packages, and prints
// the median (min-max) of `await init()` and of the import before it for each. Run it on an idle
// machine (issue 30's goal: init() <= 20 ms, threads <= 50 ms):
//   node bench/experiments/init-ab.mjs simd|scalar|threads RUNS path/to/dist/node.mjs [more...]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { median } from '../stats.mjs';

const [mode, runsText, ...entries] = process.argv.slice(2);
const runs = Number(runsText);
if (!mode || !(runs > 0) || entries.length === 0) {
  throw new Error('usage: init-ab.mjs simd|scalar|threads RUNS dist/node.mjs [dist2/node.mjs ...]');
}
const script = fileURLToPath(new URL('./init-time.mjs', import.meta.url));
const times = entries.map(() => ({ init: [], import: [], ready: [] }));
for (let r = 0; r < runs; r++) {
  entries.forEach((entry, i) => {
    const out = JSON.parse(execFileSync(process.execPath, [script, mode, entry], { encoding: 'utf8' }).trim().split('\n').pop());
    times[i].init.push(out.initMs);
    times[i].import.push(out.importMs);
    times[i].ready.push(out.threadsReadyMs);
  });
}
const summary = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
entries.forEach((entry, i) => {
  const t = times[i];
  console.log(`${entry} ${mode}: init ${summary(t.init)} ms, import ${summary(t.import)} ms` +
    (mode === 'threads' ? `, threadsReady ${summary(t.ready)} ms` : '') + `, ${runs} runs`);
});
