#!/usr/bin/env python3
"""How much slower a training step's kernels run while communication kernels hold some of the
GPU's SMs, measured on one GPU.

NCCL runs a collective as one CTA per channel (NCCL_NTHREADS = 512 threads each), resident on its
SM for the whole collective; on an H100 an all-gather launches 24 of them (NVIDIA developer forum,
"Compute-Communication Overlap Causes Severe GEMM Performance Degradation because of Tail Effect",
2025, an nsys view of FSDP's prefetch). One GPU has no peer to talk to, so a stand-in takes the
same SMs the same way: C CTAs of 512 threads, launched first on a side stream, running for longer
than the measurement, either copying HBM to HBM ("copy": what a channel's CTA does to local memory
while it sends and receives, about 16 KiB in flight per CTA) or only computing in registers
("spin": the SMs held, no memory traffic). Against it:
  - a real training step (llama_step.py's Trainer: four layers, embedding, head, fused AdamW) of
    MPT-760m, MPT-13B and Llama-3.1-8B, forward + backward of its micro-batches and the optimizer
    timed apart with CUDA events on the main stream;
  - single GEMMs of those layers' shapes and SDPA FlashAttention forward + backward.
Every timed run checks that the stand-in was still running when the run ended ("covered").

Usage (on a GPU machine with PyTorch and Triton): python3 calibrate/reference/overlap_probe.py --out DIR
Writes DIR/overlap.json.
"""
import argparse
import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_step as ls  # noqa: E402

BLOCK = 4096          # fp32 elements per CTA per loop step (16 KiB)
PER_CTA = 1 << 20     # fp32 elements each copying CTA streams through (4 MiB: past the 50 MB L2 at C ≥ 8)
THREADS_WARPS = 16    # 16 warps = 512 threads, NCCL's default per channel


@triton.jit
def copy_kernel(src, dst, n_per_prog, iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * n_per_prog
    offs = tl.arange(0, BLOCK)
    for it in range(iters):
        for start in range(0, n_per_prog, BLOCK):
            x = tl.load(src + base + start + offs)
            tl.store(dst + base + start + offs, x + 1.0)


@triton.jit
def spin_kernel(dst, iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = offs.to(tl.float32) * 0.001
    for it in range(iters):
        x = x * 0.999 + 0.001
    tl.store(dst + pid * BLOCK + offs, x)


class StandIn:
    """C resident CTAs on a side stream for a chosen time."""

    def __init__(self, device, max_ctas):
        self.src = torch.zeros(max_ctas * PER_CTA, device=device, dtype=torch.float32)
        self.dst = torch.zeros_like(self.src)
        self.side = torch.cuda.Stream(device=device)
        self.rate = {}  # (C, mode) -> seconds per iteration
        self.meta = {}

    def launch(self, c, mode, iters):
        # iters a multiple of 16: Triton specialises an integer argument by its divisibility by 16,
        # and a new specialisation compiles in the middle of a timed run
        iters = max(16, iters // 16 * 16)
        if mode.startswith("copy"):
            block = int(mode[4:] or BLOCK)
            k = copy_kernel[(c,)](self.src, self.dst, PER_CTA, iters, BLOCK=block, num_warps=THREADS_WARPS)
        else:
            k = spin_kernel[(c,)](self.dst, iters, BLOCK=BLOCK, num_warps=THREADS_WARPS)
        if mode not in self.meta:
            try:
                self.meta[mode] = {"registers_per_thread": int(k.n_regs), "spills": int(k.n_spills),
                                   "shared_bytes": int(k.metadata.shared)}
            except Exception:  # noqa: BLE001 - provenance only
                self.meta[mode] = {}

    def alone(self, c, mode, iters):
        e = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        with torch.cuda.stream(self.side):
            e[0].record()
            self.launch(c, mode, iters)
            e[1].record()
        e[1].synchronize()
        return e[0].elapsed_time(e[1]) / 1e3

    def calibrate(self, c, mode):
        iters = 16 if mode.startswith("copy") else 200000
        self.alone(c, mode, iters)  # compile, warm
        t = self.alone(c, mode, iters)
        while t < 0.05:
            iters *= 4
            t = self.alone(c, mode, iters)
        self.rate[(c, mode)] = t / iters
        gbs = self.bytes(c, mode, iters) / t / 1e9
        return {"ctas": c, "mode": mode, "seconds_per_iteration": t / iters, "copy_GBps_alone": gbs}

    @staticmethod
    def bytes(c, mode, iters):
        """HBM bytes a run moves (read + write)."""
        return 2 * c * PER_CTA * 4 * max(16, iters // 16 * 16) if mode.startswith("copy") else 0

    def beside(self, c, mode, seconds, fn):
        """Run fn() on the current stream while the stand-in runs for about `seconds` alone;
        returns (fn's result, covered); self.last_GBps: the stand-in's rate beside fn."""
        iters = max(16, int(seconds / self.rate[(c, mode)]))
        main = torch.cuda.current_stream()
        s0, s1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(self.side):
            s0.record()
            self.launch(c, mode, iters)
            s1.record()
        main.wait_event(s0)
        torch.cuda._sleep(2_000_000)  # ~1 ms: the stand-in's CTAs are resident before fn's kernels
        r0 = torch.cuda.Event(enable_timing=True)
        r0.record()
        res = fn()
        r1 = torch.cuda.Event(enable_timing=True)
        r1.record()
        torch.cuda.synchronize()
        covered = s0.elapsed_time(s1) > s0.elapsed_time(r1)
        self.last_GBps = self.bytes(c, mode, iters) / (s0.elapsed_time(s1) / 1e3) / 1e9
        return res, covered


def timed(fn, reps):
    """Per-call seconds of fn() run reps times back to back (events on the current stream)."""
    evs = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    evs[0].record()
    for i in range(reps):
        fn()
        evs[i + 1].record()
    return evs


def med_times(evs):
    return statistics.median(evs[i].elapsed_time(evs[i + 1]) / 1e3 for i in range(len(evs) - 1))


# copy<B>: B fp32 elements (4·B bytes) in flight per CTA: fewer bytes, a slower stand-in (NVLink- or
# network-paced channels hold the same SMs but move fewer bytes than a CTA copying HBM flat out)
CONFIGS = [(c, m) for m in ("copy4096", "copy1024", "copy256") for c in (8, 16, 24, 32)]


def probe_steps(device, so, arch, seq, batch, out, steps=4):
    tr = ls.Trainer(4, seq, 2, device, arch=arch, batch=batch)
    for _ in range(3):
        tr.step()
    torch.cuda.synchronize()

    def run():
        rows = []
        for _ in range(steps):
            evs = []
            tr.step(evs)
            rows.append(evs)
        return rows

    def summarize(rows):
        torch.cuda.synchronize()
        get = lambda name: statistics.median(  # noqa: E731
            s.elapsed_time(e) / 1e3 for evs in rows for n, s, e in evs if n == name)
        return {"step_s": get("step"), "micro_batches_s": get("micro-batches"), "optimizer_s": get("optimizer")}

    base = summarize(run())
    res = {"arch": arch, "seq": seq, "batch": batch, "layers": 4, "micro_batches": 2, "alone": base,
           "beside": []}
    print(f"{arch}: alone {json.dumps(base)}", flush=True)
    for c, mode in CONFIGS:
        try:
            rows, covered = so.beside(c, mode, 2.5 * steps * base["step_s"] + 0.3, run)
            r = summarize(rows)
            r |= {"ctas": c, "mode": mode, "covered": covered, "stand_in_GBps_beside": so.last_GBps,
                  "slowdown_micro_batches": r["micro_batches_s"] / base["micro_batches_s"] - 1,
                  "slowdown_optimizer": r["optimizer_s"] / base["optimizer_s"] - 1}
            res["beside"].append(r)
            print(f"{arch}: {mode} {c:2d} CTAs: micro-batches {r['slowdown_micro_batches'] * 100:+.1f} %, "
                  f"optimizer {r['slowdown_optimizer'] * 100:+.1f} %, covered {covered}, "
                  f"stand-in {so.last_GBps:.0f} GB/s", flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    res["alone_again"] = summarize(run())
    print(f"{arch}: alone again {json.dumps(res['alone_again'])}", flush=True)
    out.setdefault("steps", []).append(res)
    del tr
    torch.cuda.empty_cache()


def probe_kernels(device, so, out):
    bf = torch.bfloat16
    gemms = [(49152, 4608, 1536), (49152, 1536, 1536), (49152, 6144, 1536), (49152, 1536, 6144),
             (4096, 15360, 5120), (4096, 5120, 5120), (4096, 20480, 5120), (4096, 5120, 20480),
             (4096, 6144, 4096), (4096, 4096, 4096), (4096, 28672, 4096), (4096, 4096, 14336)]
    cases = []
    for m, n, k in gemms:
        a = torch.randn(m, k, device=device, dtype=bf)
        b = torch.randn(k, n, device=device, dtype=bf)
        cases.append((f"gemm {m}x{n}x{k}", 2 * m * n * k, (lambda a=a, b=b: torch.matmul(a, b))))
    for b, h, hkv, s in ((24, 12, 12, 2048), (2, 40, 40, 2048), (1, 32, 8, 4096)):
        q = torch.randn(b, h, s, 128, device=device, dtype=bf, requires_grad=True)
        kk = torch.randn(b, hkv, s, 128, device=device, dtype=bf, requires_grad=True)
        v = torch.randn(b, hkv, s, 128, device=device, dtype=bf, requires_grad=True)
        g = torch.randn(b, h, s, 128, device=device, dtype=bf)

        def fa(q=q, kk=kk, v=v, g=g):
            o = F.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=True)
            o.backward(g)
        cases.append((f"sdpa causal fwd+bwd b{b} h{h}/{hkv} s{s} d128", 3.5 * 2 * b * s * s * h * 128, fa))
    rows = []
    for name, flops, fn in cases:
        for _ in range(3):
            fn()
        evs = timed(fn, 20)
        torch.cuda.synchronize()
        alone = med_times(evs)
        row = {"kernel": name, "flops": flops, "alone_s": alone, "alone_tflops": flops / alone / 1e12,
               "beside": []}
        for c, mode in ((24, "copy4096"), (24, "spin"), (16, "copy4096"), (32, "copy4096")):
            evs, covered = so.beside(c, mode, 2.5 * 20 * alone + 0.05, lambda: timed(fn, 20))
            t = med_times(evs)
            row["beside"].append({"ctas": c, "mode": mode, "seconds": t, "slowdown": t / alone - 1,
                                  "covered": covered})
        rows.append(row)
        print(f"{name}: alone {flops / alone / 1e12:.0f} TFLOP/s; beside " +
              ", ".join(f"{x['mode']} {x['ctas']}: {x['slowdown'] * 100:+.1f} %" for x in row["beside"]),
              flush=True)
    out["kernels"] = rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-kernels", action="store_true", help="only the training steps")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    out = {"device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
           "triton": triton.__version__, "cuda": torch.version.cuda,
           "script": "calibrate/reference/overlap_probe.py",
           "stand_in": {"threads_per_cta": 32 * THREADS_WARPS, "bytes_in_flight_per_cta": BLOCK * 4,
                        "bytes_per_copying_cta": PER_CTA * 4}}
    print(json.dumps(out), flush=True)
    path = os.path.join(args.out, "overlap.json")

    def save():
        with open(path, "w") as f:
            json.dump(out, f, indent=1)

    t0 = time.perf_counter()
    so = StandIn(device, 32)
    extra = [] if args.no_kernels else [(24, "spin")]
    out["stand_in"]["alone"] = [so.calibrate(c, m) for c, m in CONFIGS + extra]
    out["stand_in"]["compiled"] = so.meta
    for r in out["stand_in"]["alone"]:
        print("stand-in", json.dumps(r), flush=True)
    save()
    for arch, seq, batch in (("mpt-760m", 2048, 24), ("mpt-13b", 2048, 2), ("llama-3.1-8b", 4096, 1)):
        try:
            probe_steps(device, so, arch, seq, batch, out)
        except Exception:  # noqa: BLE001 - keep going
            traceback.print_exc()
        save()
    try:
        if not args.no_kernels:
            probe_kernels(device, so, out)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    out["wall_s"] = time.perf_counter() - t0
    save()
    print(f"done in {out['wall_s']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
