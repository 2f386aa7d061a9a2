#!/usr/bin/env bash
# Builds the Node-API addon from source into dist/prebuilds/<platform>/ (npm run build:native), for
# this machine's platform: the package ships linux-x64-gnu, and any other platform (another libc,
# arm64, macOS) can build its own here. Needs a C++17 compiler, CMake, Ninja, xsimd (scripts/setup.sh
# core) and the npm devDependencies node-addon-api + node-api-headers (scripts/setup.sh npm).
# On x86-64 it builds three levels: the baseline (SSE2, preset native-addon), AVX2 + FMA (preset
# native-addon-avx2) and AVX-512 (native-addon-avx512), only their addon targets here;
# dist/node/native.mjs picks one at run time.
# Elsewhere only the baseline is built. Run after the package build (scripts/build-package.sh calls
# it), or on its own when dist/ is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="${JOBS:-$(nproc)}"
bash scripts/setup.sh core npm
tag=$(node --input-type=module -e "import('./bindings/js/node/native.mjs').then((m) => console.log(m.platformTag()))")
out="dist/prebuilds/$tag"
mkdir -p "$out"
cmake --preset native-addon >/dev/null
cmake --build --preset native-addon -j "$JOBS" >/dev/null
cp build/native-addon/bindings/node/simdformer.node "$out/simdformer.node"
if [ "$(uname -m)" = "x86_64" ]; then
  for level in avx2 avx512; do
    cmake --preset "native-addon-$level" >/dev/null
    cmake --build --preset "native-addon-$level" -j "$JOBS" --target simdformer_node >/dev/null
    cp "build/native-addon-$level/bindings/node/simdformer.node" "$out/simdformer-$level.node"
  done
fi
strip --strip-unneeded "$out"/*.node
echo "addon built: $(cd "$out" && echo *.node) in $out ($(du -sh "$out" | cut -f1))"
