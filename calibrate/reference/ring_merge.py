#!/usr/bin/env python3
"""Ring attention's merge kernels timed on one GPU, beside what trainsim's cost model charges for
them (sim/cost/analytic.cpp, AnalyticCostModel::ring_merge: 6 bytes per element per merge, 4
for the first step, at the preset's HBM bandwidth × efficiency).

The operations are Transformer Engine's (AttnFuncWithCPAndKVP2P, context parallelism's p2p
attention): forward, per step, the block's output rescaled by exp(lse_step − lse) and added to
the running output in place; backward, per step, the block's dQ added to the running dQ and the
dK, dV to the ones arriving. Transformer Engine fuses the forward correction (jit_fuser); both
that fused form (torch.compile) and plain eager ops are timed. Shapes: one rank of
scenarios/llama3-8b-128k.yaml (131,072 tokens over cp 8, tp 4: 16,384 tokens, 8 query heads and
2 key/value heads of 128 per rank), bf16 outputs, fp32 log-sum-exps.

Usage: python3 calibrate/reference/ring_merge.py --out DIR   (writes DIR/ring_merge.json)
"""
import argparse
import json
import os
import statistics
import sys

import torch

TOKENS, HEADS, KV_HEADS, D = 16384, 8, 2, 128


def out_correction(out, out_step, lse, lse_step):
    # out: [b, s, h, d] bf16; lse: [b, h, s] fp32
    scale = torch.exp(lse_step - lse).movedim(2, 1).unsqueeze(-1)
    out.add_(out_step * scale)


def timed(fn, reps=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    ev[0].record()
    for i in range(reps):
        fn()
        ev[i + 1].record()
    torch.cuda.synchronize()
    return statistics.median(ev[i].elapsed_time(ev[i + 1]) / 1e3 for i in range(reps))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dev = torch.device("cuda")
    res = {"device": torch.cuda.get_device_name(dev), "torch": torch.__version__,
           "script": "calibrate/reference/ring_merge.py",
           "shape": {"tokens": TOKENS, "heads": HEADS, "kv_heads": KV_HEADS, "head_dim": D}}
    q_elems = TOKENS * HEADS * D
    kv_elems = TOKENS * KV_HEADS * 2 * D
    out = torch.randn(1, TOKENS, HEADS, D, device=dev, dtype=torch.bfloat16)
    step = torch.randn_like(out)
    lse = torch.randn(1, HEADS, TOKENS, device=dev, dtype=torch.float32)
    lse_step = torch.randn_like(lse)
    fused = torch.compile(out_correction)
    rows = {}
    rows["forward_correction_eager"] = timed(lambda: out_correction(out, step, lse, lse_step))
    rows["forward_correction_compiled"] = timed(lambda: fused(out, step, lse, lse_step))
    dq, dq_step = torch.randn_like(out), torch.randn_like(out)
    dkv = torch.randn(2, 1, TOKENS, KV_HEADS, D, device=dev, dtype=torch.bfloat16)
    dkv_step = torch.randn_like(dkv)
    rows["backward_dq_add"] = timed(lambda: dq.add_(dq_step))
    rows["backward_dkv_add"] = timed(lambda: dkv.add_(dkv_step))
    big = torch.empty(1 << 28, device=dev, dtype=torch.bfloat16)
    big2 = torch.empty_like(big)
    t_copy = timed(lambda: big2.copy_(big), reps=20)
    res["copy_512MiB_GBps"] = 2 * big.numel() * 2 / t_copy / 1e9
    res["seconds"] = rows
    # 6 bytes per element per merge (read both, write one, 16-bit)
    res["GBps_at_6B_per_element"] = {
        "forward_correction_eager": 6 * q_elems / rows["forward_correction_eager"] / 1e9,
        "forward_correction_compiled": 6 * q_elems / rows["forward_correction_compiled"] / 1e9,
        "backward_dq_add": 6 * q_elems / rows["backward_dq_add"] / 1e9,
        "backward_dkv_add": 6 * kv_elems / rows["backward_dkv_add"] / 1e9}
    print(json.dumps(res, indent=1), flush=True)
    with open(os.path.join(args.out, "ring_merge.json"), "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
