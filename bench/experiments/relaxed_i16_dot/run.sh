#!/bin/bash
# Builds kloops.c (clang-19 -c, then wasm-ld-19: built in one step, clang-19 produced a function
# V8 rejected) and prints each k-loop's GMAC/s in Chromium, with and without AVX-VNNI's lowering.
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/relaxed_i16_dot
mkdir -p "$out"
clang-19 --target=wasm32 -O2 -msimd128 -mrelaxed-simd -c kloops.c -o "$out/kloops.o"
wasm-ld-19 --no-entry --export-memory --initial-memory=1048576 --export=pairs --export=quads16 --export=quadsadd \
  "$out/kloops.o" -o "$out/kloops.wasm"
node measure.mjs "$out/kloops.wasm"
