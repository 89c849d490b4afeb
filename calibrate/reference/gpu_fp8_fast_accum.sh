#!/usr/bin/env bash
# A lent Hopper GPU's call for the FP8 fast-accumulation question (sim/cost/fp8_gemm.h): the FP8
# against bf16 grid of fp8_gemm.py with each FP8 GEMM also timed with use_fast_accum=True, as
# Transformer Engine runs its forward GEMMs. Writes under OUT: log.txt, smi.csv, fp8_gemm.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step fp8 gemm with fast accumulation; timeout 400 python3 calibrate/reference/fp8_gemm.py --out "$OUT" --fast-accum
gpu_end
