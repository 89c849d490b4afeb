#!/usr/bin/env bash
# The checklist's first comparison in one clock state: `trainsim-calibrate gemm` and torch.matmul
# on the largest GEMM back to back, after 15 s of GEMMs have brought the GPU to the clock it holds
# under its power limit. Writes under OUT: log.txt, smi.csv, profile.json, matmul.json.
source "$(dirname "$0")/gpu_common.sh" "$@"
gpu=h100-sxm
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in *H200*) gpu=h200 ;; esac
step warm-up; python3 -c "
import time, torch
a = torch.randn(16384, 16384, device='cuda', dtype=torch.bfloat16)
t = time.time()
while time.time() - t < 15:
    torch.matmul(a, a)
torch.cuda.synchronize()"
step gemm; bash .gpukit/run trainsim-calibrate gemm --scenario scenarios/default.yaml --set cluster.gpu=$gpu --reps 10 --out "$OUT/profile.json" 2>&1 | tail -4
step torch.matmul; (cd "$(dirname "$0")" && python3 -c "
import json, sys, torch, llama_step as L
out = {'device': torch.cuda.get_device_name(), 'torch': torch.__version__}
L.time_matmuls(torch.device('cuda'), out)
json.dump(out, open(sys.argv[1], 'w'), indent=1)" "$OUT/matmul.json")
step gemm again; bash .gpukit/run trainsim-calibrate gemm --scenario scenarios/default.yaml --set cluster.gpu=$gpu --reps 10 --out "$OUT/profile-2.json" 2>&1 | tail -2
gpu_end
