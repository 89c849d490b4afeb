#!/usr/bin/env bash
# The fp32 main gradient's cost in a real step: llama_step.py's four Llama-3.1-8B layers with
# autograd's bf16 gradients and with --main-grad (every linear layer's weight gradient added into
# an fp32 main gradient by the GEMM, as Megatron's gradient-accumulation fusion does), at 2,048
# and 8,192 tokens per micro-batch. Results: OUT/<name>/reference.json, log.txt, smi.csv.
source "$(dirname "$0")/gpu_common.sh" "$@"
run() { local name=$1; shift; step "$name"; timeout 120 python3 calibrate/reference/llama_step.py --out "$OUT/$name" --no-kernels --no-trace --steps 5 "$@" 2>&1 | grep -v Warn || echo "FAILED: $name"; }
run s2048-bf16grad --seq 2048 --micro 4
run s2048-maingrad --seq 2048 --micro 4 --main-grad
run s8192-bf16grad --seq 8192 --micro 2
run s8192-maingrad --seq 8192 --micro 2 --main-grad
gpu_end
