#!/usr/bin/env bash
# A lent GPU's seventh call: what FSDP adds to a step besides its NCCL kernels (fsdp_step.py: one
# rank of an 8- or 64-rank FULL_SHARD job under PyTorch's fake process group, beside the same
# layers plain), and long-context attention with context-parallel blocks (llama_step.py
# --long-attention). Writes under OUT: log.txt, smi.csv, <case>/reference.json (+ trace.json.gz).
source "$(dirname "$0")/gpu_common.sh" "$@"
run() {
  local name=$1; shift
  step "$name"
  timeout 120 python3 calibrate/reference/fsdp_step.py --out "$OUT/$name" "$@" || echo "FAILED: $name"
}
run mpt13b-plain --arch mpt-13b --fsdp none
run mpt13b-fsdp1-w8-fp32 --arch mpt-13b --fsdp 1 --world 8 --reduce fp32 --trace
run mpt13b-fsdp1-w64-fp32 --arch mpt-13b --fsdp 1 --world 64 --reduce fp32
run mpt13b-fsdp1-w8-bf16 --arch mpt-13b --fsdp 1 --world 8 --reduce bf16
run llama8b-plain --arch llama-3.1-8b --fsdp none --seq 4096 --batch 1
run llama8b-fsdp1-w8-bf16 --arch llama-3.1-8b --fsdp 1 --world 8 --reduce bf16 --seq 4096 --batch 1 --orig-params --trace
run llama8b-fsdp2-w8-fp32 --arch llama-3.1-8b --fsdp 2 --world 8 --reduce fp32 --seq 4096 --batch 1 --trace
[ -n "${SKIP_LONG:-}" ] || { step long attention
timeout 150 python3 calibrate/reference/llama_step.py --out "$OUT/long-attention" --long-attention || echo "FAILED: long attention"; }
gpu_end
