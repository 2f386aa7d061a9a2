// The statistics the benchmarks report: medians and quantiles of rounds, and interleaved rounds.
import { readFileSync } from 'node:fs';

export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
export const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

// Interleaved rounds: every round runs each engine once, in alternating order, so load changes on
// the shared machine hit both alike. run(engine) -> ms. Two warm-up calls per engine, then as many
// rounds as budgetMs allows (7 to 25). Returns per-engine medians, p10-p90 and the median of the
// per-round ratios engines[0] / engines[1].
export async function interleave(engines, run, budgetMs) {
  for (const e of engines) for (let i = 0; i < 2; i++) await run(e);  // warm-up (JIT, tier-up, allocations)
  const first = [];
  for (const e of engines) first.push(await run(e));
  const rounds = Math.max(7, Math.min(25, Math.ceil(budgetMs / Math.max(...first))));
  const times = Object.fromEntries(engines.map((e) => [e, []]));
  for (let r = 0; r < rounds; r++) {
    for (const e of (r % 2 ? [...engines].reverse() : engines)) times[e].push(await run(e));
  }
  const out = { rounds };
  for (const e of engines) out[e] = { median: median(times[e]), p10: quantile(times[e], 0.1), p90: quantile(times[e], 0.9) };
  out.ratio = median(times[engines[0]].map((t, i) => t / times[engines[1]][i]));
  return out;
}

// One engine alone (its own page or process): warm-up runs for at least warmupMs (a fresh page
// compiles its wasm modules' optimised code on background threads for seconds -- onnxruntime's
// is large -- and that takes the second core from a 2-thread pool), then as many runs as half of
// budgetMs allows (7 to 25). run() -> ms. Returns every timed run.
export async function timedRuns(run, budgetMs, warmupMs = 3000) {
  const until = performance.now() + warmupMs;
  for (let i = 0; i < 2 || performance.now() < until; i++) await run();
  const first = await run();
  const rounds = Math.max(7, Math.min(25, Math.ceil(budgetMs / 2 / first)));
  const times = [];
  for (let r = 0; r < rounds; r++) times.push(await run());
  return times;
}

// Whether the machine was otherwise idle while a benchmark ran: the CPU time every process spent
// (Linux /proc/stat, all cores) minus this process's own (and its children's, when they report
// it), as a share of one core over the wall time. A 2-thread benchmark raises the load average by
// itself, so the load average alone cannot say whether anything else ran.
const CLOCK_TICKS_PER_MS = 100 / 1000;  // USER_HZ is 100 on Linux
function busyTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return user + nice + system + irq + softirq + steal;  // idle and iowait are not busy
}
export function otherLoadProbe() {
  const t0 = performance.now();
  const busy0 = busyTicks();
  const own0 = process.cpuUsage();
  return (childCpuMs = 0) => {
    const wallMs = performance.now() - t0;
    const own = process.cpuUsage(own0);
    const ownMs = (own.user + own.system) / 1000 + childCpuMs;
    const busyMs = (busyTicks() - busy0) / CLOCK_TICKS_PER_MS;
    return { wallMs, ownCpuMs: ownMs, otherCores: Math.max(0, busyMs - ownMs) / wallMs };
  };
}
