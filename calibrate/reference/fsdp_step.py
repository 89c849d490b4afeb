#!/usr/bin/env python3
"""What FSDP itself adds to a training step, measured on one GPU: the same layers as
llama_step.py (Llama-3.1-8B's or an MPT of llm-foundry's benchmark table) run plain (bf16
weights, no FSDP) or wrapped in PyTorch FSDP (FULL_SHARD, one unit per layer, bf16 parameters,
fp32 or bf16 gradient reduction) as one rank of a `--world`-rank job.

The other ranks are hallucinated by PyTorch's fake process group
(torch.testing._internal.distributed.fake_pg: collectives complete at once and move nothing), so
the GPU runs exactly what one rank runs except the NCCL kernels: the layers' kernels plus FSDP's
own (casting the fp32 shard to bf16 before each all-gather, flattening the gradients, casting
them to the reduce dtype, dividing them, accumulating the shard). Time (step − plain step) is
what FSDP adds besides communication and its overlap. The weights FSDP "gathers" are garbage
(nothing is received), which changes no kernel's duration.

Usage (on a GPU machine with PyTorch):
  python3 calibrate/reference/fsdp_step.py --out DIR --arch mpt-13b --fsdp 1 --world 8 \
      --reduce fp32 [--layers 4] [--seq 2048] [--batch 2] [--micro 1] [--trace]
Writes DIR/reference.json (medians of forward, backward, optimizer, step; peak memory; the top
kernels by GPU time) and with --trace DIR/trace.json.gz.
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402

import llama_step as ls  # noqa: E402


def build(arch, layers, seq, device):
    """The model in fp32 on the GPU (FSDP keeps fp32 shards; the plain run casts it to bf16)."""
    torch.manual_seed(0)
    with torch.device(device):
        if arch in ls.MPT:
            model, vocab, unit = ls.MptModel(layers, *ls.MPT[arch], seq), ls.MPT_VOCAB, ls.MptLayer
        else:
            model, vocab, unit = ls.Model(layers), ls.VOCAB, ls.Layer
    for p in model.parameters():
        if p.dim() == 2:
            nn.init.normal_(p, std=0.02)
    return model, vocab, unit


def wrap(model, unit, args):
    reduce = torch.float32 if args.reduce == "fp32" else torch.bfloat16
    if args.fsdp == "none":
        return model.to(torch.bfloat16)
    if args.fsdp == "1":
        from torch.distributed.fsdp import BackwardPrefetch, MixedPrecision, ShardingStrategy
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
        # Composer's FULL_SHARD with mixed_precision DEFAULT (bf16 parameters and buffers, fp32
        # reduction) or PURE (bf16 reduction, IBM fms-fsdp's bfSixteen), limit_all_gathers on.
        mp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=reduce, buffer_dtype=torch.bfloat16)
        return FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD, mixed_precision=mp,
                    auto_wrap_policy=ModuleWrapPolicy({unit}), device_id=torch.cuda.current_device(),
                    limit_all_gathers=True, use_orig_params=args.orig_params,
                    backward_prefetch=BackwardPrefetch.BACKWARD_PRE)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    mesh = init_device_mesh("cuda", (args.world,))
    mpp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=reduce)
    for layer in model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=mpp)
    fully_shard(model, mesh=mesh, mp_policy=mpp)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="mpt-13b", choices=["llama-3.1-8b", *ls.MPT])
    ap.add_argument("--fsdp", default="1", choices=["none", "1", "2"],
                    help="none: plain bf16 model; 1: FullyShardedDataParallel; 2: fully_shard")
    ap.add_argument("--world", type=int, default=8, help="ranks the fake process group pretends")
    ap.add_argument("--reduce", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--orig-params", action="store_true", help="FSDP1 use_orig_params=True")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--micro", type=int, default=1)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--trace", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    out = {"device": torch.cuda.get_device_properties(device).name, "torch": torch.__version__,
           "script": "calibrate/reference/fsdp_step.py", **vars(args)}
    print(json.dumps(out), flush=True)

    def save():
        with open(os.path.join(args.out, "reference.json"), "w") as f:
            json.dump(out, f, indent=1)

    if args.fsdp != "none":
        from torch.testing._internal.distributed.fake_pg import FakeStore
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=args.world)
    model, vocab, unit = build(args.arch, args.layers, args.seq, device)
    out["parameters"] = sum(p.numel() for p in model.parameters())
    model = wrap(model, unit, args)
    out["local_parameters"] = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5, fused=True) \
        if args.fsdp != "none" else None
    cos, sin = ls.rope_tables(args.seq, device, torch.bfloat16)
    g = torch.Generator(device="cpu").manual_seed(1)
    batches = [(torch.randint(0, vocab, (args.batch, args.seq), generator=g).to(device),
                torch.randint(0, vocab, (args.batch, args.seq), generator=g).to(device))
               for _ in range(args.micro)]

    def step(evs=None):
        def ev():
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        t0 = ev()
        for tokens, labels in batches:
            f0 = ev()
            loss = model(tokens, labels, cos, sin)
            f1 = ev()
            loss.backward()
            b1 = ev()
            if evs is not None:
                evs += [("forward", f0, f1), ("backward", f1, b1)]
        o0 = ev()
        if opt is not None:
            opt.step()
            opt.zero_grad(set_to_none=True)
        else:
            for p in model.parameters():
                p.grad = None
        o1 = ev()
        if evs is not None:
            evs += [("optimizer", o0, o1), ("step", t0, o1)]

    w0 = time.perf_counter()
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    out["warmup_s"] = time.perf_counter() - w0
    torch.cuda.reset_peak_memory_stats()
    rows = []
    for _ in range(args.steps):
        evs = []
        step(evs)
        torch.cuda.synchronize()
        rows.append(evs)
    med = lambda name: statistics.median(s.elapsed_time(e) / 1e3 for r in rows for n, s, e in r if n == name)  # noqa: E731
    out["median"] = {k + "_s": med(k) for k in ("forward", "backward", "optimizer", "step")}
    out["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
    print("medians", json.dumps(out["median"]), f"peak {out['peak_allocated_bytes'] / 1e9:.2f} GB", flush=True)
    save()

    from torch.profiler import ProfilerActivity, profile, schedule
    raw = os.path.join(args.out, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw) if args.trace else None) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()
    kernels = []
    events = list(prof.key_averages())
    on_gpu = [e for e in events if getattr(e, "self_cpu_time_total", 0) == 0]  # kernels, copies
    for e in on_gpu or events:  # kernels (operators' times would count them twice)
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = getattr(e, "self_cuda_time_total", 0)
        if t > 0:
            kernels.append({"name": e.key[:160], "calls": e.count // 3, "us_per_step": t / 3})
    kernels.sort(key=lambda k: -k["us_per_step"])
    out["kernels"] = kernels[:60]
    for k in kernels[:40]:
        print(f"{k['us_per_step']:10.0f} us {k['calls']:5d}x  {k['name'][:110]}", flush=True)
    if args.trace and os.path.exists(raw):
        with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as gz:
            shutil.copyfileobj(f, gz)
        os.remove(raw)
        out["trace"] = "trace.json.gz"
    save()
    if dist.is_initialized():
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
