#!/usr/bin/env bash
# Runs every libFuzzer harness for SECONDS each (default 60) with its seed corpus from
# scenarios/, tests/published/ and tests/data/; fails on the first crash, hang (-timeout), leak
# or out-of-memory, and prints executions, executions per second and the corpus each reached.
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]      (BUILD_DIR from `cmake --preset fuzz`)
set -euo pipefail
build=$(cd "$1" && pwd)
seconds=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
findings=$build/fuzz-findings  # crashing inputs are kept here (and printed in base64)
mkdir -p "$findings"

seeds() {  # seeds NAME FILES…: a fresh corpus folder for harness NAME
  mkdir -p "$work/$1"
  shift_name=$1
  shift
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$work/$shift_name/$(basename "$f")"; done
  return 0
}
seeds scenario "$src"/scenarios/*.yaml "$src"/tests/published/*.yaml "$src"/tests/data/bad-inputs/*.yaml
seeds hf_config "$src"/tests/data/*_config.json
seeds profile "$src"/tests/data/*profile*.json "$src"/tests/fuzz/seeds/*.json
seeds csv "$src"/tests/data/*.csv "$src"/tests/data/bad-inputs/*.csv
seeds nccl_tests "$src"/tests/data/nccl/* "$src"/tests/data/nccl/real/*.log "$src"/tests/data/bad-inputs/*.log "$src"/tests/data/bad-inputs/*.json
seeds torch_trace "$src"/tests/fuzz/seeds/*kineto*.json "$src"/tests/data/kineto/cpu_only_rank-34.json.gz

total=0
status=0
printf '%-12s %12s %10s %8s\n' harness executions exec/s corpus
for name in scenario hf_config profile csv nccl_tests torch_trace; do
  log="$work/$name.log"
  # The scratch files a harness writes go to its own TMPDIR; findings are saved to $work.
  if ! (cd "$work" && TMPDIR="$work" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$build/tests/fuzz/${name}_fuzz" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$findings/$name-" \
        "$work/$name" >"$log" 2>&1); then
    echo "FAIL: ${name}_fuzz found a problem:"
    grep -E "ERROR|fuzz finding|SUMMARY|Test unit written|terminate|what\(\)" "$log" | head -n 20 || tail -n 40 "$log"
    for a in "$findings/$name"-*; do [ -f "$a" ] && { echo "--- input $a (base64):"; base64 "$a" | head -c 2000; echo; }; done
    status=1
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  corpus=$(ls "$work/$name" | wc -l)
  printf '%-12s %12s %10s %8s\n' "$name" "$runs" "$speed" "$corpus"
  total=$((total + runs))
done
echo "fuzz: $total executions in all, ${seconds} s per harness"
exit $status
