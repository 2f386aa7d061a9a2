#!/usr/bin/env bash
# Issue 29, small-M f32 GEMM (5 and 23 rows: short texts): today's kernels/gemm.cpp against the
# candidates of small_m_variants.inc (and two cache hypotheses), all wasm SIMD128 builds timed
# interleaved in one Node process by bench/experiments/gemm-ab.mjs (paired per-round ratios to
# the first variant, `today`). Every candidate keeps each element's sequence of operations, so the
# checksums must match: this script fails if they do not. Run on an idle machine:
#   bash bench/experiments/gemm_ab/small_m.sh [rounds]          (default 41 rounds)
# Variants (build/gemm_ab/*.cjs; the generated sources are build/gemm_ab/gemm_*.cpp):
#   today      src/simdformer/kernels/gemm.cpp as of SMALL_M_BASE (default ab68a56)
#   branch     the working tree's src/simdformer/kernels/gemm.cpp (on main today's kernel again:
#              chunk128 was not adopted, SMALL_M.md; a second control beside today2)
#   order      4-row tiles first when kc <= 768, short tiles first above (variant 1)
#   chunk128   k-chunked interleave inside a panel group, 128 k-steps per chunk (variant 2)
#   chunk256   the same, 256 k-steps
#   merged128  chunk128 plus one 5-8-row tile for the last 4-row tile + tail rows, one vector of the
#              panel at a time (variant 3)
#   merged5x2  merged128, but the 5-row tile (tail of 1 row: M = 5) spans 2 panels, one vector of
#              each at a time (10 accumulators): two weight streams at once (variant 4)
#   pad        today's kernel with panels 64 bytes apart more (panel stride k * 32 + 64 bytes instead
#              of a multiple of 4096 bytes): does 4K aliasing of the panel streams cost anything?
#   mc64       today's kernel with kMc = 64 (A block 192 KiB at kc 768): is the 512 KiB A block too
#              big for a 512 KiB-1 MiB L2 at 128 rows?
# Built only when named in SMALL_M_ONLY (spills.sh showed them worse, statically):
#   nounroll   today's kernel with clang's unrolling of the micro-kernel's k loop disabled (clang
#              does not unroll it at -O3 anyway: same code as today)
#   cunroll2/4 today's kernel with the k loop unrolled 2 / 4 times by clang, to keep V8 from
#              unrolling it again: more SIMD stack accesses, not fewer (spills.sh).
# V8 (TurboFan, node 20) unrolls small wasm loops itself, up to 5 times, and its unrolled
# tile<1,4> (1 row x 4 panels: 8 accumulators + 8 B loads per k-step) keeps about 3 SIMD values
# per k-step on the stack, none with --no-wasm-loop-unrolling (spills.sh). What that costs:
# SMALL_M_NODE_FLAGS=--no-wasm-loop-unrolling bash .../small_m.sh, against a run without it.
# Set SMALL_M_ONLY="today chunk128" to build and run a subset. Bit-identity beyond these shapes:
# bitcheck.sh (native, every arch, edge cases). Adopting the winner in gemm.cpp: chunk128 is
# gemm.cpp of b82af63 (kChunk = 128, kChunkRows = 32; not adopted, SMALL_M.md); chunk256 is kChunk = 256; order, merged128
# and merged5x2 are the run_group (and tiles) of small_m_variants.inc under their SMALL_M_VARIANT;
# pad and mc64 are the one-line edits in the python below (pad changes the packed layout, which
# gemv.cpp and pack_b_ranges.cpp also read: adopting it means changing those too).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
HERE="$ROOT/bench/experiments/gemm_ab"
out="$ROOT/build/gemm_ab"; mkdir -p "$out"
# "today" is gemm.cpp as of SMALL_M_BASE (default ab68a56, the kernel before any of these
# candidates; every variant is generated from it); "branch" is the working tree's gemm.cpp.
src="$out/gemm_today.cpp"
git -C "$ROOT" show "${SMALL_M_BASE:-ab68a56}:src/simdformer/kernels/gemm.cpp" > "$src"

# gemm.cpp with run_group replaced by small_m_variants.inc; and the two one-constant variants.
python3 - "$src" "$HERE/small_m_variants.inc" "$out" <<'PY'
import sys
src, inc, out = sys.argv[1:4]
s = open(src).read()
start = s.index('// Panels [jg, jg + gp) (gp <= kGroup) of one block.')
end_mark = '        for (size_t i = 0; i < full; i += 4) tile<4, 1>(tile_args(b, ep, i, jp), ep);\n}\n'
end = s.index(end_mark, start) + len(end_mark)
open(f'{out}/gemm_small_m.cpp', 'w').write(s[:start] + open(inc).read() + s[end:])

def edit(text, pairs):
    for old, new in pairs:
        assert old in text, f'gemm.cpp changed, update small_m.sh: {old!r}'
        text = text.replace(old, new)
    return text
pad = edit(s, [
    ('constexpr size_t kMc = 128;', 'constexpr size_t kPanelPad = 16;  // floats between panels (small_m.sh: 4K aliasing test)\nconstexpr size_t kMc = 128;'),
    ('return (n + kNr - 1) / kNr * kNr * k;', 'return (n + kNr - 1) / kNr * (kNr * k + kPanelPad);'),
    ('float* dst = packed + jp * k * kNr;', 'float* dst = packed + jp * (k * kNr + kPanelPad);'),
    ('t.panel = b.packed_b + (jp * b.k + b.pc) * kNr;', 't.panel = b.packed_b + jp * (b.k * kNr + kPanelPad) + b.pc * kNr;'),
    ('t.panel_stride = b.k * kNr;', 't.panel_stride = b.k * kNr + kPanelPad;'),
])
open(f'{out}/gemm_pad.cpp', 'w').write(pad)
open(f'{out}/gemm_mc64.cpp', 'w').write(edit(s, [('constexpr size_t kMc = 128;', 'constexpr size_t kMc = 64;')]))
for name, pragma in (('nounroll', 'unroll(disable)'), ('cunroll2', 'unroll_count(2)'), ('cunroll4', 'unroll_count(4)')):
    open(f'{out}/gemm_{name}.cpp', 'w').write(edit(s, [(
        '    for (; bp != b_end; ap += R, bp += kNr) {\n',
        f'#pragma clang loop {pragma}\n    for (; bp != b_end; ap += R, bp += kNr) {{\n')]))
PY

declare -A flags=(
  [order]="-DSMALL_M_VARIANT=1" [chunk128]="-DSMALL_M_VARIANT=2 -DSMALL_M_CHUNK=128"
  [chunk256]="-DSMALL_M_VARIANT=2 -DSMALL_M_CHUNK=256" [merged128]="-DSMALL_M_VARIANT=3 -DSMALL_M_CHUNK=128"
  [merged5x2]="-DSMALL_M_VARIANT=4 -DSMALL_M_CHUNK=128")
names=(${SMALL_M_ONLY:-today branch order chunk128 chunk256 merged128 merged5x2 pad mc64})
files=()
for v in "${names[@]}"; do
  case "$v" in
    today) AB_FLAGS="" bash "$HERE/build.sh" "$v" "$src" >/dev/null ;;
    branch) AB_FLAGS="" bash "$HERE/build.sh" "$v" "$ROOT/src/simdformer/kernels/gemm.cpp" >/dev/null ;;
    pad|mc64|nounroll|cunroll2|cunroll4) AB_FLAGS="" bash "$HERE/build.sh" "$v" "$out/gemm_$v.cpp" >/dev/null ;;
    *) AB_FLAGS="${flags[$v]}" bash "$HERE/build.sh" "$v" "$out/gemm_small_m.cpp" >/dev/null ;;
  esac
  files+=("$out/$v.cjs")
  # A second instance of today's build as the control: copies of one build time up to 11 % apart
  # (gemm-ab.mjs's comment), so a candidate counts only beyond today / today2's spread.
  if [ "$v" = today ]; then cp "$out/today.cjs" "$out/today2.cjs"; files+=("$out/today2.cjs"); fi
done

grep -m1 'model name' /proc/cpuinfo || true
uptime
echo "node flags: ${SMALL_M_NODE_FLAGS:-(none)}"
# MiniLM-L6 (d 384, FFN 1536, fused QKV 1152) and BERT-base (d 768, FFN 3072) at 5 and 23 rows,
# weights streamed from memory (96 MB of copies of B), and BERT at 128 rows for the large-M case.
log="$out/small_m.log"
node ${SMALL_M_NODE_FLAGS:-} "$ROOT/bench/experiments/gemm-ab.mjs" "${files[@]}" --stream 96 --bias --rounds "${1:-41}" \
  --shape 5x384x1152,5x384x1536,5x1536x384,23x384x1152,23x384x1536,23x1536x384,5x768x768,5x768x3072,5x3072x768,23x768x768,23x768x3072,23x3072x768,128x768x768 \
  | tee "$log"
uptime
# Bit-identity: within each shape every variant's checksum must equal the first one's.
awk -f "$HERE/same_bits.awk" "$log"
