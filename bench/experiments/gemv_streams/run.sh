#!/bin/bash
# Builds streams.cpp with Debian's Emscripten and prints each read pattern's GB/s in Node 20.
# BENCHMARKS.md "Session 17": why the GEMV and the GEMM stream 4 panels far apart in wasm.
# Time it on an idle machine: every figure is a rate of memory reads.
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/gemv_streams  # inside the repository's git-ignored build/
mkdir -p "$out"
NODE_PATH=/usr/share/nodejs em++ -O3 -msimd128 streams.cpp -o "$out/streams.cjs" \
  -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB -sMODULARIZE -sEXPORTED_FUNCTIONS=_free,_malloc
node measure.mjs "$out"
