#!/usr/bin/env python3
"""Fits sim/cost/constants.h's kAttentionTileOverhead… from kernel_probe.py's
`attention_parallelism` results: the c of x / (x + c), x a launch's query tiles (batch · heads ·
seq / 128) per SM, that best gives each measured throughput over the same series' throughput at
2,048 tiles (the papers' benchmark at head dim 128). A series is one run, kernel, mask, head dim
and sequence length. Points kept: x ≥ 1.5 (a tensor-parallel rank's launch and up), and calls
long enough that the host's share of the event-timed span is small: forwards of 0.3 ms or more,
backwards of 1 ms or more (shorter ones wait on the host between the backward's kernels). c on a 0.05 grid, least squares in log(throughput ratio).

Usage: python3 calibrate/reference/fit_attention_parallelism.py FILE.json [FILE.json ...]
(files pooled; each file's series against its own reference point). No GPU needed.
"""
import json
import math
import sys

SMS = 132  # the H100 and H200 the probes ran on


def points(rows, kernel, causal, pass_):
    out = []
    for r in rows:
        if r["kernel"] != kernel or r["causal"] != causal or "forward_s" not in r:
            continue
        x = r["heads"] * r["seq"] / 128 / SMS
        t = r["forward_s"] if pass_ == "forward" else r["forward_backward_s"] - r["forward_s"]
        if x < 1.5 or t < (1e-3 if pass_ == "backward" else 0.3e-3):
            continue
        ref = [q for q in rows if q["kernel"] == kernel and q["causal"] == causal
               and q["head_dim"] == r["head_dim"] and q["seq"] == r["seq"]
               and q["heads"] * q["seq"] / 128 == 2048 and "forward_s" in q]
        if ref:
            key = pass_ + "_tflops"
            out.append((x, r[key] / ref[0][key]))
    return out


def fit(pts):
    xr = 2048 / SMS
    best = None
    for i in range(0, 200):
        c = 0.05 * i
        m = (lambda x: (x / (x + c)) / (xr / (xr + c))) if c > 0 else (lambda x: 1.0)
        err = [math.log(m(x) / y) for x, y in pts]
        e = sum(v * v for v in err) / len(err)
        if best is None or e < best[0]:
            best = (e, c, max(abs(v) for v in err))
    return best


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = [json.load(open(f))["attention_parallelism"] for f in sys.argv[1:]]
    for kernel in ("flash2", "cudnn"):
        for causal in (True, False):
            for pass_ in ("forward", "backward"):
                pts = [p for rows in runs for p in points(rows, kernel, causal, pass_)]
                if not pts:
                    continue
                e, c, worst = fit(pts)
                print(f"{kernel:6s} {'causal' if causal else 'full  '} {pass_:8s} c = {c:.2f}"
                      f"  rms {100 * math.sqrt(e):.1f} %  max {100 * worst:.0f} %  ({len(pts)} points)")


if __name__ == "__main__":
    main()
