#!/usr/bin/env bash
# The same on an H100 (the eighth call), without the H200's extra cases: the FSDP steps of
# MPT-13B (fp32 reduction, traced) and Llama-3.1-8B (bf16) beside the plain ones, and long-context
# attention. Results: h100-sxm-fsdp.json, h100-sxm-long-attention.json, h100-sxm-session-7.log.
source calibrate/reference/gpu_common.sh "$@"
run() { local name=$1; shift; step "$name"; timeout 100 python3 calibrate/reference/fsdp_step.py --out "$OUT/$name" "$@" 2>&1 | grep -v Warn || echo "FAILED: $name"; }
run mpt13b-plain --arch mpt-13b --fsdp none
run mpt13b-fsdp1-w8-fp32 --arch mpt-13b --fsdp 1 --world 8 --reduce fp32 --trace
run llama8b-plain --arch llama-3.1-8b --fsdp none --seq 4096 --batch 1
run llama8b-fsdp1-w8-bf16 --arch llama-3.1-8b --fsdp 1 --world 8 --reduce bf16 --seq 4096 --batch 1 --trace
step long attention
timeout 120 python3 calibrate/reference/llama_step.py --out "$OUT/long-attention" --long-attention || echo "FAILED: long attention"
gpu_end
