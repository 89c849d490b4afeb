#!/usr/bin/env bash
# trainsim-calibrate's exit codes and messages; needs no GPU (a build with CUDA or without it).
# usage: calibrate_cli_test.sh TRAINSIM_CALIBRATE SOURCE_DIR
set -u
bin=$1
src=$2
data=$2/tests/data/nccl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
source "$(dirname "$0")/expect.sh"
expect 0 "import-nccl-tests" -- "$bin" --help
expect 0 "imported 6 sizes (6 rows) from 2 log(s)" -- "$bin" import-nccl-tests "$data/all_reduce_8gpu.log" \
  "$data/reduce_scatter_perf.json" --out "$tmp/p.json"
expect 0 '"format": "trainsim-calibration"' -- cat "$tmp/p.json"
# One profile, one GPU: an A100's log beside an H100's is refused, nothing written.
expect 2 "measured on different GPUs .NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3: A100 against H100" -- "$bin" \
  import-nccl-tests "$data/all_reduce_8gpu.log" "$data/all_gather_perf_2nodes_noroot.log" --out "$tmp/mixed.json"
expect 1 "No such file" -- cat "$tmp/mixed.json"
expect 2 'p.json: holds samples measured on "NVIDIA H100 80GB HBM3", these are measured on "NVIDIA A100-SXM4-80GB" .H100 against A100' -- "$bin" import-nccl-tests \
  "$data/all_gather_perf_2nodes_noroot.log" --out "$tmp/p.json"
# Another log of the same GPU adds its sizes; the file's stay (6 + 10 all-gather sizes).
expect 0 "10 new, 0 replacing the file's, 6 of the file's kept" -- "$bin" import-nccl-tests \
  "$data/real/h100-8gpu-1node-allgather-header-xxrjun.log" --out "$tmp/p.json"
expect 0 "0 new, 4 replacing the file's, 12 of the file's kept" -- "$bin" import-nccl-tests \
  "$data/all_reduce_8gpu.log" --out "$tmp/p.json"
expect 2 "the log lists 8 ranks (its \"# Rank\" lines), --ranks says 4" -- "$bin" import-nccl-tests \
  "$data/all_reduce_8gpu.log" --ranks 4 --out "$tmp/q.json"
expect 2 "--ranks: Value -3 not in range 1 to 16777216" -- "$bin" import-nccl-tests \
  "$data/all_reduce_8gpu.log" --ranks -3 --out "$tmp/q.json"
expect 2 "malformed.log:6: cannot read this result line" -- "$bin" import-nccl-tests "$data/malformed.log" --out "$tmp/q.json"
expect 2 "does not exist" -- "$bin" import-nccl-tests /no/such.log
# PyTorch profiler traces into a profile (tests/data/kineto, real HTA traces).
kin="$(dirname "$data")/kineto"
expect 0 "collectives  5 sizes from 10 NCCL kernels" -- "$bin" import-torch-trace "$kin/nccl_data.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t.json"
expect 0 '"method": "torch-trace"' -- cat "$tmp/t.json"
expect 0 "collectives  5 sizes from 5 NCCL kernels" -- "$bin" import-torch-trace "$kin/nccl_data.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t6.json" --step 6
expect 2 "no such step; the trace has ProfilerStep#4" -- "$bin" import-torch-trace "$kin/nccl_data.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t9.json" --step 9
expect 2 "no GPU kernels" -- "$bin" import-torch-trace "$kin/cpu_only_rank-34.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t.json"
expect 2 "step: expected a step .12 or ProfilerStep#12. or a window .1.2s..1.9s., got nothing" -- "$bin" import-torch-trace "$kin/nccl_data.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t9.json" --step ""
expect 2 "1e300s is past any trace" -- "$bin" import-torch-trace "$kin/nccl_data.json.gz" --scenario "$src/scenarios/default.yaml" --out "$tmp/t9.json" --step 0s..1e300s
# collectives: its arguments checked before any GPU is looked for (none here).
expect 2 "iters: Value 0 not in range" -- "$bin" collectives --iters 0
expect 2 "gpus: Value -3 not in range" -- "$bin" collectives --gpus -3
expect 2 "max-bytes 512B: at least 1 KiB" -- "$bin" collectives --max-bytes 512B
# Real logs (tests/data/nccl/real): the op from the bus factor; repeated sizes merged; --op.
real="$data/real"
expect 0 "11 repeated sizes merged" -- "$bin" import-nccl-tests "$real/h100-16gpu-2node-allreduce-noheader-ztan.log" \
  "$real/h100-16gpu-2node-allreduce-srun-prefix-nccltests-issue290.log" --out "$tmp/r.json"
expect 2 "all_gather or alltoall; give --op" -- "$bin" import-nccl-tests "$real/a100-8gpu-1node-alltoall-oldformat-superbench.log" --out "$tmp/r.json"
expect 0 "29 sizes of alltoall over 8 ranks (operation from the --op)" -- "$bin" import-nccl-tests "$real/a100-8gpu-1node-alltoall-oldformat-superbench.log" --op alltoall --out "$tmp/a100.json"
expect 0 "10 the scenario runs" -- "$bin" gemm --scenario "$2/scenarios/default.yaml" --dry-run
expect 0 "4096×28672×4096        mlp_up" -- "$bin" gemm --scenario "$2/scenarios/default.yaml" --dry-run
expect 2 "must equal the GPU count" -- "$bin" gemm --scenario "$2/scenarios/default.yaml" --set parallelism.tp=3 --dry-run
expect 2 "does not exist" -- "$bin" gemm --scenario /no/such.yaml --dry-run
expect 2 "does not exist" -- "$bin" validate --scenario "$2/scenarios/default.yaml" --profile /no/such.json
echo '{"format": "trainsim-calibration", "version": 1}' >"$tmp/empty.json"
# A file that is not a profile is named by the flag that gave it, before any GPU is looked for.
echo '{"x": 1}' >"$tmp/obj.json"
expect 2 "--profile $tmp/obj.json: calibration: .*not a trainsim calibration profile" -- "$bin" validate --scenario "$2/scenarios/default.yaml" --profile "$tmp/obj.json"
# A build without CUDA (importers only) refuses every measuring command in one line.
if "$bin" device 2>&1 | grep -q "this build has no CUDA"; then
  for cmd in device "gemm --scenario $2/scenarios/default.yaml" collectives \
             "validate --scenario $2/scenarios/default.yaml --profile $tmp/empty.json"; do
    expect 2 "this build has no CUDA" -- "$bin" $cmd
  done
  if [ $fail = 0 ]; then echo "calibrate cli (no CUDA): all checks passed"; fi
  exit $fail
fi
# A pipeline replay runs one GPU per pipeline rank with tp = 1 (checked before looking for GPUs).
expect 2 "the scenario's pipeline has parallelism.pp = 4 ranks" -- "$bin" validate \
  --scenario "$2/scenarios/default.yaml" --profile "$tmp/empty.json" --gpus 3
expect 2 "a pipeline replay runs tp = 1" -- "$bin" validate --scenario "$2/scenarios/default.yaml" \
  --profile "$tmp/empty.json" --gpus 4 --set parallelism.dp=1 --set parallelism.tp=2
expect 2 "expected at least 1" -- "$bin" validate --scenario "$2/scenarios/default.yaml" \
  --profile "$tmp/empty.json" --gpus 0
# FP8 GEMMs are not replayed (cuBLASLt bf16/fp16 only): refused before looking for GPUs.
expect 2 "validate replays GEMMs in bf16/fp16 only" -- "$bin" validate \
  --scenario "$2/scenarios/default.yaml" --profile "$tmp/empty.json" --set training.precision=fp8
# Under mpirun (a build with MPI): each process drives one GPU, and a failing rank ends the
# whole job with its exit code instead of leaving the others waiting.
if "$bin" collectives --help | grep -q "under mpirun" && command -v mpirun >/dev/null; then
  run_mpi=(mpirun --oversubscribe -np 2 -x "ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0")
  [ "$(id -u)" = 0 ] && run_mpi+=(--allow-run-as-root)
  expect 2 "under mpirun each process drives one GPU" -- timeout 120 "${run_mpi[@]}" "$bin" collectives --gpus 2
fi
# The GPU commands: a GPU machine describes its GPUs (the measuring commands are left to the
# [gpu] tests and the issue's runs: they take minutes); any other says so in one line, exit 2.
# (CUDA's runtime needs ASan's shadow gap unprotected when this runs under the sanitizers.)
export ASAN_OPTIONS=protect_shadow_gap=0:${ASAN_OPTIONS:-}
out=$("$bin" device 2>&1)
code=$?
if [ $code = 0 ] && grep -q "compute capability" <<<"$out"; then
  echo "ok: device -> 0 (a GPU is here)"
elif [ $code = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "no CUDA device available" <<<"$out"; then
  echo "ok: device -> 2 (no GPU here: $out)"
  for cmd in "gemm --scenario $2/scenarios/default.yaml" "collectives" \
             "validate --scenario $2/scenarios/default.yaml --profile $tmp/empty.json" \
             "validate --scenario $2/scenarios/default.yaml --profile $tmp/empty.json --gpus 4"; do
    out=$($bin $cmd 2>&1)
    code=$?
    if [ $code = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "no CUDA device available" <<<"$out"; then
      echo "ok: ${cmd%% *} -> 2 without a GPU"
    else
      echo "FAIL: ${cmd%% *} without a GPU -> exit $code, output:"; echo "$out" | head; fail=1
    fi
  done
else
  echo "FAIL: device -> exit $code, output:"; echo "$out" | head; fail=1
fi
if [ $fail = 0 ]; then echo "calibrate cli: all checks passed"; fi
exit $fail
