#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time, starting
# from the committed seed corpus (copied, so the repository's corpus is never modified).
#   scripts/fuzz.sh [seconds per target, default 60]      e.g. scripts/fuzz.sh 3600 for a long run
# Prints "fuzz_<name>: N executions, OK" per target; exits non-zero on any crash, leak or timeout.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-60}"
cmake --preset fuzz >/dev/null && cmake --build --preset fuzz > build/fuzz.build.log 2>&1 || { tail -30 build/fuzz.build.log; exit 1; }
status=0
for name in load api; do
  work="build/fuzz/run-$name"
  rm -rf "$work" && mkdir -p "$work/corpus" && cp tests/fuzz/corpus/$name/* "$work/corpus/"
  log="$work/fuzz.log"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build/fuzz/tests/fuzz/fuzz_$name" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" > "$log" 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "fuzz_$name: FAILED after ${execs:-?} executions (exit $rc)"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20
  else
    echo "fuzz_$name: ${execs:-0} executions, OK"
  fi
done
exit $status
