#!/usr/bin/env bash
# A lent GPU's call for three kernel costs no public measurement gives (kernel_probe.py):
# FlashAttention-2 with dropout 0.1 against none, the fp32-accumulating weight-gradient GEMM
# against the bf16 one, and cuDNN's fused attention beside FlashAttention-2. About 3 minutes.
# Writes under OUT: log.txt, smi.csv, kernel-probe.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step kernel probe
timeout 420 python3 calibrate/reference/kernel_probe.py --out "$OUT" || echo "FAILED: kernel probe"
gpu_end
