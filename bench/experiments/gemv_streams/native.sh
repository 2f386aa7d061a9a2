#!/bin/bash
# Builds native.cpp and prints this core's native read rates (1 and 2 threads, with and without a
# prefetch) for buffers of 128 MB and 2 GB: the ceiling the wasm GEMV's rate (run.sh) compares to.
set -euo pipefail
cd "$(dirname "$0")"
out=../../../build/gemv_streams
mkdir -p "$out"
g++ -O2 -std=c++17 -pthread native.cpp -o "$out/native"
for mb in 128 2048; do "$out/native" "$mb"; done
