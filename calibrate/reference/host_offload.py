#!/usr/bin/env python3
"""What ZeRO-Offload-style training moves and computes outside the GPU, measured on one machine:
pinned host↔device copy bandwidth by size (each direction alone and both at once), and the
CPU's Adam step rate (torch.optim.AdamW over fp32 tensors on the host, fused and foreach), with
the host's CPU model and thread count. Data for `training.offload` (issue: ZeRO-Offload), not
yet used by the model.

Usage (on a GPU machine with PyTorch): python3 calibrate/reference/host_offload.py --out DIR
Writes DIR/host_offload.json.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def copies(out):
    dev = torch.device("cuda")
    rows = []
    for mib in (64, 256, 1024, 4096):
        n = mib << 20
        host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        host2 = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        gpu = torch.empty(n, dtype=torch.uint8, device=dev)
        gpu2 = torch.empty(n, dtype=torch.uint8, device=dev)
        s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()

        def timed(fn, reps=5):
            fn()
            torch.cuda.synchronize()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                ts.append(time.perf_counter() - t0)
            return statistics.median(ts)

        h2d = timed(lambda: gpu.copy_(host, non_blocking=True))
        d2h = timed(lambda: host.copy_(gpu, non_blocking=True))

        def both():
            with torch.cuda.stream(s1):
                gpu.copy_(host, non_blocking=True)
            with torch.cuda.stream(s2):
                host2.copy_(gpu2, non_blocking=True)

        bi = timed(both)
        rows.append({"bytes": n, "h2d_s": h2d, "d2h_s": d2h, "both_s": bi,
                     "h2d_GBps": n / h2d / 1e9, "d2h_GBps": n / d2h / 1e9,
                     "both_each_GBps": n / bi / 1e9})
        print(f"{mib:5d} MiB  H2D {rows[-1]['h2d_GBps']:.1f} GB/s  D2H {rows[-1]['d2h_GBps']:.1f} GB/s"
              f"  both at once {rows[-1]['both_each_GBps']:.1f} GB/s each", flush=True)
        del host, host2, gpu, gpu2
    out["copies"] = rows


def cpu_adam(out, params):
    rows = []
    # Tensors of 64 M parameters, like a large layer's weights.
    chunk = 64 << 20
    ps = [torch.nn.Parameter(torch.randn(chunk)) for _ in range(params // chunk)]
    for p in ps:
        p.grad = torch.randn(chunk)
    for mode in ("fused", "foreach"):
        try:
            opt = torch.optim.AdamW(ps, lr=1e-4, **({"fused": True} if mode == "fused" else {"foreach": True}))
            opt.step()
            ts = []
            for _ in range(3):
                t0 = time.perf_counter()
                opt.step()
                ts.append(time.perf_counter() - t0)
            t = statistics.median(ts)
            rows.append({"mode": mode, "params": len(ps) * chunk, "step_s": t,
                         "params_per_s": len(ps) * chunk / t})
            print(f"CPU AdamW ({mode}): {len(ps) * chunk / 1e9:.2f} G params in {t:.3f} s = "
                  f"{len(ps) * chunk / t / 1e9:.2f} G params/s", flush=True)
            del opt
        except Exception as e:  # noqa: BLE001 - a mode this PyTorch lacks
            rows.append({"mode": mode, "error": str(e)[:200]})
            print(f"CPU AdamW ({mode}): {e}", flush=True)
    out["cpu_adam"] = rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--params", type=int, default=1 << 30, help="parameters for the CPU Adam step")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = {"device": torch.cuda.get_device_name(0), "cpu": cpu_model(), "cpu_count": os.cpu_count(),
           "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
           "script": "calibrate/reference/host_offload.py"}
    print(json.dumps(out), flush=True)
    for name, fn in (("copies", lambda: copies(out)), ("cpu_adam", lambda: cpu_adam(out, args.params))):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - keep the other half
            out[name + "_error"] = str(e)[:500]
            print(f"{name}: {e}", flush=True)
        with open(os.path.join(args.out, "host_offload.json"), "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
