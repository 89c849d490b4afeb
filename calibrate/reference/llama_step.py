#!/usr/bin/env python3
"""Ground truth nothing of trainsim wrote: a real PyTorch training step of the scenario
calibrate/reference/llama-4l-1gpu.yaml on one GPU, timed with CUDA events, and a torch.profiler
(Kineto) trace of it for `trainsim diff` and `trainsim-calibrate import-torch-trace`.

The model is Llama-3.1-8B's decoder layer (hidden 4096, 32 query heads and 8 key/value heads of
128, SwiGLU MLP of 14336, RMSNorm, rotary embeddings; Grattafiori et al. 2024, "The Llama 3 Herd
of Models", Table 3) written the way Hugging Face's reference code writes it (RMSNorm upcast to
fp32, rotate_half), except that Q, K, V are one GEMM and the MLP's gate and up one GEMM (Megatron's
fused layout, the shapes trainsim times). The attention core is
torch.nn.functional.scaled_dot_product_attention, causal, with the FlashAttention-2 backend.
Weights and gradients in bf16; fused AdamW over fp32 master copies (gradients cast to fp32,
global-norm clipping, the step, the bf16 weights copied back), as mixed-precision training does.
Random weights and tokens.

Usage (on a GPU machine with PyTorch):
  python3 calibrate/reference/llama_step.py --out DIR [--layers 4] [--seq 4096] [--micro 4]
Writes DIR/reference.json (medians of the timed steps, the device, the peak memory) and
DIR/trace.json.gz (three profiled steps, record_shapes on).
"""
import argparse
import gzip
import json
import math
import os
import shutil
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F
from torch import nn

HIDDEN, FFN, HEADS, KV_HEADS, VOCAB = 4096, 14336, 32, 8, 128256
HEAD_DIM = HIDDEN // HEADS  # 128; stays 128 under --tp
EPS = 1e-5
ROPE_THETA = 500000.0


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return (FUSED["rms"] or rms_norm)(x, self.weight)


def rms_norm(x, weight):
    dtype = x.dtype
    x = x.to(torch.float32)
    var = x.pow(2).mean(-1, keepdim=True)
    x = x * torch.rsqrt(var + EPS)
    return weight * x.to(dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


# --fused-norm-rope: RMSNorm and the rotary embedding each one generated (Triton) kernel forward
# and backward (torch.compile of those two functions alone), the rest op by op, as stacks with
# fused norm and rotary kernels and an eager rest run them (nanotron: Triton RMSNorm, flash-attn's
# rotary kernel).
FUSED = {"rms": None, "rope": None}


def rope_tables(seq, device, dtype):
    inv = 1.0 / (ROPE_THETA ** (torch.arange(0, HEAD_DIM, 2, device=device, dtype=torch.float32) / HEAD_DIM))
    pos = torch.arange(seq, device=device, dtype=torch.float32)
    freqs = torch.outer(pos, inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype)[None, None], emb.sin().to(dtype)[None, None]


ATTENTION = {"gqa": True, "pin": True}


def attention_core(q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if not ATTENTION["pin"]:  # under torch.compile: the backend PyTorch picks (the trace names it)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=ATTENTION["gqa"])
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        if ATTENTION["gqa"]:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        rep = HEADS // KV_HEADS
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm(HIDDEN)
        self.qkv = nn.Linear(HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM, bias=False)
        self.out = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.mlp_norm = RMSNorm(HIDDEN)
        self.gate_up = nn.Linear(HIDDEN, 2 * FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q, k, v = self.qkv(h).split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
        q = q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = (FUSED["rope"] or rope)(q, cos, sin)
        k = (FUSED["rope"] or rope)(k, cos, sin)
        a = attention_core(q, k, v)
        x = x + self.out(a.transpose(1, 2).reshape(b, s, HEADS * HEAD_DIM))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


# --nanotron-layout: hidden states [seq, batch, hidden] and the attention's layout copies as
# nanotron's CausalSelfAttention makes them (huggingface/nanotron src/nanotron/models/llama.py at
# e24d2483, training path, multi-head attention): QKV's output permuted to [3, batch, seq, heads,
# d] contiguous, K and V stacked and permuted contiguous (for flash-attn's rotary kernel), the
# attention output viewed [batch, seq, h] and transposed to [seq, batch, h] before the output
# projection; SwiGLU on torch.split halves (its GLUActivation).
NANOTRON = {"on": False}


def nanotron_layer(layer, x, cos, sin):
    s, b, _ = x.shape
    qkv = layer.qkv(layer.attn_norm(x))
    q, k, v = qkv.view(s, b, 3, HEADS, HEAD_DIM).permute(2, 1, 0, 3, 4).contiguous()
    kv = torch.cat([k.unsqueeze(0), v.unsqueeze(0)], dim=0).permute(1, 2, 0, 3, 4).contiguous()
    k, v = torch.split(kv, 1, dim=2)
    k, v = k.squeeze(2), v.squeeze(2)  # [batch, seq, heads, d] views
    cs, sn = cos.transpose(1, 2), sin.transpose(1, 2)  # [1, seq, 1, d]
    q = (FUSED["rope"] or rope)(q, cs, sn)
    k = (FUSED["rope"] or rope)(k, cs, sn)
    a = attention_core(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
    a = a.transpose(1, 2).contiguous().view(b, s, HEADS * HEAD_DIM).transpose(0, 1)
    x = x + layer.out(a)
    gate, up = layer.gate_up(layer.mlp_norm(x)).split(FFN, dim=-1)
    return x + layer.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, layers, tied=False):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(Layer() for _ in range(layers))
        self.norm = RMSNorm(HIDDEN)
        self.head = None if tied else nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, tokens, labels, cos, sin):
        if NANOTRON["on"]:
            x = self.embed(tokens).transpose(0, 1).contiguous()  # [seq, batch, hidden]
            labels = labels.transpose(0, 1)
            for layer in self.layers:
                x = nanotron_layer(layer, x, cos, sin)
        else:
            x = self.embed(tokens)
            for layer in self.layers:
                x = layer(x, cos, sin)
        x = self.norm(x)
        logits = F.linear(x, self.embed.weight) if self.head is None else self.head(x)
        return F.cross_entropy(logits.float().view(-1, VOCAB), labels.reshape(-1))


# MosaicML's MPT as llm-foundry v0.3.0 builds it (llmfoundry/models/mpt/modeling_mpt.py, MPTBlock):
# LayerNorm without bias, one fused Wqkv projection, GELU MLP of 4·d, learned positions, the
# output projection tied to the token embedding. d_model and heads of the benchmark table's
# models (scripts/train/benchmarking/README.md); head dim 128 (64 for 125m and 350m); vocabulary
# 50368.
MPT = {"mpt-125m": (768, 12), "mpt-350m": (1024, 16), "mpt-760m": (1536, 12), "mpt-1b": (2048, 16),
       "mpt-7b": (4096, 32), "mpt-13b": (5120, 40)}
MPT_VOCAB = 50368

# The Ultra-Scale Playbook's Llama-style models (Hugging Face, 2025; their nanotron configs, as in
# tests/published/ultrascale-playbook-*.yaml): hidden, layers, heads (no grouped-query attention),
# FFN, vocabulary 131,072, the LM head tied to the embedding. Head dim 64 (1B) and 96 (3B).
PLAYBOOK = {"playbook-1b": (2048, 32, 8192), "playbook-3b": (3072, 32, 8192)}


class MptLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.d, self.heads = d, heads
        self.norm_1 = nn.LayerNorm(d, bias=False)
        self.wqkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.norm_2 = nn.LayerNorm(d, bias=False)
        self.up = nn.Linear(d, 4 * d, bias=False)
        self.down = nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.wqkv(self.norm_1(x)).chunk(3, dim=-1)
        q, k, v = (t.view(b, s, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        a = attention_core(q, k, v)
        x = x + self.out(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.gelu(self.up(self.norm_2(x))))


class MptModel(nn.Module):
    def __init__(self, layers, d, heads, seq):
        super().__init__()
        self.wte = nn.Embedding(MPT_VOCAB, d)
        self.wpe = nn.Embedding(seq, d)
        self.layers = nn.ModuleList(MptLayer(d, heads) for _ in range(layers))
        self.norm_f = nn.LayerNorm(d, bias=False)

    def forward(self, tokens, labels, cos, sin):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.wte(tokens) + self.wpe(pos)
        for layer in self.layers:
            x = layer(x)
        logits = F.linear(self.norm_f(x), self.wte.weight)
        return F.cross_entropy(logits.float().view(-1, MPT_VOCAB), labels.view(-1))


class MainGradLinear(torch.autograd.Function):
    """A bias-free linear layer whose weight gradient is added into an fp32 `main_grad` by the
    GEMM itself (beta = 1, fp32 C and D), as Megatron-LM's gradient-accumulation fusion and
    Transformer Engine's fuse_wgrad_accumulation do; autograd sees no weight gradient."""

    @staticmethod
    def forward(ctx, x, weight, main_grad):
        ctx.save_for_backward(x, weight)
        ctx.main_grad = main_grad
        return F.linear(x, weight)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        dx = dy @ weight
        dy2, x2 = dy.reshape(-1, dy.shape[-1]), x.reshape(-1, x.shape[-1])
        torch.addmm(ctx.main_grad, dy2.t(), x2, out_dtype=torch.float32, out=ctx.main_grad)
        return dx, None, None


def use_main_grad(model):
    """Every nn.Linear of `model` accumulates its weight gradient into weight.main_grad (fp32)."""
    for module in model.modules():
        if isinstance(module, nn.Linear):
            w = module.weight
            w.main_grad = torch.zeros(w.shape, device=w.device, dtype=torch.float32)
            module.forward = lambda x, w=w: MainGradLinear.apply(x, w, w.main_grad)


class Trainer:
    """bf16 model, fp32 master weights, fused AdamW, gradient accumulation over micro-batches
    (autograd's bf16 .grad, or with `main_grad` the linear layers' fp32 main gradients)."""

    def __init__(self, layers, seq, micro, device, compile_model=False, arch="llama-3.1-8b", batch=1,
                 main_grad=False, fp32_accum=False):
        torch.manual_seed(0)
        if arch in MPT:
            self.model = MptModel(layers, *MPT[arch], seq).to(device=device, dtype=torch.bfloat16)
            vocab = MPT_VOCAB
        else:
            self.model = Model(layers, tied=arch in PLAYBOOK).to(device=device, dtype=torch.bfloat16)
            vocab = VOCAB
        for p in self.model.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
        self.params = [p for p in self.model.parameters()]
        self.main_grad = main_grad
        if main_grad:
            use_main_grad(self.model)
        self.forward = torch.compile(self.model) if compile_model else self.model
        self.master = [p.detach().float().clone() for p in self.params]
        # nanotron's fp32 gradient accumulator: each micro-batch's bf16 gradient added into an
        # fp32 buffer, autograd's .grad dropped (2 + 4 + 4 bytes a parameter a micro-batch)
        self.accum = [torch.zeros_like(m) for m in self.master] if fp32_accum else None
        for m in self.master:
            m.grad = torch.zeros_like(m)
        self.opt = torch.optim.AdamW(self.master, lr=1e-5, fused=True)
        self.seq, self.micro, self.device = seq, micro, device
        self.cos, self.sin = rope_tables(seq, device, torch.bfloat16)
        g = torch.Generator(device="cpu").manual_seed(1)
        self.batches = [(torch.randint(0, vocab, (batch, seq), generator=g).to(device),
                         torch.randint(0, vocab, (batch, seq), generator=g).to(device)) for _ in range(micro)]

    def step(self, events=None):
        """One optimizer step; `events` (a list) gets (name, start, end) CUDA event pairs."""
        def ev():
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        t0 = ev()
        for i, (tokens, labels) in enumerate(self.batches):
            f0 = ev()
            loss = self.forward(tokens, labels, self.cos, self.sin)
            f1 = ev()
            loss.backward()
            if self.accum is not None:
                torch._foreach_add_(self.accum, [p.grad for p in self.params])
                for p in self.params:
                    p.grad = None
            b1 = ev()
            if events is not None:
                events.append(("forward", f0, f1))
                events.append(("backward", f1, b1))
        o0 = ev()
        grads = self.accum if self.accum is not None else \
            [p.main_grad if hasattr(p, "main_grad") else p.grad for p in self.params]
        torch._foreach_copy_([m.grad for m in self.master], grads)
        torch.nn.utils.clip_grad_norm_(self.master, 1.0, foreach=True)
        self.opt.step()
        torch._foreach_copy_([p.data for p in self.params], self.master)
        for p in self.params:
            p.grad = None
            if hasattr(p, "main_grad"):
                p.main_grad.zero_()
        if self.accum is not None:
            torch._foreach_zero_(self.accum)
        o1 = ev()
        if events is not None:
            events.append(("micro-batches", t0, o0))
            events.append(("optimizer", o0, o1))
            events.append(("step", t0, o1))
        return loss


def time_matmuls(device, out):
    """torch.matmul TFLOP/s on the shapes trainsim-calibrate's gemm also times (m×n×k, bf16)."""
    shapes = [(4096, 128256, 4096), (4096, 28672, 4096), (4096, 4096, 14336), (4096, 6144, 4096),
              (4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384)]
    res = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
        for _ in range(3):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        times = []
        reps = 30 if m * n * k < 2 ** 40 else 10
        for _ in range(reps):
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            s.record()
            torch.matmul(a, b)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) / 1e3)
        t = statistics.median(times)
        res.append({"m": m, "n": n, "k": k, "median_s": t, "tflops": 2 * m * n * k / t / 1e12,
                    "reps": reps, "note": "one matmul at a time (synchronised between runs)"})
        print(f"matmul {m}x{n}x{k}: {t * 1e3:.3f} ms, {res[-1]['tflops']:.1f} TFLOP/s", flush=True)
        del a, b
    # Back to back: 16384^3 sixty times without a pause, as a long training GEMM stream runs
    # (the power limit, not the boost clock, sets the rate; Standard Kernel, 2026-02-24).
    n = 16384
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    evs = [torch.cuda.Event(enable_timing=True) for _ in range(61)]
    evs[0].record()
    for i in range(60):
        torch.matmul(a, b)
        evs[i + 1].record()
    torch.cuda.synchronize()
    ts = [evs[i].elapsed_time(evs[i + 1]) / 1e3 for i in range(60)]
    fl = 2 * n ** 3
    out["matmul_back_to_back_16384"] = {
        "first5_tflops": [fl / t / 1e12 for t in ts[:5]],
        "last10_median_tflops": fl / statistics.median(ts[-10:]) / 1e12,
        "all_s": ts}
    print(f"16384^3 back to back: first {fl / ts[0] / 1e12:.0f}, last-10 median "
          f"{out['matmul_back_to_back_16384']['last10_median_tflops']:.0f} TFLOP/s", flush=True)
    out["matmul"] = res


def time_attention(device, seq, out):
    """SDPA forward and forward+backward, causal, b 1, Llama's heads (32, GQA 8; ÷ --tp), head dim
    128, bf16."""
    q = torch.randn(1, HEADS, seq, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(1, KV_HEADS, seq, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(1, KV_HEADS, seq, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
    g = torch.randn(1, HEADS, seq, HEAD_DIM, device=device, dtype=torch.bfloat16)
    fw, fb = [], []
    for i in range(23):
        s = torch.cuda.Event(enable_timing=True)
        m = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        o = attention_core(q, k, v)
        m.record()
        o.backward(g)
        e.record()
        e.synchronize()
        if i >= 3:
            fw.append(s.elapsed_time(m) / 1e3)
            fb.append(s.elapsed_time(e) / 1e3)
    # causal: half of 4·s²·a·d forward, 2.5× that forward+backward (FlashAttention-2 paper's count)
    flops_f = 4 * seq * seq * HEADS * HEAD_DIM / 2
    out["attention"] = {"seq": seq, "heads": HEADS, "kv_heads": KV_HEADS, "head_dim": HEAD_DIM,
                        "gqa_native": ATTENTION["gqa"],
                        "forward_s": statistics.median(fw), "forward_backward_s": statistics.median(fb),
                        "forward_tflops": flops_f / statistics.median(fw) / 1e12,
                        "forward_backward_tflops": 3.5 * flops_f / statistics.median(fb) / 1e12}
    print("attention", json.dumps(out["attention"]), flush=True)


def attention_sweep(device, out):
    """SDPA FlashAttention forward and forward+backward as the FlashAttention-2 paper benchmarks
    it (Dao 2023, §4.1): batch × sequence = 16k tokens, hidden 2048 (head dim 64: 32 heads; 128:
    16 heads), causal and not; TFLOP/s counted as the paper counts them (4·s²·d·heads, halved
    when causal; backward 2.5 × forward)."""
    rows = []
    for d in (64, 128):
        heads = 2048 // d
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            b = 16384 // s
            for causal in (False, True):
                q = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16, requires_grad=True)
                k = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16, requires_grad=True)
                v = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16, requires_grad=True)
                g = torch.randn(b, heads, s, d, device=device, dtype=torch.bfloat16)
                from torch.nn.attention import SDPBackend, sdpa_kernel
                fw, bw = [], []
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    for i in range(13):
                        e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
                        e[0].record()
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        e[1].record()
                        o.backward(g)
                        e[2].record()
                        e[2].synchronize()
                        if i >= 3:
                            fw.append(e[0].elapsed_time(e[1]) / 1e3)
                            bw.append(e[1].elapsed_time(e[2]) / 1e3)
                flops = 4 * b * s * s * heads * d * (0.5 if causal else 1.0)
                tf, tb = statistics.median(fw), statistics.median(bw)
                rows.append({"head_dim": d, "seq": s, "batch": b, "heads": heads, "causal": causal,
                             "forward_s": tf, "backward_s": tb, "forward_tflops": flops / tf / 1e12,
                             "backward_tflops": 2.5 * flops / tb / 1e12,
                             "forward_backward_tflops": 3.5 * flops / (tf + tb) / 1e12})
                print(f"attention d {d} s {s:5d} causal {int(causal)}: fwd {rows[-1]['forward_tflops']:.0f}"
                      f" bwd {rows[-1]['backward_tflops']:.0f} fwd+bwd {rows[-1]['forward_backward_tflops']:.0f}"
                      " TFLOP/s", flush=True)
                del q, k, v, g, o
    out["attention_sweep"] = rows


def long_attention(device, out):
    """Long-context attention as context parallelism runs it: Llama-3.1-8B's heads (32 query, 8
    key/value, head dim 128), b 1. The whole causal sequence at 32K-128K tokens, and the blocks of
    one 131,072-token sequence split zig-zag over cp ranks (each rank holds chunks i and 2cp-1-i of
    c = S/(2cp) tokens; Megatron-core / Transformer Engine's ring attention): the diagonal step is
    causal over the rank's 2c tokens, every other step non-causal, either all 2c queries against
    the first c keys of the block received or the last c queries against all 2c keys."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    cases = [("causal", s, s) for s in (32768, 65536, 131072)]
    for cp in (2, 4, 8, 16):
        c = 131072 // (2 * cp)
        cases += [("causal", 2 * c, 2 * c), ("full", 2 * c, c), ("full", c, 2 * c)]
    rows = []
    for mask, sq, sk in cases:
        q = torch.randn(1, HEADS, sq, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(1, KV_HEADS, sk, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(1, KV_HEADS, sk, HEAD_DIM, device=device, dtype=torch.bfloat16, requires_grad=True)
        g = torch.randn(1, HEADS, sq, HEAD_DIM, device=device, dtype=torch.bfloat16)
        fw, bw = [], []
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            for i in range(7):
                e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
                e[0].record()
                o = F.scaled_dot_product_attention(q, k, v, is_causal=mask == "causal", enable_gqa=True)
                e[1].record()
                o.backward(g)
                e[2].record()
                e[2].synchronize()
                if i >= 2:
                    fw.append(e[0].elapsed_time(e[1]) / 1e3)
                    bw.append(e[1].elapsed_time(e[2]) / 1e3)
        flops = 4 * sq * sk * HEADS * HEAD_DIM * (0.5 if mask == "causal" else 1.0)
        tf, tb = statistics.median(fw), statistics.median(bw)
        rows.append({"mask": mask, "seq_q": sq, "seq_k": sk, "heads": HEADS, "kv_heads": KV_HEADS,
                     "head_dim": HEAD_DIM, "forward_s": tf, "backward_s": tb,
                     "forward_tflops": flops / tf / 1e12, "backward_tflops": 2.5 * flops / tb / 1e12})
        print(f"attention {mask:6s} {sq:6d} x {sk:6d}: fwd {tf * 1e3:8.2f} ms {rows[-1]['forward_tflops']:4.0f}"
              f" bwd {tb * 1e3:8.2f} ms {rows[-1]['backward_tflops']:4.0f} TFLOP/s", flush=True)
        del q, k, v, g, o
        torch.cuda.empty_cache()
    out["long_attention"] = rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--micro", type=int, default=4)
    ap.add_argument("--steps", type=int, default=8, help="timed steps (median kept)")
    ap.add_argument("--no-trace", action="store_true", help="time only; no profiler trace")
    ap.add_argument("--no-kernels", action="store_true", help="skip the matmul and attention timings")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (fused kernels)")
    ap.add_argument("--arch", default="llama-3.1-8b", choices=["llama-3.1-8b", *MPT, *PLAYBOOK],
                    help="the layer: Llama-3.1-8B's, an MPT of llm-foundry's benchmark table, or "
                         "the Ultra-Scale Playbook's 1B or 3B (tied embeddings)")
    ap.add_argument("--batch", type=int, default=1, help="sequences per micro-batch")
    ap.add_argument("--tp", type=int, default=1,
                    help="one tensor-parallel rank's shapes (Llama only): query and key/value heads, "
                         "FFN and vocabulary divided by TP, hidden and head dim kept, no "
                         "communication (Megatron's column/row-parallel split without sequence "
                         "parallelism; scenario llama-4l-tpN-1gpu.yaml)")
    ap.add_argument("--main-grad", action="store_true",
                    help="linear layers accumulate their weight gradients into fp32 main gradients "
                         "inside the GEMM (Megatron's gradient-accumulation fusion)")
    ap.add_argument("--fp32-accum", action="store_true",
                    help="accumulate micro-batches' gradients into fp32 buffers after each backward "
                         "(nanotron's gradient accumulator)")
    ap.add_argument("--fused-norm-rope", action="store_true",
                    help="RMSNorm and the rotary embedding as generated fused kernels (torch.compile "
                         "of those two functions alone), the rest op by op")
    ap.add_argument("--nanotron-layout", action="store_true",
                    help="hidden states [seq, batch, hidden] and nanotron's layout copies around "
                         "attention (the Playbook's archs: multi-head attention only)")
    ap.add_argument("--attention-sweep", action="store_true",
                    help="only time SDPA FlashAttention over sequence lengths and head dims")
    ap.add_argument("--long-attention", action="store_true",
                    help="only time causal attention at 32K-128K tokens and context-parallel blocks")
    args = ap.parse_args()
    global HEADS, KV_HEADS, FFN, VOCAB, HIDDEN, HEAD_DIM
    if args.arch in PLAYBOOK:
        HIDDEN, HEADS, FFN = PLAYBOOK[args.arch]
        KV_HEADS, VOCAB, HEAD_DIM = HEADS, 131072, HIDDEN // HEADS
    if args.tp < 1:
        ap.error("--tp is 1 or more")
    if args.tp > 1:
        if args.arch != "llama-3.1-8b" or KV_HEADS % args.tp:
            ap.error("--tp takes Llama-3.1-8B and a divisor of its 8 key/value heads")
        HEADS, KV_HEADS, FFN, VOCAB = HEADS // args.tp, KV_HEADS // args.tp, FFN // args.tp, VOCAB // args.tp
    if args.nanotron_layout:
        if args.arch not in PLAYBOOK:
            ap.error("--nanotron-layout takes a playbook-* arch (multi-head attention)")
        NANOTRON["on"] = True
    if args.fused_norm_rope:
        FUSED["rms"], FUSED["rope"] = torch.compile(rms_norm), torch.compile(rope)
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    out = {"device": props.name, "sms": props.multi_processor_count, "memory_bytes": props.total_memory,
           "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "layers": args.layers, "seq": args.seq,
           "micro_batches": args.micro, "arch": args.arch, "batch": args.batch,
           "main_grad": args.main_grad, "fp32_accum": args.fp32_accum,
           "fused_norm_rope": args.fused_norm_rope, "nanotron_layout": args.nanotron_layout,
           "tp": args.tp, "script": "calibrate/reference/llama_step.py"}
    if args.arch in MPT:  # the shapes the run had (MPT's heads are of d_model / heads)
        d, heads = MPT[args.arch]
        out.update({"hidden": d, "heads": heads, "kv_heads": heads, "ffn": 4 * d, "vocab": MPT_VOCAB})
    else:
        out.update({"hidden": HIDDEN, "heads": HEADS, "kv_heads": KV_HEADS, "head_dim": HEAD_DIM, "ffn": FFN,
                    "vocab": VOCAB})
    try:
        nccl = torch.cuda.nccl.version()
        out["nccl"] = ".".join(map(str, nccl)) if isinstance(nccl, tuple) else str(nccl)
    except Exception:  # noqa: BLE001 - provenance only
        pass
    print(json.dumps(out), flush=True)

    def save():
        with open(os.path.join(args.out, "reference.json"), "w") as f:
            json.dump(out, f, indent=1)

    # Does the flash backend take GQA directly? Else repeat K and V (Hugging Face's repeat_kv).
    try:
        q = torch.randn(1, HEADS, 256, HEAD_DIM, device=device, dtype=torch.bfloat16)
        kv = torch.randn(1, KV_HEADS, 256, HEAD_DIM, device=device, dtype=torch.bfloat16)
        attention_core(q, kv, kv)
    except Exception as e:  # noqa: BLE001
        print(f"flash backend without enable_gqa ({e}); repeating K and V", flush=True)
        ATTENTION["gqa"] = False
    out["gqa_native"] = ATTENTION["gqa"]
    if args.attention_sweep or args.long_attention:
        (long_attention if args.long_attention else attention_sweep)(device, out)
        save()
        return 0
    out["compiled"] = args.compile
    ATTENTION["pin"] = not args.compile

    for name, fn in (("attention", lambda: time_attention(device, args.seq, out)),
                     ("matmul", lambda: time_matmuls(device, out))):
        if args.no_kernels:
            break
        try:
            fn()
        except Exception:  # noqa: BLE001 - keep going: the step below matters most
            traceback.print_exc()
            out[name + "_error"] = traceback.format_exc()
        torch.cuda.empty_cache()
        save()

    tr = Trainer(args.layers, args.seq, args.micro, device, compile_model=args.compile, arch=args.arch,
                 batch=args.batch, main_grad=args.main_grad, fp32_accum=args.fp32_accum)
    out["parameters"] = sum(p.numel() for p in tr.params)
    if args.main_grad:  # the linear weights' gradients land in main_grad, not in autograd's .grad
        tokens, labels = tr.batches[0]
        tr.forward(tokens, labels, tr.cos, tr.sin).backward()
        linear = [p for p in tr.params if hasattr(p, "main_grad")]
        assert linear and all(p.grad is None and p.main_grad.abs().sum() > 0 for p in linear)
        for p in tr.params:
            p.grad = None
            if hasattr(p, "main_grad"):
                p.main_grad.zero_()
    w0 = time.perf_counter()
    try:
        tr.step()
    except Exception:  # noqa: BLE001 - a compiled GQA attention PyTorch cannot lower: repeat K, V
        if not args.compile or not ATTENTION["gqa"]:
            raise
        traceback.print_exc()
        print("retrying with K and V repeated", flush=True)
        ATTENTION["gqa"] = False
        out["gqa_native"] = False
        del tr
        torch._dynamo.reset()
        torch.cuda.empty_cache()
        tr = Trainer(args.layers, args.seq, args.micro, device, compile_model=True, arch=args.arch,
                     batch=args.batch)
        tr.step()
    for _ in range(2):
        tr.step()
    torch.cuda.synchronize()
    out["warmup_s"] = time.perf_counter() - w0
    print(f"3 warm-up steps {out['warmup_s']:.1f} s", flush=True)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    steps = []
    w0 = time.perf_counter()
    for _ in range(args.steps):
        evs = []
        tr.step(evs)
        torch.cuda.synchronize()
        steps.append({name: s.elapsed_time(e) / 1e3 for name, s, e in evs if name not in ("forward", "backward")}
                     | {"forward": [s.elapsed_time(e) / 1e3 for n, s, e in evs if n == "forward"],
                        "backward": [s.elapsed_time(e) / 1e3 for n, s, e in evs if n == "backward"]})
    out["wall_per_step_s"] = (time.perf_counter() - w0) / args.steps
    out["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
    out["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    out["steps"] = steps
    med = lambda key: statistics.median(s[key] for s in steps)  # noqa: E731
    out["median"] = {"step_s": med("step"), "micro_batches_s": med("micro-batches"),
                     "optimizer_s": med("optimizer"),
                     "forward_s": statistics.median(x for s in steps for x in s["forward"]),
                     "backward_s": statistics.median(x for s in steps for x in s["backward"])}
    print("step medians", json.dumps(out["median"]), f"peak {out['peak_allocated_bytes'] / 1e9:.2f} GB",
          flush=True)
    save()
    if args.no_trace:
        return 0

    # The trace: five steps, the first two skipped and warm-up, three recorded (ProfilerStep#2..#4).
    from torch.profiler import ProfilerActivity, profile, schedule
    raw = os.path.join(args.out, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(5):
            tr.step()
            prof.step()
    torch.cuda.synchronize()
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    out["trace"] = "trace.json.gz"
    out["trace_bytes"] = os.path.getsize(raw + ".gz")
    save()
    print(f"trace {out['trace_bytes'] / 1e6:.2f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
