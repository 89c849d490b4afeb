#!/usr/bin/env python3
"""Kernel costs the published cases depend on and no public measurement gives
(tests/published/README.md, "Known differences of structure"), timed on one GPU:

1. FlashAttention-2 with attention dropout. Megatron-LM's default --attention-dropout 0.1 runs
   inside the FlashAttention kernel (Philox random numbers per score, forward and again in the
   backward); FlagPerf's Llama-3 runs kept it. SDPA's FlashAttention backend, bf16, causal, head
   dim 128, dropout_p 0.0 against 0.1: the FlashAttention-2 paper's benchmark (batch × sequence =
   16k tokens, hidden 2048) at 1k-16k tokens, and Llama-3-8B's attention (32 query heads, 8
   key/value heads) at 8,192 tokens.
2. The weight-gradient GEMM accumulating into an fp32 main gradient (Megatron's
   gradient-accumulation fusion, Transformer Engine's accumulate=True: bf16 operands, C = D in
   fp32, beta = 1; its epilogue reads and writes 8 bytes per output element where a bf16 GEMM
   writes 2), against the same GEMM writing bf16, at Llama-3-8B's and Aquila2-7B's weight shapes
   (tp 1 and 2) with 2,048-8,192 tokens as the reduction dimension. The fused form is timed as
   torch.addmm(..., out_dtype=float32) into the fp32 buffer when this PyTorch has it; else an
   fp32-output GEMM plus an add; the path taken is recorded.
3. cuDNN's fused attention, what Transformer Engine runs on Hopper when it may choose (it prefers
   it to FlashAttention there; NVIDIA's MLPerf GPT-3 submissions of 2024 ran it): SDPA's cuDNN
   backend beside its FlashAttention-2 backend, bf16, causal, head dims 64 and 128, the papers'
   benchmark (16k tokens, hidden 2048) at 512-16k tokens, forward and forward + backward, dropout
   0 and 0.1: the curve an `attention: cudnn` kernel would need (no chart at hand times it).

4. `attention_parallelism`: both attention kernels at batch 1 with 1-64 heads (what one
   tensor-parallel rank launches at micro-batch 1) against the papers' benchmark, which always
   fills the GPU with 16k tokens x 2048 hidden: how throughput falls as the launch's query tiles
   per SM fall, forward and backward, causal or not, head dims 64 and 128, 2k-16k tokens.

5. `norm_sweep`: PyTorch's own LayerNorm (F.layer_norm: its vectorized forward kernel, and the
   backward's layer_norm_grad_input and GammaBetaBackward) and the eager RMSNorm of Hugging
   Face's Llama code (llama_step.py's RMSNorm), bf16, forward and backward, over the hidden sizes
   of the published cases (768 to 12,288) at 8,192 and 65,536 rows: how the rate of these row
   reductions depends on the row's width (sim/cost/constants.h had one width measured, 5,120).

6. `swiglu_layout`: the op-by-op SwiGLU, silu(gate) * up, forward and backward (autograd), bf16,
   on the two halves of one 2f-wide tensor (one GEMM's output split by torch.chunk: strided
   views; the backward concatenates the two gradients) against two contiguous f-wide tensors
   (two GEMMs' outputs, Hugging Face's LlamaMLP), over f = 5,632-14,336 at 4,096-16,384 tokens:
   the rates sim/cost/constants.h gives them (split: 10 bytes forward, 12 strided + 14
   contiguous backward; apart: 10 and 18).

7. `nanotron_layout`: the copies nanotron's attention makes around flash-attn (huggingface/nanotron
   src/nanotron/models/llama.py at e24d2483, CausalSelfAttention.forward, training path, multi-head
   attention): QKV's [seq, batch, 3·h] output permuted to [3, batch, seq, heads, d] contiguous,
   K and V stacked by torch.cat and permuted contiguous for the rotary kernel, the attention
   output viewed [batch, seq, h], transposed to [seq, batch, h] and reshaped for the output
   projection as F.linear does; forward, and backward by autograd from gradients of Q, K, V and
   the projection's input (the rotary and attention kernels themselves left out), at the
   Ultra-Scale Playbook's shapes: seconds, kernels and GB/s at the bytes sim/cost/constants.h
   counts (kEagerQkvLayout…: 4 per QKV element, 8 per K and V element, 4 per output element
   forward; 4, 4, 4 backward).

8. `qkv_slice_split`: Megatron-DeepSpeed's QKV split before 2024-07 (megatron/model/transformer.py at
   11f2d934, ParallelAttention.split_tensor: QKV's output viewed [seq, batch, groups, heads/groups + 2,
   d], Q a slice, K and V selects), forward V copied contiguous, backward by autograd from gradients
   of Q, K and V (slice_backward and select_backward each zero-fill a full-width gradient and copy
   their part in, the three summed), at FlagPerf's Llama-2-7B shapes (tp 1 and 4, one 4,096-token
   sequence): seconds, kernels and GB/s at sim/cost/constants.h's bytes (kEagerQkvSplit…: 4 per V
   element forward, 22 per QKV element backward).

9. `cudnn_gqa`: cuDNN's fused attention (SDPA's cuDNN backend) on grouped key/value heads as the
   kernel takes them (enable_gqa, K and V at their own head count) against the same attention on
   K and V repeated to every query head (the multi-head benchmark the model's cuDNN curves were
   measured on), bf16, causal, head dim 128, batch 1, one tensor-parallel rank's heads: Llama-3-8B
   (32 query / 8 key-value heads) at tp 1 and 2, Llama-2-70B (64 / 8) at tp 1 and 4, at 4,096 and
   8,192 tokens, dropout 0 and 0.1: whether the grouped backward (its dK and dV summed over each
   group) runs slower per FLOP than the curve, a lead for the Hopper Llama-3-8B runs at 8,192
   tokens (tests/published/README.md). The same with FlashAttention-2 (repeated K and V only).

Usage (on a GPU machine with PyTorch): python3 calibrate/reference/kernel_probe.py --out DIR
Writes DIR/kernel-probe.json. CUDA events, 3 warm-up and 10 timed runs each, medians; the L2
cache is overwritten before every timed GEMM.
"""
import argparse
import json
import os
import statistics
import sys
import traceback

import torch
import torch.nn.functional as F

REPS, WARMUP = 10, 3


def median_time(fn, flush=None):
    """Median seconds of fn() over REPS CUDA-event-timed runs after WARMUP untimed ones."""
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(REPS):
        if flush is not None:
            flush()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return statistics.median(times)


def l2_flusher(device):
    """A function that overwrites the GPU's L2 cache (a 256 MB write) between timed runs."""
    buf = torch.empty(256 << 20, dtype=torch.uint8, device=device)
    return buf.zero_


def kernel_counts(fn):
    """The CUDA kernels fn() launches, as (name, count) pairs; [] (and the error printed) where the
    profiler fails: provenance, not a timing."""
    from torch.profiler import ProfilerActivity, profile
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sorted((e.key[:90], e.count) for e in prof.key_averages()
                      if "CUDA" in str(getattr(e, "device_type", "")))
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return []


def sdpa_times(backend, q, k, v, g, **kwargs):
    """Median seconds of SDPA's forward (no autograd) and of forward + backward on `backend`."""
    from torch.nn.attention import sdpa_kernel

    def forward():
        return F.scaled_dot_product_attention(q, k, v, **kwargs)

    with sdpa_kernel(backend):
        with torch.no_grad():
            tf = median_time(forward)
        tfb = median_time(lambda: forward().backward(g))
    return tf, tfb


def attention_dropout(device, out):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    cases = [("paper", 16384 // s, 16, 16, s) for s in (1024, 2048, 4096, 8192, 16384)]
    cases.append(("llama-3-8b", 1, 32, 8, 8192))
    rows = []
    for name, b, heads, kv_heads, s in cases:
        d = 128
        q = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16, requires_grad=True)
        # Grouped key/value heads repeated to the query heads (the FLOPs are the same; SDPA's
        # FlashAttention backend need not support enable_gqa).
        k = torch.randn(b, kv_heads, s, d, device=device, dtype=torch.bfloat16)
        v = torch.randn(b, kv_heads, s, d, device=device, dtype=torch.bfloat16)
        k = k.repeat_interleave(heads // kv_heads, dim=1).requires_grad_()
        v = v.repeat_interleave(heads // kv_heads, dim=1).requires_grad_()
        g = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16)
        flops = 4 * b * s * s * heads * d * 0.5  # causal, the papers' count
        row = {"case": name, "batch": b, "heads": heads, "kv_heads": kv_heads, "seq": s,
               "head_dim": d, "causal": True}
        for p in (0.0, 0.1):
            def forward():
                return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)

            def forward_backward():
                forward().backward(g)

            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                with torch.no_grad():
                    tf = median_time(forward)
                tfb = median_time(forward_backward)
            key = f"p{p:g}"
            row[key] = {"forward_s": tf, "forward_backward_s": tfb,
                        "forward_tflops": flops / tf / 1e12,
                        "backward_tflops": 2.5 * flops / max(tfb - tf, 1e-12) / 1e12}
        row["forward_ratio"] = row["p0.1"]["forward_s"] / row["p0"]["forward_s"]
        row["forward_backward_ratio"] = (row["p0.1"]["forward_backward_s"]
                                         / row["p0"]["forward_backward_s"])
        print(f"attention {name:10s} s {s:5d}: dropout 0.1 / 0: forward "
              f"{row['forward_ratio']:.3f}, forward+backward {row['forward_backward_ratio']:.3f}",
              flush=True)
        rows.append(row)
        del q, k, v, g
    out["attention_dropout"] = rows


def cudnn_attention(device, out):
    from torch.nn.attention import SDPBackend
    if not hasattr(SDPBackend, "CUDNN_ATTENTION"):
        raise RuntimeError("this PyTorch has no cuDNN SDPA backend")
    rows = []
    for d in (64, 128):
        heads = 2048 // d
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            b = 16384 // s
            q, k, v = (torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16,
                                   requires_grad=True) for _ in range(3))
            g = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16)
            flops = 4 * b * s * s * heads * d * 0.5  # causal, the papers' count
            row = {"batch": b, "heads": heads, "seq": s, "head_dim": d, "causal": True}
            for backend, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"),
                                   (SDPBackend.FLASH_ATTENTION, "flash2")):
                for p in (0.0, 0.1):
                    key = f"{label} p{p:g}"
                    try:
                        tf, tfb = sdpa_times(backend, q, k, v, g, dropout_p=p, is_causal=True)
                    except RuntimeError as e:
                        row[key] = {"unavailable": str(e).splitlines()[0][:120]}
                        continue
                    row[key] = {"forward_s": tf, "forward_backward_s": tfb,
                                "forward_tflops": flops / tf / 1e12,
                                "forward_backward_tflops": 3.5 * flops / tfb / 1e12}
            cu, fa = row.get("cudnn p0", {}), row.get("flash2 p0", {})
            print(f"attention d {d:3d} s {s:5d}: cuDNN "
                  f"{cu.get('forward_backward_tflops', float('nan')):6.1f}, FlashAttention-2 "
                  f"{fa.get('forward_backward_tflops', float('nan')):6.1f} TFLOP/s fwd+bwd",
                  flush=True)
            rows.append(row)
            del q, k, v, g
    out["cudnn_attention"] = rows


def attention_parallelism(device, out):
    """Attention throughput against the work a launch gives the GPU: batch 1 and 1-64 heads (a
    tensor-parallel rank's heads at micro-batch 1) at 2k-16k tokens, where the papers' benchmark
    always launches 16k tokens x 2048 hidden (b x heads x s / 128 = 2,048 query tiles at head dim
    128). FlashAttention-2 and cuDNN (SDPA backends), bf16, head dims 64 and 128, causal and not,
    forward and forward + backward, no dropout; heads are keys' heads too (the kernels' grids run
    over query heads). The 2k rows reach at most 1,024 tiles: a fit against each length's
    2,048-tile point (sim/cost/constants.h) uses 4k-16k."""
    from torch.nn.attention import SDPBackend
    rows = []
    backends = [(SDPBackend.FLASH_ATTENTION, "flash2")]
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):
        backends.append((SDPBackend.CUDNN_ATTENTION, "cudnn"))
    for backend, label in backends:
        for d in (128, 64):
            for causal in (True, False):
                for s in (2048, 4096, 8192, 16384):
                    for heads in (1, 2, 4, 8, 16, 32, 64):
                        q, k, v = (torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16,
                                               requires_grad=True) for _ in range(3))
                        g = torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16)
                        flops = 4 * s * s * heads * d * (0.5 if causal else 1.0)

                        row = {"kernel": label, "head_dim": d, "causal": causal, "seq": s,
                               "batch": 1, "heads": heads}
                        try:
                            tf, tfb = sdpa_times(backend, q, k, v, g, is_causal=causal)
                        except RuntimeError as e:
                            row["unavailable"] = str(e).splitlines()[0][:120]
                            rows.append(row)
                            continue
                        row |= {"forward_s": tf, "forward_backward_s": tfb,
                                "forward_tflops": flops / tf / 1e12,
                                "backward_tflops": 2.5 * flops / max(tfb - tf, 1e-12) / 1e12}
                        rows.append(row)
                        del q, k, v, g
                    line = [r for r in rows[-7:] if "forward_s" in r]
                    print(f"{label} d {d:3d} causal {int(causal)} s {s:5d}: fwd " +
                          " ".join(f"{r['forward_tflops']:4.0f}" for r in line) + " | bwd " +
                          " ".join(f"{r['backward_tflops']:4.0f}" for r in line) +
                          " TFLOP/s at 1..64 heads", flush=True)
                    print("rows " + json.dumps(rows[-7:]), flush=True)  # kept if the run is cut
    out["attention_parallelism"] = rows


def wgrad_accumulate(device, out):
    flush = l2_flusher(device)

    # (name, output features, input features): Llama-3-8B (qkv 6144 with 8 KV heads, SwiGLU's
    # gate+up 28672) and Aquila2-7B (qkv 12288, gate+up 22016), tp 1, and Llama-3-8B at tp 2.
    shapes = [("llama3-8b qkv", 6144, 4096), ("llama3-8b proj", 4096, 4096),
              ("llama3-8b fc1", 28672, 4096), ("llama3-8b fc2", 4096, 14336),
              ("llama3-8b qkv tp2", 3072, 4096), ("llama3-8b fc1 tp2", 14336, 4096),
              ("llama3-8b fc2 tp2", 4096, 7168),
              ("aquila2-7b qkv", 12288, 4096), ("aquila2-7b fc1", 22016, 4096)]
    rows = []
    path = None
    for tokens in (2048, 4096, 8192):
        for name, n_out, n_in in shapes:
            dy = torch.randn(tokens, n_out, device=device, dtype=torch.bfloat16)
            x = torch.randn(tokens, n_in, device=device, dtype=torch.bfloat16)
            main = torch.zeros(n_out, n_in, device=device, dtype=torch.float32)
            bf16_out = torch.empty(n_out, n_in, device=device, dtype=torch.bfloat16)
            t_bf16 = median_time(lambda: torch.mm(dy.t(), x, out=bf16_out), flush)
            candidates = [
                ("torch.addmm out_dtype=float32 (fused, beta 1)",
                 lambda: torch.addmm(main, dy.t(), x, out_dtype=torch.float32, out=main)),
                ("torch.mm out_dtype=float32, then add_ (unfused)",
                 lambda: main.add_(torch.mm(dy.t(), x, out_dtype=torch.float32))),
                ("torch.mm bf16, then add_ into fp32 (unfused)",
                 lambda: main.add_(torch.mm(dy.t(), x))),
            ]
            t_acc = None
            for label, fn in candidates:
                if path is not None and label != path:
                    continue
                try:
                    fn()
                    torch.cuda.synchronize()
                except (TypeError, RuntimeError) as e:
                    print(f"  {label}: unavailable ({str(e).splitlines()[0][:100]})", flush=True)
                    continue
                path = label
                t_acc = median_time(fn, flush)
                break
            flops = 2.0 * tokens * n_out * n_in
            rows.append({"shape": name, "m": n_out, "n": n_in, "k": tokens,
                         "bf16_s": t_bf16, "bf16_tflops": flops / t_bf16 / 1e12,
                         "fp32_accumulate_s": t_acc,
                         "ratio": t_acc / t_bf16 if t_acc else None})
            print(f"wgrad {name:18s} k {tokens:5d}: bf16 {flops / t_bf16 / 1e12:6.1f} TFLOP/s, "
                  f"fp32 accumulate / bf16 {rows[-1]['ratio']:.3f}", flush=True)
            del dy, x, main, bf16_out
    out["wgrad_fp32_accumulate"] = {"path": path, "rows": rows}


def wgrad_sweep(device, out):
    """The fp32-accumulating weight gradient over a grid of weight shapes and token counts, in
    bf16 and fp16, with the fp32-output GEMM without accumulation (beta 0) beside it: how the
    epilogue's extra bytes (fp32 read and write per output element) cost against the mainloop."""
    flush = l2_flusher(device)

    # Weight shapes (output features, input features) of the published cases' layers: hidden
    # 2048-12288 at tp 1-8 (GPT-3 175B at tp 4 and 8: qkv 9216x12288 and 4608x12288, fc1
    # 12288x12288 and 6144x12288, fc2 12288x12288/4 ...), Llama-2/3-70B at tp 8.
    shapes = [(2048, 2048), (6144, 2048), (8192, 2048), (2048, 8192), (4096, 4096),
              (12288, 4096), (4096, 11008), (5120, 5120), (15360, 5120), (5120, 13824),
              (9216, 12288), (12288, 3072), (12288, 12288), (4608, 12288), (12288, 1536),
              (6144, 12288), (12288, 6144), (1280, 8192), (8192, 1024), (7168, 8192),
              (8192, 3584)]
    rows = []
    for dtype in (torch.bfloat16, torch.float16):
        for tokens in (1024, 2048, 4096, 8192, 16384):
            for n_out, n_in in shapes:
                dy = torch.randn(tokens, n_out, device=device, dtype=dtype)
                x = torch.randn(tokens, n_in, device=device, dtype=dtype)
                main_grad = torch.zeros(n_out, n_in, device=device, dtype=torch.float32)
                half_out = torch.empty(n_out, n_in, device=device, dtype=dtype)
                t_half = median_time(lambda: torch.mm(dy.t(), x, out=half_out), flush)
                t_fp32 = median_time(
                    lambda: torch.mm(dy.t(), x, out_dtype=torch.float32, out=main_grad), flush)
                t_acc = median_time(lambda: torch.addmm(main_grad, dy.t(), x,
                                                        out_dtype=torch.float32, out=main_grad),
                                    flush)
                flops = 2.0 * tokens * n_out * n_in
                rows.append({"dtype": str(dtype).split(".")[-1], "m": n_out, "n": n_in,
                             "k": tokens, "half_s": t_half, "fp32_out_s": t_fp32,
                             "fp32_accumulate_s": t_acc,
                             "half_tflops": flops / t_half / 1e12})
                del dy, x, main_grad, half_out
            r = [row for row in rows if row["k"] == tokens and row["dtype"] in str(dtype)]
            acc = statistics.median(row["fp32_accumulate_s"] / row["half_s"] for row in r)
            o32 = statistics.median(row["fp32_out_s"] / row["half_s"] for row in r)
            print(f"wgrad sweep {str(dtype):15s} k {tokens:5d}: median fp32 accumulate / half "
                  f"{acc:.3f}, fp32 out / half {o32:.3f}", flush=True)
    out["wgrad_sweep"] = rows


def fp8_epilogue(device, out):
    """The FP8 weight gradient's output width: torch._scaled_mm (e4m3 operands, per-tensor
    scales, the cuBLASLt GEMM Transformer Engine runs) writing fp32 against writing bf16, beside
    the same pair in bf16, at the weight shapes of MLPerf's GPT-3 175B at tp 4 (qkv 9216 x
    12288, proj 12288 x 3072, fc1 12288 x 12288, fc2 12288 x 12288) and Llama-3-8B's, with
    1,024-8,192 tokens as the reduction: does the wider epilogue cost the same bytes behind the
    twice as fast FP8 mainloop as behind the bf16 one? (_scaled_mm cannot accumulate into C; the
    fp32 write is the part it can time.)"""
    flush = l2_flusher(device)

    fp8 = torch.float8_e4m3fn
    one = torch.ones((), device=device, dtype=torch.float32)
    shapes = [(9216, 12288), (12288, 3072), (12288, 12288), (6144, 4096), (4096, 4096),
              (28672, 4096), (4096, 14336)]
    rows = []
    for tokens in (1024, 2048, 4096, 8192):
        for n_out, n_in in shapes:
            # dW (n_out x n_in) = dY^T (n_out x tokens) . X (tokens x n_in); _scaled_mm wants the
            # first operand row-major and the second column-major.
            dyt = torch.randn(n_out, tokens, device=device, dtype=torch.bfloat16)
            x = torch.randn(n_in, tokens, device=device, dtype=torch.bfloat16)
            dyt8, x8 = dyt.to(fp8), x.to(fp8)
            row = {"m": n_out, "n": n_in, "k": tokens}
            row["fp8_bf16_s"] = median_time(lambda: torch._scaled_mm(
                dyt8, x8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16), flush)
            row["fp8_fp32_s"] = median_time(lambda: torch._scaled_mm(
                dyt8, x8.t(), scale_a=one, scale_b=one, out_dtype=torch.float32), flush)
            row["bf16_bf16_s"] = median_time(lambda: torch.mm(dyt, x.t()), flush)
            row["bf16_fp32_s"] = median_time(
                lambda: torch.mm(dyt, x.t(), out_dtype=torch.float32), flush)
            rows.append(row)
            del dyt, x, dyt8, x8
        r = [row for row in rows if row["k"] == tokens]
        f8 = statistics.median(x["fp8_fp32_s"] / x["fp8_bf16_s"] for x in r)
        b16 = statistics.median(x["bf16_fp32_s"] / x["bf16_bf16_s"] for x in r)
        sp = statistics.median(x["bf16_bf16_s"] / x["fp8_bf16_s"] for x in r)
        print(f"fp8 epilogue k {tokens:5d}: fp32 out / bf16 out: FP8 {f8:.3f}, bf16 {b16:.3f}; "
              f"FP8 speed-up {sp:.2f}", flush=True)
    out["fp8_epilogue"] = rows


def norm_sweep(device, out):
    """LayerNorm (with and without bias) and the eager RMSNorm, forward and backward, by hidden
    size: seconds and GB/s at the bytes per element sim/cost/constants.h counts (LayerNorm 4
    forward, 10 backward; RMSNorm 36 and 92)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import llama_step  # noqa: E402  (its RMSNorm, as the reference steps run it)
    flush = l2_flusher(device)

    rows = []
    for tokens in (8192, 65536):
        for d in (768, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192, 12288):
            x = torch.randn(tokens, d, device=device, dtype=torch.bfloat16, requires_grad=True)
            g = torch.randn(tokens, d, device=device, dtype=torch.bfloat16)
            for kind in ("layernorm", "layernorm_bias", "rmsnorm_eager"):
                if kind == "rmsnorm_eager":
                    mod = llama_step.RMSNorm(d).to(device=device, dtype=torch.bfloat16)
                    fwd_bytes, bwd_bytes = 36, 92
                else:
                    mod = torch.nn.LayerNorm(d, bias=kind == "layernorm_bias").to(
                        device=device, dtype=torch.bfloat16)
                    fwd_bytes, bwd_bytes = 4, 10
                params = tuple(mod.parameters())
                t_f = median_time(lambda: mod(x), flush)
                y = mod(x)
                t_b = median_time(
                    lambda: torch.autograd.grad(y, (x, *params), g, retain_graph=True), flush)
                n = tokens * d
                rows.append({"kind": kind, "tokens": tokens, "hidden": d, "forward_s": t_f,
                             "backward_s": t_b, "forward_gbps": fwd_bytes * n / t_f / 1e9,
                             "backward_gbps": bwd_bytes * n / t_b / 1e9})
                print(f"{kind:15s} {tokens:6d} x {d:5d}: fwd {t_f * 1e6:8.1f} us "
                      f"{rows[-1]['forward_gbps']:6.0f} GB/s  bwd {t_b * 1e6:8.1f} us "
                      f"{rows[-1]['backward_gbps']:6.0f} GB/s", flush=True)
                del y, mod, params
            del x, g
    out["norm_sweep"] = rows


def swiglu_layout(device, out):
    """silu(gate) * up forward and backward on a 2f-wide tensor's chunked halves and on two
    contiguous tensors: seconds and GB/s at the bytes sim/cost/constants.h counts."""
    flush = l2_flusher(device)

    rows = []
    for tokens in (4096, 8192, 16384):
        for f in (5632, 8192, 11008, 14336):
            gu = torch.randn(tokens, 2 * f, device=device, dtype=torch.bfloat16, requires_grad=True)
            g0 = torch.randn(tokens, f, device=device, dtype=torch.bfloat16, requires_grad=True)
            u0 = torch.randn(tokens, f, device=device, dtype=torch.bfloat16, requires_grad=True)
            dy = torch.randn(tokens, f, device=device, dtype=torch.bfloat16)
            for layout in ("split", "apart"):
                def forward():
                    if layout == "split":
                        gate, up = gu.chunk(2, dim=-1)
                    else:
                        gate, up = g0, u0
                    return F.silu(gate) * up
                inputs = (gu,) if layout == "split" else (g0, u0)
                t_f = median_time(forward, flush)
                y = forward()
                t_b = median_time(lambda: torch.autograd.grad(y, inputs, dy, retain_graph=True), flush)
                n = tokens * f
                bwd_bytes = 26 if layout == "split" else 18
                rows.append({"layout": layout, "tokens": tokens, "ffn": f, "forward_s": t_f,
                             "backward_s": t_b, "forward_gbps": 10 * n / t_f / 1e9,
                             "backward_gbps": bwd_bytes * n / t_b / 1e9})
                print(f"swiglu {layout:5s} {tokens:6d} x {f:5d}: fwd {t_f * 1e6:7.1f} us "
                      f"{rows[-1]['forward_gbps']:5.0f} GB/s  bwd {t_b * 1e6:7.1f} us "
                      f"{rows[-1]['backward_gbps']:5.0f} GB/s", flush=True)
                del y
            del gu, g0, u0, dy
    out["swiglu_layout"] = rows


def nanotron_layout(device, out):
    """nanotron's layout copies around attention, forward and backward, by shape."""
    flush = l2_flusher(device)

    rows = []
    # (name, heads, head dim, batch): the Playbook's 1B, 3B and 8B, whole and at tp 4.
    for name, heads, d, b in (("1b", 32, 64, 2), ("1b", 32, 64, 1), ("3b", 32, 96, 2),
                              ("8b", 32, 128, 1), ("8b", 32, 128, 2), ("8b-tp4", 8, 128, 2)):
        try:
            s_len = 4096
            qkv = torch.randn(s_len, b, 3 * heads * d, device=device, dtype=torch.bfloat16,
                              requires_grad=True)
            ao = torch.randn(b * s_len, heads, d, device=device, dtype=torch.bfloat16,
                             requires_grad=True)

            def forward():
                q, k, v = qkv.view(s_len, b, 3, heads, d).permute(2, 1, 0, 3, 4).contiguous()
                kv = torch.cat([k.unsqueeze(0), v.unsqueeze(0)], dim=0)
                kv = kv.permute(1, 2, 0, 3, 4).contiguous()
                k2, v2 = torch.split(kv, 1, dim=2)
                qf = q.reshape(b * s_len, heads, d)
                kf = k2.reshape(b * s_len, heads, d)
                vf = v2.reshape(b * s_len, heads, d)
                o = ao.contiguous().view(b, s_len, heads * d).transpose(0, 1)
                o2 = o.reshape(-1, heads * d)  # F.linear's flattening of its input
                return qf, kf, vf, o2

            t_f = median_time(forward, flush)
            outs = forward()
            grads = tuple(torch.randn_like(t) for t in outs)
            t_b = median_time(lambda: torch.autograd.grad(outs, (qkv, ao), grads, retain_graph=True),
                              flush)
            kernels = {"forward": kernel_counts(forward),
                       "backward": kernel_counts(lambda: torch.autograd.grad(
                           outs, (qkv, ao), grads, retain_graph=True))}
            n_qkv, n_kv, n_o = s_len * b * 3 * heads * d, s_len * b * 2 * heads * d, s_len * b * heads * d
            fwd_bytes = 4 * n_qkv + 8 * n_kv + 4 * n_o
            bwd_bytes = 4 * n_qkv + 4 * n_kv + 4 * n_o
            rows.append({"model": name, "heads": heads, "head_dim": d, "batch": b, "seq": s_len,
                         "forward_s": t_f, "backward_s": t_b,
                         "forward_gbps_at_model_bytes": fwd_bytes / t_f / 1e9,
                         "backward_gbps_at_model_bytes": bwd_bytes / t_b / 1e9,
                         "model_forward_bytes": fwd_bytes, "model_backward_bytes": bwd_bytes,
                         "kernels": kernels})
            print(f"nanotron layout {name:7s} b {b}: fwd {t_f * 1e6:7.1f} us "
                  f"{rows[-1]['forward_gbps_at_model_bytes']:5.0f} GB/s  bwd {t_b * 1e6:7.1f} us "
                  f"{rows[-1]['backward_gbps_at_model_bytes']:5.0f} GB/s", flush=True)
            for phase in ("forward", "backward"):
                for k, c in kernels[phase]:
                    print(f"    {phase:8s} {c:3d} x {k}", flush=True)
            del qkv, ao, outs, grads
        except Exception:  # noqa: BLE001 - keep the other shapes
            traceback.print_exc()
            rows.append({"model": name, "batch": b, "error": traceback.format_exc()})
    out["nanotron_layout"] = rows


def qkv_slice_split(device, out):
    """Megatron-DeepSpeed's sliced QKV split: V's forward copy and the three gradients' backward."""
    flush = l2_flusher(device)

    rows = []
    for name, groups, d, b in (("llama2-7b-tp4", 8, 128, 1), ("llama2-7b-tp1", 32, 128, 1)):
        try:
            s_len = 4096
            mixed = torch.randn(s_len, b, groups * 3 * d, device=device, dtype=torch.bfloat16,
                                requires_grad=True)

            def split():
                x = mixed.view(s_len, b, groups, 3, d)
                q = x[:, :, :, :-2, :].reshape(s_len, b, -1, d)
                return q, x[:, :, :, -2, :], x[:, :, :, -1, :]

            t_f = median_time(lambda: split()[2].contiguous(), flush)
            outs = split()
            grads = tuple(torch.randn(t.shape, device=device, dtype=torch.bfloat16) for t in outs)

            def backward():
                return torch.autograd.grad(outs, (mixed,), grads, retain_graph=True)

            t_b = median_time(backward, flush)
            kernels = kernel_counts(backward)
            n_qkv, n_v = s_len * b * groups * 3 * d, s_len * b * groups * d
            rows.append({"shape": name, "groups": groups, "head_dim": d, "batch": b, "seq": s_len,
                         "forward_s": t_f, "backward_s": t_b,
                         "forward_gbps_at_model_bytes": 4 * n_v / t_f / 1e9,
                         "backward_gbps_at_model_bytes": 22 * n_qkv / t_b / 1e9,
                         "backward_kernels": kernels})
            print(f"qkv slice split {name}: fwd {t_f * 1e6:7.1f} us "
                  f"{rows[-1]['forward_gbps_at_model_bytes']:5.0f} GB/s  bwd {t_b * 1e6:7.1f} us "
                  f"{rows[-1]['backward_gbps_at_model_bytes']:5.0f} GB/s", flush=True)
            for k, c in kernels:
                print(f"    backward {c:3d} x {k}", flush=True)
            del mixed, outs, grads
        except Exception:  # noqa: BLE001 - keep the other shapes
            traceback.print_exc()
            rows.append({"shape": name, "error": traceback.format_exc()})
    out["qkv_slice_split"] = rows


def cudnn_gqa(device, out):
    from torch.nn.attention import SDPBackend
    if not hasattr(SDPBackend, "CUDNN_ATTENTION"):
        raise RuntimeError("this PyTorch has no cuDNN SDPA backend")
    cases = [("llama-3-8b tp1", 32, 8), ("llama-3-8b tp2", 16, 4),
             ("llama-2-70b tp1", 64, 8), ("llama-2-70b tp4", 16, 2)]
    rows = []
    d = 128
    for name, heads, kv_heads in cases:
        for s in (4096, 8192):
            q = torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16,
                            requires_grad=True)
            kg, vg = (torch.randn(1, kv_heads, s, d, device=device, dtype=torch.bfloat16,
                                  requires_grad=True) for _ in range(2))
            # The same values repeated to every query head: the FLOPs are the same.
            km, vm = (x.detach().repeat_interleave(heads // kv_heads, dim=1).requires_grad_()
                      for x in (kg, vg))
            g = torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16)
            flops = 4 * s * s * heads * d * 0.5  # causal, the papers' count
            row = {"case": name, "heads": heads, "kv_heads": kv_heads, "seq": s, "head_dim": d,
                   "causal": True, "batch": 1}
            for backend, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"),
                                   (SDPBackend.FLASH_ATTENTION, "flash2")):
                for p in (0.0, 0.1):
                    for kv, k, v, kwargs in (("grouped", kg, vg, {"enable_gqa": True}),
                                             ("repeated", km, vm, {})):
                        if label == "flash2" and kv == "grouped":
                            continue
                        key = f"{label} {kv} p{p:g}"
                        try:
                            tf, tfb = sdpa_times(backend, q, k, v, g, dropout_p=p,
                                                 is_causal=True, **kwargs)
                        except (RuntimeError, TypeError) as e:
                            row[key] = {"unavailable": str(e).splitlines()[0][:120]}
                            continue
                        row[key] = {"forward_s": tf, "forward_backward_s": tfb,
                                    "forward_tflops": flops / tf / 1e12,
                                    "backward_tflops": 2.5 * flops / max(tfb - tf, 1e-12) / 1e12}
            for p in ("0", "0.1"):
                gr, rp = row.get(f"cudnn grouped p{p}", {}), row.get(f"cudnn repeated p{p}", {})
                if "forward_s" in gr and "forward_s" in rp:
                    row[f"grouped_over_repeated p{p}"] = {
                        "forward": gr["forward_s"] / rp["forward_s"],
                        "forward_backward": gr["forward_backward_s"] / rp["forward_backward_s"]}
            ratio = row.get("grouped_over_repeated p0", {})
            print(f"cudnn gqa {name:16s} s {s:5d}: grouped / repeated time forward "
                  f"{ratio.get('forward', float('nan')):.3f}, forward+backward "
                  f"{ratio.get('forward_backward', float('nan')):.3f}", flush=True)
            rows.append(row)
            del q, kg, vg, km, vm, g
    out["cudnn_gqa"] = rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory for kernel-probe.json")
    ap.add_argument("--only", nargs="*", help="run only these probes (function names)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")
    out = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__,
           "cuda": torch.version.cuda, "method": __doc__.split("Usage")[0].strip()}
    failed = False
    for probe in (attention_dropout, wgrad_accumulate, cudnn_attention, wgrad_sweep,
                  fp8_epilogue, attention_parallelism, norm_sweep, swiglu_layout,
                  nanotron_layout, qkv_slice_split, cudnn_gqa):
        if args.only and probe.__name__ not in args.only:
            continue
        try:
            probe(device, out)
        except Exception:  # one probe's failure must not lose the other's results
            traceback.print_exc()
            out.setdefault("failed", []).append(probe.__name__)
            failed = True
        torch.cuda.empty_cache()
        # Written after every probe: a run stopped by its time limit keeps what it measured.
        with open(os.path.join(args.out, "kernel-probe.json"), "w") as f:
            json.dump(out, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
