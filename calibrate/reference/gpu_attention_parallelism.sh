#!/usr/bin/env bash
# A lent GPU's call for attention against the parallelism a launch offers (kernel_probe.py
# --only attention_parallelism): FlashAttention-2 and cuDNN at batch 1, 1-64 heads, 2k-16k
# tokens. About 2 minutes. Writes under OUT: log.txt, smi.csv, kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
step attention parallelism
timeout 400 python3 calibrate/reference/kernel_probe.py --out "$OUT" --only attention_parallelism || echo "FAILED: attention parallelism"
gpu_end
