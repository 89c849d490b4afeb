#!/usr/bin/env bash
# A lent GPU's call for two kernel costs no public measurement gives (kernel_probe.py):
# FlashAttention-2 with dropout 0.1 against none, and the fp32-accumulating weight-gradient GEMM
# against the bf16 one. About 2 minutes. Writes under OUT: log.txt, smi.csv, kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step kernel probe
timeout 300 python3 calibrate/reference/kernel_probe.py --out "$OUT" || echo "FAILED: kernel probe"
gpu_end
