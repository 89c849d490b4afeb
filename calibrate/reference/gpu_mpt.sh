#!/usr/bin/env bash
# A lent GPU's third call: four-layer MPT-13B, -7B and -760m steps (llm-foundry's benchmark
# shapes and micro-batches, calibrate/reference/mpt-*-4l-1gpu.yaml) in eager PyTorch, each with
# its trace. Writes under OUT: log.txt, smi.csv, <arch>/reference.json and trace.json.gz.
source "$(dirname "$0")/gpu_common.sh" "$@"
for spec in "mpt-13b 2" "mpt-7b 6" "mpt-760m 24"; do
  set -- $spec
  step "$1" batch "$2"
  timeout 120 python3 calibrate/reference/llama_step.py --out "$OUT/$1" --arch "$1" --batch "$2" \
    --seq 2048 --micro 2 --no-kernels
done
gpu_end
