#!/bin/bash
# Builds tile.cpp with Debian's Emscripten and times the int8 tile's read of 85 MB of weights with
# and without reading the next block ahead, in Node 20 (BENCHMARKS.md "Session 26"). Idle machine.
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/i8_read_ahead  # inside the repository's git-ignored build/
mkdir -p "$out"
NODE_PATH=/usr/share/nodejs em++ -O3 -msimd128 tile.cpp -o "$out/tile.cjs" \
  -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB -sMODULARIZE -sEXPORTED_FUNCTIONS=_free,_malloc
node measure.mjs "$out"
