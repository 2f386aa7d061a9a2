// Issue 29, under load: a page runs beside other tabs. With one other process keeping one core
// busy (a busy loop in a child process), 2 threads must not be slower than 1 thread, and the
// spinning pool must not be slower than a sleeping one (one built with SIMDFORMER_SPIN_WINDOW_US=0,
// whose workers sleep after every job) by more than 10 %.
//
// Text -> normalised embedding on the MiniLM-L6- and BERT-base-shaped folders of bench/models/
// (bench/export_hf.py), texts of 5, 23, 46 and 128 tokens and a batch of 3. Every configuration
// runs alone in its own process (two pools would steal each other's cores), in the order
// 1 thread, 2 threads, [2 threads sleeping,] ..., then the same reversed, and the rounds of both
// passes are pooled; first with the machine otherwise idle, then with the busy loop running.
//   node bench/under-load.mjs [--backend wasm|native] [--models minilm-l6,bert-base]
//                             [--sleeping DIST]   (a dist/ copy with the sleeping pool:
//                                                  bash bench/experiments/under_load/build-sleeping.sh)
//                             [--before DIST]     (another package at 2 threads, e.g. an older pool)
//                             [--lengths 5,23,46,128,batch]
//   (UNDER_LOAD_BUDGET_MS: timing budget per configuration and workload, default 3000)
// Refuses to time (exit 2) when the 1-minute load average is 1.0 or more at the start.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { textOfTokens } from './native.mjs';
import { median, otherLoadProbe, quantile } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const BUDGET_MS = Number(process.env.UNDER_LOAD_BUDGET_MS ?? 3000);
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const BACKEND = arg('--backend', 'wasm');
const MODELS = arg('--models', 'minilm-l6,bert-base').split(',');
const SLEEPING = arg('--sleeping', null);
const BEFORE = arg('--before', null);
const LENGTHS = arg('--lengths', '5,23,46,128,batch').split(',');
const POOL = { pooling: 'mean', normalize: true };
const BATCH = ['The quick brown fox jumps over the lazy dog.', 'Hello, world!',
  'Every weight of every head can be shown as a heatmap.'];

// --child DIST THREADS: time every workload of every model with that package and thread count.
async function child(dist, threads) {
  const { init } = await import(pathToFileURL(join(resolve(dist), 'node.mjs')).href);
  const sf = await init({ backend: BACKEND, threads });
  if (sf.threadsReady) await sf.threadsReady;
  if (sf.threads !== threads) throw new Error(`asked for ${threads} threads, got ${sf.threads}`);
  const out = {};
  for (const name of MODELS) {
    const model = await sf.loadPretrained(join(HERE, 'models', name));
    const workloads = LENGTHS.filter((l) => l !== 'batch').map((n) => [`${n} tokens`, [textOfTokens(model, Number(n))]]);
    if (LENGTHS.includes('batch')) workloads.push(['batch of 3', BATCH]);
    for (const [w, texts] of workloads) {
      const until = performance.now() + 500;
      for (let i = 0; i < 3 || performance.now() < until; i++) model.embed(texts, POOL);  // warm-up
      const times = [];
      const stop = performance.now() + BUDGET_MS / 2;
      while (times.length < 7 || (performance.now() < stop && times.length < 60)) {
        const t0 = performance.now();
        model.embed(texts, POOL);
        times.push(performance.now() - t0);
      }
      out[`${name} / ${w}`] = times;
    }
    model.dispose();
  }
  sf.dispose();
  const u = process.cpuUsage();
  process.stdout.write(JSON.stringify({ times: out, cpuMs: (u.user + u.system) / 1000 }));
}

function runChild(config) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', config.dist, String(config.threads),
    '--backend', BACKEND, '--models', MODELS.join(','), '--lengths', LENGTHS.join(',')], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${config.name}: the child process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf('{"times"')));
}

// One condition: every configuration alone, in order and then reversed, rounds pooled.
// Returns the pooled times and the children's CPU time (ms).
function timeCondition(configs) {
  const pooled = Object.fromEntries(configs.map((c) => [c.name, {}]));
  let cpuMs = 0;
  for (const c of [...configs, ...[...configs].reverse()]) {
    const { times, cpuMs: ms } = runChild(c);
    cpuMs += ms;
    for (const [k, t] of Object.entries(times)) (pooled[c.name][k] ??= []).push(...t);
  }
  return { pooled, cpuMs };
}

// A child process that keeps one core busy until it is killed.
function startBusyLoop() {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function main() {
  const dist = join(HERE, '..', 'dist');
  const configs = [{ name: '1 thread', dist, threads: 1 }, { name: '2 threads', dist, threads: 2 }];
  for (const [flag, dir, name] of [['--before', BEFORE, '2 threads, before'], ['--sleeping', SLEEPING, '2 threads, sleeping pool']]) {
    if (!dir) continue;
    if (!existsSync(join(dir, 'node.mjs'))) throw new Error(`${flag} ${dir}: no node.mjs there`);
    configs.push({ name, dist: dir, threads: 2 });
  }
  for (const name of MODELS) {
    if (!existsSync(join(HERE, 'models', name))) throw new Error(`bench/models/${name} is missing: run bench/export_hf.py`);
  }
  const start = loadavg()[0];
  console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}; load average ${start.toFixed(2)} at the start; backend ${BACKEND}`);
  if (start >= 1.0 && !process.argv.includes('--force')) {
    console.log('the machine is loaded (1-minute load average >= 1.0): not timing (pass --force to time anyway)');
    process.exitCode = 2;
    return;
  }
  const probe = otherLoadProbe();
  const { pooled: idle, cpuMs } = timeCondition(configs);
  const idleOther = probe(cpuMs);
  const busy = startBusyLoop();
  let loaded;
  try {
    await new Promise((r) => setTimeout(r, 500));
    loaded = timeCondition(configs).pooled;
  } finally {
    busy.kill();
  }
  const end = loadavg()[0];
  const stat = (t) => ({ median: median(t), p10: quantile(t, 0.1), p90: quantile(t, 0.9), rounds: t.length });
  const rows = [];
  for (const key of Object.keys(idle[configs[0].name])) {
    const row = { workload: key };
    for (const [cond, data] of [['idle', idle], ['busy', loaded]]) {
      row[cond] = Object.fromEntries(configs.map((c) => [c.name, stat(data[c.name][key])]));
      const m = (n) => row[cond][n].median;
      row[cond].twoOverOne = m('2 threads') / m('1 thread');
      if (SLEEPING) row[cond].spinOverSleep = m('2 threads') / m('2 threads, sleeping pool');
      if (BEFORE) row[cond].nowOverBefore = m('2 threads') / m('2 threads, before');
    }
    rows.push(row);
    const f = (cond) => configs.map((c) => row[cond][c.name].median.toFixed(1)).join(' / ')
      + ` ms, 2 / 1 thread ${row[cond].twoOverOne.toFixed(2)}` + (SLEEPING ? `, spinning / sleeping ${row[cond].spinOverSleep.toFixed(2)}` : '')
      + (BEFORE ? `, 2 threads now / before ${row[cond].nowOverBefore.toFixed(2)}` : '');
    console.log(`  ${key.padEnd(24)} idle: ${f('idle')} | one core busy: ${f('busy')}`);
  }
  console.log(`  (${configs.map((c) => c.name).join(' / ')}; medians; each configuration alone in its process, twice)`);
  console.log(`load average (1 min) at the start / at the end: ${start.toFixed(2)} / ${end.toFixed(2)} (the busy loop adds 1); `
    + `other processes' CPU in the idle part: ${idleOther.otherCores.toFixed(2)} cores${idleOther.otherCores > 0.1 ? ' -- not idle: discard this run' : ''}`);
  mkdirSync(CACHE, { recursive: true });
  const file = join(CACHE, `under-load-${BACKEND}.json`);
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0].model, loadavg: [start, end],
    otherCoresIdle: idleOther.otherCores, configs: configs.map((c) => c.name), rows }, null, 1));
  console.log(`results: ${file}`);
}

if (process.argv.includes('--child')) {
  const i = process.argv.indexOf('--child');
  child(process.argv[i + 1], Number(process.argv[i + 2])).catch((e) => { console.error(e); process.exitCode = 1; });
} else {
  main().catch((e) => { console.error(e); process.exitCode = 1; });
}
