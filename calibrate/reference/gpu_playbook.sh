#!/usr/bin/env bash
# The Ultra-Scale Playbook's 1B and 3B models, one data-parallel rank's whole step on one GPU
# (calibrate/reference/playbook-1b-1gpu.yaml, playbook-3b-1gpu.yaml): every layer, the tied
# embedding and LM head, 16 micro-batches of 2 × 4,096 tokens, nanotron's fp32 gradient
# accumulator, fused AdamW; plain PyTorch ops with torch's FlashAttention-2 (nanotron's Triton
# RMSNorm and flash-attn kernels are not installed there). Writes under OUT: log.txt, smi.csv,
# <case>/reference.json, and trace.json.gz for the 1B at two micro-batches a step. With a second
# argument `fused`, only the 1B again with RMSNorm and the rotary embedding as generated fused
# kernels (--fused-norm-rope; calibrate/reference/playbook-1b-fused-1gpu.yaml), the rest op by op,
# and the plain 1B step once more. With `nanotron`, the 1B and 3B with those fused kernels and
# nanotron's hidden-state layout and copies around attention (--nanotron-layout;
# playbook-1b-nanotron-1gpu.yaml, playbook-3b-nanotron-1gpu.yaml), a trace of the 1B.
source "$(dirname "$0")/gpu_common.sh" "$1"
step nvidia-smi; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv
run() {  # case arch layers micro timeout [extra]
  step "$1"
  timeout "$5" python3 calibrate/reference/llama_step.py --out "$OUT/$1" --arch "$2" --layers "$3" \
    --batch 2 --seq 4096 --micro "$4" --fp32-accum --no-kernels "${@:6}"
}
if [ "${2:-}" = nanotron ]; then
  run playbook-1b-nanotron playbook-1b 16 16 150 --no-trace --steps 3 --fused-norm-rope --nanotron-layout
  run playbook-1b-nanotron-trace playbook-1b 16 2 120 --steps 4 --fused-norm-rope --nanotron-layout
  run playbook-3b-nanotron playbook-3b 28 16 200 --no-trace --steps 3 --fused-norm-rope --nanotron-layout
elif [ "${2:-}" = fused ]; then
  run playbook-1b-fused playbook-1b 16 16 200 --no-trace --steps 3 --fused-norm-rope
  run playbook-1b-fused-trace playbook-1b 16 2 150 --steps 4 --fused-norm-rope
  run playbook-1b-repeat playbook-1b 16 16 100 --no-trace --steps 3
else
  run playbook-1b playbook-1b 16 16 150 --no-trace --steps 3
  run playbook-1b-trace playbook-1b 16 2 120 --steps 4
  run playbook-3b playbook-3b 28 16 200 --no-trace --steps 3
fi
gpu_end
