#!/usr/bin/env bash
# LayerNorm and the eager RMSNorm by hidden size (kernel_probe.py --only norm_sweep), one call.
# Writes under OUT: log.txt, smi.csv, kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
step norm sweep
timeout 200 python3 calibrate/reference/kernel_probe.py --out "$OUT" --only norm_sweep || echo "FAILED: norm sweep"
gpu_end
