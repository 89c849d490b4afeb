#!/usr/bin/env python3
"""FP8 against bf16 GEMM time on one GPU, shape by shape: the data behind trainsim's
`training.precision: fp8` (FP8 GEMM time = the bf16 GEMM's × the measured ratio at its shape).

bf16: torch.matmul (cuBLASLt), bf16 in and out. FP8: torch._scaled_mm, e4m3 operands with
per-tensor scales (Transformer Engine's delayed scaling runs the same cuBLASLt FP8 GEMM), bf16
out. Both on random data, the two dtypes of a shape timed back to back (same thermal state),
3 warm-up and 15 timed runs each, CUDA events, median.

--fast-accum also times each FP8 GEMM with cuBLASLt's fast accumulation (`use_fast_accum=True`:
the FP8 MMA's partial sums are not promoted to FP32 every few k-steps), which Transformer Engine
uses for its forward GEMMs on Hopper (transformer_engine/pytorch/module/base.py, _2X_ACC_FPROP =
False; the input- and weight-gradient GEMMs keep the split accumulator), the columns `fp8_fast_s`,
`fp8_fast_tflops` and `fast_ratio` (its time over the bf16 time) beside the default ones.

Usage (on a GPU machine with PyTorch): python3 calibrate/reference/fp8_gemm.py --out DIR
Writes DIR/fp8_gemm.json.
"""
import argparse
import json
import os
import statistics
import sys

import torch

M = (2048, 4096, 8192, 16384)
N = (1024, 4096, 8192, 16384, 28672, 57344)
K = (1024, 4096, 8192, 16384)


def timed(fn, reps):
    for _ in range(3):
        fn()
    out = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / 1e3)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--fast-accum", action="store_true",
                    help="also time FP8 with use_fast_accum=True (TE's forward GEMMs on Hopper)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    res = {"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda,
           "script": "calibrate/reference/fp8_gemm.py", "fp8": "e4m3, per-tensor scales, bf16 out",
           "fast_accum": args.fast_accum,
           "rows": []}
    fp8 = torch.float8_e4m3fn
    one = torch.ones((), device=dev, dtype=torch.float32)
    for m in M:
        for k in K:
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            a8 = a.to(fp8)
            for n in N:
                w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
                w8 = w.to(fp8)
                bt = w.t()
                row = {"m": m, "n": n, "k": k}
                try:
                    row["bf16_s"] = timed(lambda: torch.matmul(a, bt), args.reps)
                    row["fp8_s"] = timed(lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one,
                                                                  out_dtype=torch.bfloat16), args.reps)
                    fl = 2.0 * m * n * k
                    row["bf16_tflops"] = fl / row["bf16_s"] / 1e12
                    row["fp8_tflops"] = fl / row["fp8_s"] / 1e12
                    row["ratio"] = row["fp8_s"] / row["bf16_s"]
                    line = (f"{m:6d} {n:6d} {k:6d}  bf16 {row['bf16_tflops']:6.1f}  fp8 {row['fp8_tflops']:7.1f}"
                            f"  time ratio {row['ratio']:.3f}")
                    if args.fast_accum:
                        row["fp8_fast_s"] = timed(
                            lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one,
                                                     out_dtype=torch.bfloat16, use_fast_accum=True),
                            args.reps)
                        row["fp8_fast_tflops"] = fl / row["fp8_fast_s"] / 1e12
                        row["fast_ratio"] = row["fp8_fast_s"] / row["bf16_s"]
                        line += f"  fast accum {row['fp8_fast_tflops']:7.1f} ({row['fast_ratio']:.3f})"
                    print(line, flush=True)
                except Exception as e:  # noqa: BLE001 - a shape cuBLASLt refuses: recorded, skipped
                    row["error"] = str(e)[:200]
                    print(f"{m} {n} {k}: {row['error']}", flush=True)
                res["rows"].append(row)
                del w, w8, bt
            del a, a8
            torch.cuda.empty_cache()
        with open(os.path.join(args.out, "fp8_gemm.json"), "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
