#!/usr/bin/env bash
# Whole small MPT models in one eager step each (llm-foundry's benchmark shapes and micro-batches,
# two micro-batches per step; calibrate/reference/mpt-125m-1gpu.yaml, mpt-350m-1gpu.yaml,
# mpt-1b-1gpu.yaml, mpt-1b-32k-1gpu.yaml): MPT-125M and
# -350M (head dim 64) at 32 × 2,048 tokens, MPT-1B at 14 × 2,048 and at 1 × 32,768 tokens, with
# torch's FlashAttention-2 in place of llm-foundry's Triton kernel. Writes under OUT: log.txt,
# smi.csv, <case>/reference.json, and trace.json.gz for mpt-125m and mpt-1b-s32768.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
run() {  # case arch layers batch seq [extra]
  step "$1"
  timeout 150 python3 calibrate/reference/llama_step.py --out "$OUT/$1" --arch "$2" --layers "$3" \
    --batch "$4" --seq "$5" --micro 2 --no-kernels "${@:6}"
}
run mpt-125m mpt-125m 12 32 2048
run mpt-1b-s32768 mpt-1b 24 1 32768
run mpt-350m mpt-350m 24 32 2048 --no-trace
run mpt-1b-s2048 mpt-1b 24 14 2048 --no-trace
gpu_end
