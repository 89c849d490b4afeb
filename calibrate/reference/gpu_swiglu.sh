#!/usr/bin/env bash
# The op-by-op SwiGLU on one GEMM's chunked halves against two contiguous tensors
# (kernel_probe.py --only swiglu_layout), one call. Writes under OUT: log.txt, smi.csv,
# kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
step swiglu layout
timeout 150 python3 calibrate/reference/kernel_probe.py --out "$OUT" --only swiglu_layout || echo "FAILED: swiglu layout"
gpu_end
