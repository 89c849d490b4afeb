#!/usr/bin/env bash
# What FSDP adds to small models' steps (fsdp_step.py: one rank of an 8-rank FULL_SHARD job under
# PyTorch's fake process group, beside the same model plain): the whole MPT-125M (12 layers) and
# MPT-350M (24 layers) at llm-foundry's micro-batch of 32 × 2,048 tokens, two micro-batches, fp32
# gradient reduction (Composer's DEFAULT mixed precision). Writes under OUT: log.txt, smi.csv,
# <case>/reference.json, the 125M FSDP run's trace.json.gz.
source "$(dirname "$0")/gpu_common.sh" "$@"
run() {
  local name=$1; shift
  step "$name"
  timeout 120 python3 calibrate/reference/fsdp_step.py --out "$OUT/$name" --batch 32 --micro 2 "$@" \
    || echo "FAILED: $name"
}
run mpt125m-plain --arch mpt-125m --layers 12 --fsdp none
run mpt125m-fsdp1-w8-fp32 --arch mpt-125m --layers 12 --fsdp 1 --world 8 --reduce fp32 --trace
run mpt350m-plain --arch mpt-350m --layers 24 --fsdp none
run mpt350m-fsdp1-w8-fp32 --arch mpt-350m --layers 24 --fsdp 1 --world 8 --reduce fp32
gpu_end
