#!/usr/bin/env bash
# A lent GPU's fourth call: FP8 against bf16 GEMM time over a grid of shapes (fp8_gemm.py), and
# the Llama reference step at 16,384 tokens. Writes under OUT: log.txt, smi.csv, fp8_gemm.json,
# s16384/reference.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step fp8 gemm; timeout 240 python3 calibrate/reference/fp8_gemm.py --out "$OUT"
step reference step 16384; timeout 100 python3 calibrate/reference/llama_step.py --out "$OUT/s16384" --seq 16384 --micro 1 --no-trace --no-kernels
gpu_end
