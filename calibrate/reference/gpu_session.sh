#!/usr/bin/env bash
# One lent GPU's checks in one call (the reference step first): run from the project root on the
# GPU machine, with the build packed as .gpukit (`bash .gpukit/run X` runs its binary X; on
# another machine use build/calibrate/X or build/tests/X). Writes under OUT: log.txt, smi.csv (clocks and power every 250 ms),
# reference.json and trace.json.gz (llama_step.py at 4096 tokens), s2048/ and s8192/reference.json,
# profile.json (trainsim-calibrate gemm).
source "$(dirname "$0")/gpu_common.sh" "$@"
step nvidia-smi; nvidia-smi
step libraries; bash .gpukit/run --libs
step device; bash .gpukit/run trainsim-calibrate device
gpu=h100-sxm
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in *H200*) gpu=h200 ;; esac
echo "trainsim preset: $gpu"
step reference step 4096; timeout 200 python3 calibrate/reference/llama_step.py --out "$OUT"
step reference step 2048; timeout 90 python3 calibrate/reference/llama_step.py --out "$OUT/s2048" --seq 2048 --micro 8 --no-trace --no-kernels
step reference step 8192; timeout 90 python3 calibrate/reference/llama_step.py --out "$OUT/s8192" --seq 8192 --micro 2 --no-trace --no-kernels
step gemm; timeout 240 bash .gpukit/run trainsim-calibrate gemm --scenario scenarios/default.yaml --set cluster.gpu=$gpu --reps 10 --out "$OUT/profile.json"
step validate default; timeout 60 bash .gpukit/run trainsim-calibrate validate --scenario scenarios/default.yaml --set cluster.gpu=$gpu --profile "$OUT/profile.json"
step validate reference; timeout 60 bash .gpukit/run trainsim-calibrate validate --scenario calibrate/reference/llama-4l-1gpu.yaml --set cluster.gpu=$gpu --profile "$OUT/profile.json"
step gpu tests; timeout 90 bash .gpukit/run calibrate_gpu_tests "[gpu]"
gpu_end
