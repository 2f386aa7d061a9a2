#!/usr/bin/env bash
# Builds tiles.c as stand-alone wasm modules (clang-19: Debian's Emscripten 3.1.6 cannot emit
# relaxed SIMD) for every tile shape R x P below, with mul + add and with relaxed_madd, into
# build/relaxed_f32/tiles_RxP_{0,1}.wasm for run.mjs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/relaxed_f32"; mkdir -p "$out"
for shape in ${TILES:-2x2 2x3 3x2 4x1 4x2}; do
  r=${shape%x*} p=${shape#*x}
  for madd in 0 1; do
    clang-19 --target=wasm32 -O2 -msimd128 -mrelaxed-simd -nostdlib -DMADD=$madd -DR=$r -DP=$p \
      -c "$ROOT/bench/experiments/relaxed_f32/tiles.c" -o "$out/tiles.o"
    wasm-ld-19 --no-entry --import-memory --initial-memory=65536 -z stack-size=0 --strip-all "$out/tiles.o" \
      -o "$out/tiles_${shape}_$madd.wasm"
  done
done
ls "$out"/*.wasm
