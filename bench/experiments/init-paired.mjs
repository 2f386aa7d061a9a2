// Start-up A/B with paired differences: runs init-time.mjs in fresh processes, every package once
// per round (the order rotated each round), and prints each package's median `await init()` and
// the median of the rounds' differences against the first package, with how many rounds it won.
// On a machine whose speed drifts between runs a minute apart, the paired difference is steadier
// than two medians (issue 30, session 19):
//   node bench/experiments/init-paired.mjs simd|scalar|threads ROUNDS base/dist/node.mjs new/dist/node.mjs
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { median } from '../stats.mjs';

const [mode, roundsText, ...entries] = process.argv.slice(2);
const rounds = Number(roundsText);
if (!mode || !(rounds > 0) || entries.length < 2) {
  throw new Error('usage: init-paired.mjs simd|scalar|threads ROUNDS base/dist/node.mjs new/dist/node.mjs [more...]');
}
const script = fileURLToPath(new URL('./init-time.mjs', import.meta.url));
const times = entries.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < entries.length; k++) {
    const i = (k + r) % entries.length;
    const out = execFileSync(process.execPath, [script, mode, entries[i]], { encoding: 'utf8' });
    times[i].push(JSON.parse(out.trim().split('\n').pop()).initMs);
  }
}
entries.forEach((entry, i) => {
  const diffs = times[i].map((t, r) => t - times[0][r]);
  const won = diffs.filter((d) => d < 0).length;
  console.log(`${entry} ${mode}: init median ${median(times[i]).toFixed(2)} ms` +
    (i ? `, paired difference ${median(diffs).toFixed(2)} ms (faster in ${won}/${rounds})` : '') + `, ${rounds} rounds`);
});
