#!/usr/bin/env bash
# trainsim-calibrate's exit codes and messages; needs no GPU (run only when the target is built).
# usage: calibrate_cli_test.sh TRAINSIM_CALIBRATE SOURCE_DIR
set -u
bin=$1
data=$2/tests/data/nccl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
source "$(dirname "$0")/expect.sh"
expect 0 "import-nccl-tests" -- "$bin" --help
expect 0 "imported 8 samples from 3 log(s)" -- "$bin" import-nccl-tests "$data/all_reduce_8gpu.log" \
  "$data/reduce_scatter_perf.json" "$data/all_gather_perf_2nodes_noroot.log" --out "$tmp/p.json"
expect 0 '"format": "trainsim-calibration"' -- cat "$tmp/p.json"
expect 2 "malformed.log:6: cannot read this result line" -- "$bin" import-nccl-tests "$data/malformed.log" --out "$tmp/q.json"
expect 2 "does not exist" -- "$bin" import-nccl-tests /no/such.log
# device: a GPU machine describes its GPUs, any other says so in one line and exits 2.
# (CUDA's runtime needs ASan's shadow gap unprotected when this runs under the sanitizers.)
out=$(ASAN_OPTIONS=protect_shadow_gap=0:${ASAN_OPTIONS:-} "$bin" device 2>&1)
code=$?
if [ $code = 0 ] && grep -q "compute capability" <<<"$out"; then
  echo "ok: device -> 0 (a GPU is here)"
elif [ $code = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "no CUDA device available" <<<"$out"; then
  echo "ok: device -> 2 (no GPU here: $out)"
else
  echo "FAIL: device -> exit $code, output:"; echo "$out" | head; fail=1
fi
if [ $fail = 0 ]; then echo "calibrate cli: all checks passed"; fi
exit $fail
