#!/usr/bin/env bash
# Issue 29, under load: the package with a pool that sleeps after every job, for
# `node bench/under-load.mjs --sleeping build/dist-sleeping`. dist/ (npm run build) copied to
# build/dist-sleeping with its pthreads wasm build (and, on linux-x64, its addon) rebuilt with
# SIMDFORMER_SPIN_WINDOW_US=0 (runtime/thread_pool.cpp: workers and the caller stop spinning at once).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
[ -f dist/node.mjs ] || { echo "dist/ is missing: npm run build first" >&2; exit 1; }
B=build/wasm-threads-sleeping
cmake --preset wasm-threads -B "$B" -DCMAKE_CXX_FLAGS=-DSIMDFORMER_SPIN_WINDOW_US=0 >/dev/null
cmake --build "$B" --target simdformer_js -j "${JOBS:-2}" >/dev/null
rm -rf build/dist-sleeping && cp -r dist build/dist-sleeping
T="$B/bindings/simdformer-threads"
cp "$T.mjs" "$T.wasm" "$T.worker.js" build/dist-sleeping/
cp "$T.worker.js" build/dist-sleeping/simdformer-threads.worker.cjs
cmp -s dist/simdformer-threads.wasm build/dist-sleeping/simdformer-threads.wasm && { echo "the sleeping build is byte-identical to dist's: the define did not reach thread_pool.cpp" >&2; exit 1; }
# The addons dist/ ships for this platform (bench/under-load.mjs --backend native), each level
# rebuilt the same way.
for addon in build/dist-sleeping/prebuilds/*/simdformer*.node; do
  [ -f "$addon" ] || continue
  level=$(basename "$addon" .node); level=${level#simdformer}; preset="native-addon$level"
  cmake --preset "$preset" -B "build/$preset-sleeping" -DCMAKE_CXX_FLAGS=-DSIMDFORMER_SPIN_WINDOW_US=0 >/dev/null
  cmake --build "build/$preset-sleeping" --target simdformer_node -j "${JOBS:-2}" >/dev/null
  cp "build/$preset-sleeping/bindings/node/simdformer.node" "$addon"
  strip --strip-unneeded "$addon"
  echo "  $addon rebuilt with SIMDFORMER_SPIN_WINDOW_US=0"
done
echo "build/dist-sleeping (wasm threads build and addons with SIMDFORMER_SPIN_WINDOW_US=0)"
