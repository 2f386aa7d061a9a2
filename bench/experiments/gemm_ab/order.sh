#!/usr/bin/env bash
# Issue 29, small-M GEMM: does the order of the tiles inside a panel group decide how much of the
# weights' streaming from memory overlaps with arithmetic? kernels/gemm.cpp runs the short tiles
# of the last rows first (they stream 2 or 4 panels at once, at one or two rows of arithmetic per
# panel byte), then the 4-row tiles from cache; the variant built here runs the 4-row tiles first
# (the first one streams each panel with 4 rows of arithmetic per load, in memory order) and the
# short tiles after, from L2. Same operations per element, so the results are bit-identical
# (the checksums printed must match). Run on an idle machine:
#   bash bench/experiments/gemm_ab/order.sh [rounds]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$ROOT/build/gemm_ab"; mkdir -p "$out"
python3 - "$ROOT/src/simdformer/kernels/gemm.cpp" "$out/gemm_full_rows_first.cpp" <<'PY'
import sys
s = open(sys.argv[1]).read()
short = '''    for (size_t i = full; i < b.mc;) {
        const size_t rows = tile_rows_at(i, b.mc), width = tile_panels(rows);
        for (size_t jp = jg; jp < jg + gp;)
            jp += run_tile(rows, std::min(width, jg + gp - jp), tile_args(b, ep, i, jp), ep);
        i += rows;
    }
'''
full = '''    for (size_t jp = jg; jp < jg + gp; ++jp)
        for (size_t i = 0; i < full; i += 4) tile<4, 1>(tile_args(b, ep, i, jp), ep);
'''
assert short + full in s, "run_group changed: update this script"
open(sys.argv[2], 'w').write(s.replace(short + full, full + short))
PY
bash "$ROOT/bench/experiments/gemm_ab/build.sh" short_first >/dev/null
bash "$ROOT/bench/experiments/gemm_ab/build.sh" full_first "$out/gemm_full_rows_first.cpp" >/dev/null
uptime
# MiniLM-L6 (d 384, FFN 1536, fused QKV 1152) and BERT-base (d 768, FFN 3072) at 5 and 23 rows,
# weights streamed from memory (96 MB of copies), and BERT at 128 rows for the large-M case.
node "$ROOT/bench/experiments/gemm-ab.mjs" "$out/short_first.cjs" "$out/full_first.cjs" --stream 96 --bias \
  --rounds "${1:-41}" --shape 5x384x1152,5x384x1536,5x1536x384,23x384x1152,23x384x1536,23x1536x384,5x768x768,5x768x3072,5x3072x768,23x768x768,23x768x3072,23x3072x768,128x768x768
uptime
