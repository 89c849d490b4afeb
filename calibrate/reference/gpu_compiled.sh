#!/usr/bin/env bash
# A lent GPU's second call (after gpu_session.sh): SDPA FlashAttention over sequence lengths and
# head dims as the FlashAttention-2 paper benchmarks it, the reference step under torch.compile
# (fused memory-bound kernels, a higher share of GEMM time) with its trace, and the eager step
# again (run-to-run spread). Writes under OUT: log.txt, smi.csv, attention/reference.json,
# reference.json + trace.json.gz (compiled), eager/reference.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv
step attention sweep; timeout 90 python3 calibrate/reference/llama_step.py --out "$OUT/attention" --attention-sweep
step compiled step 4096; timeout 330 python3 calibrate/reference/llama_step.py --out "$OUT" --compile --no-kernels
step eager step 4096 again; timeout 80 python3 calibrate/reference/llama_step.py --out "$OUT/eager" --no-trace --no-kernels
gpu_end
