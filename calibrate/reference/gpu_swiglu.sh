#!/usr/bin/env bash
# The op-by-op SwiGLU on one GEMM's chunked halves against two contiguous tensors
# (kernel_probe.py --only swiglu_layout), one call; PROBES="nanotron_layout" (or several, space
# separated) runs those probes instead. Writes under OUT: log.txt, smi.csv, kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
probes=${PROBES:-swiglu_layout}
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
step "$probes"
# shellcheck disable=SC2086  # one word per probe
timeout 150 python3 calibrate/reference/kernel_probe.py --out "$OUT" --only $probes || echo "FAILED: $probes"
gpu_end
