#!/usr/bin/env bash
# The same checks on an H200 (one call): the Llama reference step at 4,096 tokens with its trace,
# the MPT-13B step, FP8 against bf16 GEMM time, FlashAttention-2's sweep. Writes under OUT:
# log.txt, smi.csv, reference.json + trace.json.gz, mpt-13b/reference.json, fp8_gemm.json,
# attention/reference.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
step reference step 4096; timeout 120 python3 calibrate/reference/llama_step.py --out "$OUT" --no-kernels
step mpt-13b; timeout 90 python3 calibrate/reference/llama_step.py --out "$OUT/mpt-13b" --arch mpt-13b --batch 2 --seq 2048 --micro 2 --no-trace --no-kernels
step fp8 gemm; timeout 150 python3 calibrate/reference/fp8_gemm.py --out "$OUT"
step attention sweep; timeout 90 python3 calibrate/reference/llama_step.py --out "$OUT/attention" --attention-sweep
gpu_end
