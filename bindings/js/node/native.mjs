// The native backend in Node.js: finds and loads the prebuilt Node-API addon (bindings/node) that
// matches this platform and CPU, or says why not. Nothing is compiled at install time: the package
// ships prebuilds/<platform>-<arch>[-<libc>]/simdformer.node (the architecture's baseline: SSE2 on
// x86-64, NEON on arm64) and, on x86-64, simdformer-avx2.node (x86-64-v3: AVX2 + FMA) and
// simdformer-avx512.node (x86-64-v4: AVX-512); a platform without one runs the wasm build
// (scripts/build-native.sh builds one from source).
//
// The baseline file is loaded first -- it runs on every CPU of its architecture -- and asked which
// SIMD levels this CPU and OS support (xsimd's run-time detection, cpuLevels()), and the best file
// they allow is loaded (the AVX2 one needs 'fma3+avx2'). SIMDFORMER_NATIVE_LEVEL=baseline|avx2|avx512
// forces a level (the tests run each one); SIMDFORMER_NATIVE_PATH=<file.node> loads that file
// instead of the prebuilt ones.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
// x86-64-v4 also needs AVX512VL, which xsimd does not report; every CPU with F + CD + DQ + BW
// has it (Skylake-SP and later, Zen 4; Knights Landing, without BW and DQ, is excluded).
const LEVELS = [
  { name: 'avx512', needs: ['avx512f', 'avx512cd', 'avx512dq', 'avx512bw'], file: 'simdformer-avx512.node' },
  { name: 'avx2', needs: ['fma3+avx2'], file: 'simdformer-avx2.node' },
  { name: 'baseline', needs: [], file: 'simdformer.node' }];

/** 'linux-x64-gnu', 'linux-x64-musl', 'darwin-arm64', ... (the prebuilds/ folder name). */
export function platformTag() {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  return `${platform}-${arch}-${isGlibc() ? 'gnu' : 'musl'}`;
}

// Which libc this Linux runs. /usr/bin/ldd names it (glibc's is a script "part of the GNU C
// Library", musl's runs ld-musl): one small read. Without it (distroless images), the diagnostic
// report's header, which has glibcVersionRuntime on glibc only -- correct but ~10 ms to build.
function isGlibc() {
  try {
    const ldd = readFileSync('/usr/bin/ldd', 'latin1');
    if (ldd.includes('musl')) return false;
    if (ldd.includes('GNU C Library')) return true;
  } catch {
    // no ldd: ask the report
  }
  return Boolean(process.report?.getReport?.()?.header?.glibcVersionRuntime);
}

/** The folder holding this platform's prebuilt addons (beside dist/node.mjs). */
export const prebuildsFolder = (tag = platformTag()) => fileURLToPath(new URL(`../prebuilds/${tag}/`, import.meta.url));

let loaded = null;  // { module, level } or { reason }, decided once per process

/**
 * The addon for this platform and CPU: { module, level } or { reason } (why there is none).
 * Never throws: a file that fails to load (another libc, a missing symbol, a CPU it cannot run on)
 * is a reason, so init({ backend: 'auto' }) can fall back to wasm silently.
 */
export function loadNative() {
  if (loaded) return loaded;
  loaded = find();
  return loaded;
}

function find() {
  // An addon built elsewhere (scripts/build-native.sh for another platform, a sanitizer build):
  // that file alone, whatever the CPU level.
  const path = process.env.SIMDFORMER_NATIVE_PATH;
  if (path) {
    try {
      return { module: require(path), level: 'custom' };
    } catch (e) {
      return { reason: `SIMDFORMER_NATIVE_PATH=${path} does not load: ${e.message}` };
    }
  }
  const tag = platformTag();
  const folder = prebuildsFolder(tag);
  const forced = process.env.SIMDFORMER_NATIVE_LEVEL;
  if (forced !== undefined && !LEVELS.some((l) => l.name === forced)) {
    return { reason: `SIMDFORMER_NATIVE_LEVEL must be one of ${LEVELS.map((l) => l.name).join(', ')}, not '${forced}'` };
  }
  const file = (level) => folder + LEVELS.find((l) => l.name === level).file;
  if (!existsSync(file('baseline'))) return { reason: `no prebuilt addon for ${tag} in ${folder}` };
  let baseline;
  try {
    baseline = require(file('baseline'));
  } catch (e) {
    return { reason: `the prebuilt addon for ${tag} does not load: ${e.message}` };
  }
  let cpu;
  try {
    cpu = baseline.cpuLevels();
  } catch (e) {
    return { reason: `the prebuilt addon for ${tag} does not answer: ${e.message}` };
  }
  for (const level of LEVELS) {
    if (forced !== undefined && level.name !== forced) continue;
    const lacks = level.needs.filter((n) => !cpu.includes(n));
    if (lacks.length > 0) {
      if (forced !== undefined) return { reason: `SIMDFORMER_NATIVE_LEVEL=${forced}: this CPU lacks ${lacks.join(', ')}` };
      continue;
    }
    if (level.name === 'baseline') return { module: baseline, level: 'baseline' };
    if (!existsSync(file(level.name))) {
      if (forced !== undefined) return { reason: `SIMDFORMER_NATIVE_LEVEL=${forced}: ${file(level.name)} is missing` };
      continue;
    }
    try {
      return { module: require(file(level.name)), level: level.name };
    } catch (e) {
      if (forced !== undefined) return { reason: `the ${level.name} addon does not load: ${e.message}` };
    }
  }
  return { reason: 'no prebuilt addon level fits this CPU' };
}
