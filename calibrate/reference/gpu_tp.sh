#!/usr/bin/env bash
# One lent GPU's call for what tensor parallelism does to a rank's compute (and the checklist's
# profile, validation and [gpu] tests on a GPU that has none yet): four Llama-3.1-8B layers at
# 8,192 tokens × 2 micro-batches with one TP rank's shapes (llama_step.py --tp 1, 2, 4, 8: heads,
# FFN and vocabulary divided, no communication), each with its trace; `trainsim-calibrate gemm`,
# `validate` and the [gpu] tests. Writes under OUT: log.txt, smi.csv, profile.json, tp.tgz
# (tpN/reference.json and tpN/trace.json.gz).
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.max.mem --format=csv
step device; bash .gpukit/run trainsim-calibrate device
gpu=h100-sxm
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in *H200*) gpu=h200 ;; esac
echo "trainsim preset: $gpu"
for tp in 1 2 4 8; do
  step "tp $tp shapes, 8192 tokens"
  timeout 120 python3 calibrate/reference/llama_step.py --out "$OUT/tp$tp" --tp "$tp" --seq 8192 --micro 2 --no-kernels
done
(cd "$OUT" && tar czf tp.tgz tp1 tp2 tp4 tp8 && rm -rf tp1 tp2 tp4 tp8)
step gemm; timeout 240 bash .gpukit/run trainsim-calibrate gemm --scenario scenarios/default.yaml --set cluster.gpu=$gpu --reps 10 --out "$OUT/profile.json"
step validate default; timeout 60 bash .gpukit/run trainsim-calibrate validate --scenario scenarios/default.yaml --set cluster.gpu=$gpu --profile "$OUT/profile.json"
step validate reference; timeout 60 bash .gpukit/run trainsim-calibrate validate --scenario calibrate/reference/llama-4l-1gpu.yaml --set cluster.gpu=$gpu --profile "$OUT/profile.json"
step gpu tests; timeout 90 bash .gpukit/run calibrate_gpu_tests "[gpu]"
gpu_end
