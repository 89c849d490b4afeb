#pragma once
#include <array>  // std::array

// Every constant of the analytic cost model, in one place, each with its source. None is tuned
// to match a particular measurement; a scenario's `efficiency:` section or a calibration
// profile replaces them.

namespace trainsim::constants {

/// Fraction of dense peak FLOP/s a large bf16 GEMM reaches. Measured: 8192³ bf16 GEMMs
/// measure ≈ 790 TFLOP/s on H100/H200 (0.78–0.81 of the 989 TFLOP/s datasheet peak); 0.80 is
/// the middle of that range. Smaller shapes lose more through wave quantization (below).
inline constexpr double kGemmEfficiency = 0.80;

/// GEMM output tile used for wave quantization (NVIDIA "Matrix Multiplication Background"
/// guide: cuBLAS tiles are 128×128 or 256×128 on Ampere/Hopper; the smaller is used).
inline constexpr int kGemmTile = 128;

/// Fraction of peak FLOP/s the attention core (FlashAttention-2) reaches: its paper reports
/// 50–73% of peak for the forward pass on A100 (Dao 2023, §4.1); the lower end, since the
/// backward pass is slower.
inline constexpr double kAttentionEfficiency = 0.50;

/// Time of a fused attention kernel with dropout (any p > 0: the random numbers are drawn for
/// every score whatever p is) over the same kernel without, forward and backward. Measured:
/// PyTorch's FlashAttention-2 (SDPA's flash backend), bf16, causal, dropout 0.1 against 0, head
/// dims 64 and 128, 512-16,384 tokens (batch × tokens = 16k), and Llama-3-8B's heads at one
/// 8,192-token sequence: 18 shapes per GPU (calibrate/reference/h100-sxm-kernel-probe.json and
/// h200-kernel-probe.json): forward medians 1.27 (H100 SXM) and 1.22 (H200), range 1.09-1.36;
/// backward alone 1.10 and 1.11, range 1.05-1.20 but for one H100 shape at 0.88. FlashAttention-2
/// runs its Ampere code on Hopper, so the A100 is taken to pay the same share (xformers'
/// CUTLASS kernel, another code, paid 3-4 % in the backward on an A100: facebookresearch/xformers
/// PR 587). FlashAttention-3 has no dropout: a run with dropout is timed as FlashAttention-2
/// (AnalyticCostModel's resolve_constants). A calibration profile's attention samples come from
/// a traced run, its dropout in them: no ratio.
inline constexpr double kAttentionDropoutForward = 1.24;
inline constexpr double kAttentionDropoutBackward = 1.11;
/// The same for cuDNN's fused attention (training.attention cudnn), measured beside it (SDPA's
/// cuDNN backend, the same 12 shapes on each GPU, `cudnn_attention`): forward medians 2.19 (H100
/// SXM) and 2.13 (H200), range 1.70-2.59; backward alone 1.18 and 1.19, range 0.92-1.39.
inline constexpr double kCudnnAttentionDropoutForward = 2.16;
inline constexpr double kCudnnAttentionDropoutBackward = 1.19;
/// A fused attention launch's parallelism: it runs b·heads·⌈s/128⌉ query tiles, and takes as
/// long as (tiles + c·SMs) tiles spread over the SMs, as if each SM ran c tiles more than its
/// share (a causal mask gives tiles of unequal length, so the longest finish alone; the first
/// and last wave ramp). So its throughput is x / (x + c) of the full rate at x tiles per SM.
/// The published and measured curves (cost/kernel_data.cpp) all launch the papers' benchmark,
/// batch × sequence = 16k tokens and hidden 2048 (2,048 tiles at head dim 128, 4,096 at 64):
/// 15.5 tiles per SM on an H100, where a tensor-parallel rank's micro-batch of one sequence
/// launches its heads ÷ tp (Llama-3-8B at tp 8, 8,192 tokens: 256 tiles, 1.9 per SM).
/// Measured on an NVIDIA H200 (twice) and an H100 SXM (132 SMs each, 2026-11-27;
/// calibrate/reference/kernel_probe.py `attention_parallelism`, results
/// h200-attention-parallelism.json, -repeat.json and h100-sxm-attention-parallelism.json): SDPA's
/// FlashAttention-2 and cuDNN backends, bf16, batch 1 and 1-64 heads, head dims 64 and 128,
/// 4k-16k tokens, causal, each series against its own point at 2,048 tiles; fitted over the three
/// runs (calibrate/reference/fit_attention_parallelism.py), x ≥ 1.5 and calls of 0.3 ms or more
/// forward, 1 ms backward (shorter ones wait on the host between the backward's kernels):
/// FlashAttention-2 forward c = 2.30 (rms 3.0 % over 78 points; the H200's runs 2.25, the H100's
/// 2.40), backward 0.25 (3.9 %, 63; H100 0.30); cuDNN forward 1.7 (4.9 %, 60; the runs alone 1.6,
/// 1.8, 1.8), backward 0 (no loss measured). The kernels of real steps agree
/// (four Llama-3.1-8B layers with one TP rank's shapes, tp 1-8, h200-tp-step.json):
/// FlashAttention-2's forward at tp 2, 4, 8 ran 0.87, 0.77, 0.62 of its tp-1 rate (modelled 0.89,
/// 0.72, 0.53), its backward 1.00, 0.96, 0.86 (0.98, 0.95, 0.90). And so do longer sequences
/// measured on an H100 in an earlier session (h100-sxm-long-attention.json: 32 heads, one sequence,
/// 8K-128K tokens, x = 15.5-248): forward 309, 331, 349-363, 337-342, 318 TFLOP/s against 314, 336,
/// 348, 354, 357 modelled (the 16K chart's rate, held beyond it, times the factor).
/// FlashAttention(-1), llm-foundry's Triton kernel and FlashAttention-3, not measured, take
/// FlashAttention-2's. Below about two tiles per SM the same runs show what the backward's
/// x / (x + c), fitted from 1.5 on, misses: a causal backward lasts at least as long as its
/// longest key tile (all k of its sequence's query blocks, against (k + 1) / 2 on average), so
/// one head of 16K tokens (x = 0.97) ran its backward in the time of two heads, 0.43-0.52 of the
/// 4-head launch's rate, both kernels, both GPUs, where c = 0.25 and 0 give 0.85 and 1.00
/// (cost/kernel_data.h, attention_tile_bound; the backward's rate is held to that bound).
inline constexpr double kAttentionTileOverheadForward = 2.30;
inline constexpr double kAttentionTileOverheadBackward = 0.25;
inline constexpr double kCudnnAttentionTileOverheadForward = 1.7;
inline constexpr double kCudnnAttentionTileOverheadBackward = 0.0;
/// The query tile of that count: 128 rows (FlashAttention-2's forward tile at head dim 128).
inline constexpr double kAttentionTileRows = 128;

/// A B200's attention throughput at its power limit over its throughput at a free clock.
/// NVIDIA's cudnn-frontend benchmark, the source of the B200 attention curves
/// (cost/kernel_data.cpp), pauses between calls to keep the GPU from throttling; a training step
/// holds it at the limit. flashinfer-ai/flashinfer PR #2899 (2026-03-26) timed FlashAttention-4's
/// bf16 forward (batch 4, 8,192 tokens, 16 heads of 128) on a B200 back to back: 1,450 TFLOP/s at
/// its peak, 1,237 once fully throttled (power near 1,000 W, SM clock 1,965 → about 1,580 MHz):
/// 0.853. The GEMM sweep's own longest GEMM agrees (1,397 TFLOP/s against 1,607–1,624 for the
/// 1–3 ms ones: 0.86–0.87, cost/gemm_efficiency.h). It is the power limit's, not the GPU's: the
/// GB200 curve is scaled to B200's peak (its clock and SMs) apart from it. Hopper's curves were
/// timed here back to back (warm-up and ten calls, no pauses) and match the kernels of a real step
/// (calibrate/reference/), so they take none.
inline constexpr double kB200AttentionSustained = 0.853;
/// The same for a GB300 (1,400 W), whose attention curve the same benchmark timed with pauses: no
/// back-to-back attention measurement is published, so its own GEMMs give the share. In NVIDIA's
/// aiconfigurator database the GB300's bf16 GEMMs of 10 ms or more run at a median 1,744 TFLOP/s
/// (cost/gemm_efficiency.h) against 1,917 for the grid's 1–3 ms ones: 0.910. The rule is not
/// B200's: by it B200 would get 1,337 / 1,623 = 0.824 against its measured 0.853, so a share read
/// so may be 3–4 % low.
inline constexpr double kGb300AttentionSustained = 0.910;
/// The same for a B300 (HGX B300, 1,100 W), which runs GB300's attention curves (the same chip;
/// no B300 benchmark is published): its bf16 GEMMs of 10 ms or more in the aiconfigurator
/// database run at a median 1,437.8 TFLOP/s (cost/gemm_efficiency.cpp) against the 1,916.7 at
/// which GB300's grid ran its 1–3 ms ones, the clock GB300's curves were timed at: 0.750, of
/// which the peaks' ratio (2.25 / 2.5 PFLOP/s, which the model applies apart) is 0.9. Estimated
/// by GB300's rule, not measured on attention.
inline constexpr double kB300AttentionSustained = (1437.8 / 1916.7) / (2.25 / 2.5);
/// The same for a GB200 (1,200 W), whose curves are the same benchmark's (its own for cuDNN 9.17
/// on, B200's of 9.13 before): by the same rule as GB300's, its bf16 GEMMs of 10 ms or more in the
/// database (91, one of them on the grid) run at a median 1,435 TFLOP/s against 1,731 for the
/// grid's 1–3 ms ones: 0.829 (B200's, by the same rule: 1,337 / 1,623 = 0.824, its measured 0.853).
inline constexpr double kGb200AttentionSustained = 0.829;

/// Fraction of HBM bandwidth streaming (elementwise, norm, optimizer) kernels reach. STREAM
/// copy/triad kernels sustain ≈ 3.0–3.1 of the 3.35 TB/s datasheet figure on H100 SXM (≈ 0.9);
/// real training kernels mix reads and writes of several tensors and do less: 0.8. A
/// calibration profile replaces this with measured bandwidth-versus-size curves.
inline constexpr double kMemoryEfficiency = 0.80;

/// GPU-side cost of one kernel boundary (launch plus tail), seconds. CUDA kernel launch latency
/// is a few microseconds (NVIDIA CUDA C++ Best Practices Guide); 2 µs, no CUDA graphs. Charged
/// once per kernel of AnalyticCostModel::kernels (a layer's forward: 4 GEMMs, attention, 2 norms,
/// 2 residual adds, the activation and rotary = 11 kernels).
inline constexpr double kKernelLaunch = 2e-6;

/// CPU time to issue one kernel in an eager PyTorch step (`training.runtime: eager`), seconds:
/// the Python module code, the dispatcher and the launch call between one launch and the next.
/// Measured here on a recorded step whose CPU never waited for the GPU (its launch calls took
/// 7–8 µs at the median, 26 µs at the 99th percentile: the launch queue never filled, so the
/// CPU set its own pace): tests/data/kineto/h200-llama8b-4layers-tp8.json.gz, ProfilerStep#3
/// and #4, 1,158 kernels and copies launched (both CPU threads, the forward's and autograd's),
/// the first launch call 55.85 ms before the last: 48.3 µs apart on average (median 35 µs;
/// the step's CPU span, 56.5 ms). Under torch.profiler with
/// record_shapes, whose own bookkeeping per operator is in it: an upper estimate of an
/// unprofiled run. A fused framework's per-kernel CPU time is not measured here: launched
/// without CUDA graphs (`runtime: fused`: Megatron-core, NeMo, Transformer Engine) it takes
/// this figure, as its modules are no lighter on the CPU than PyTorch's (Transformer Engine's
/// Linear took 99.66 µs of CPU a forward call against PyTorch's Linear's 37.08 on a GB200,
/// TransformerEngine issue #2053, 2025-08-11); under CUDA graphs or torch.compile (`runtime:
/// compiled`) 0, its CPU assumed ahead of the GPU. Override: efficiency.host_per_kernel.
inline constexpr double kEagerHostPerKernel = 48.3e-6;

/// CPU time of one collective call in an eager PyTorch step (torch.distributed into
/// ProcessGroupNCCL: argument checks, the work object, CUDA events, the NCCL stream's wait on
/// the compute stream, the NCCL launch), seconds: the duration of the `c10d::` operators in two
/// real Kineto traces (tests/data/kineto, from facebookresearch/HolisticTraceAnalysis):
/// nccl_data.json.gz (A100, PyTorch 2.2+, NCCL 2.17.1: 15 `c10d::allreduce_` and 6
/// `c10d::broadcast_`, 261–390 µs, median 278 µs) and sampled_rank-0/-1.json.gz (one 128-GPU
/// run, both ranks: all-reduces, all-to-alls and all-gathers, 102–461 µs, median 175.5 µs).
/// Each run weighs once: (278.3 + 175.5) / 2 = 227 µs (all 41 calls pooled: 271 µs, the run with
/// more calls weighing more). Under the profiler, as
/// kEagerHostPerKernel is; the Python around the call (a framework's autograd function, the
/// output's allocation) is not in it. Charged in place of kEagerHostPerKernel for each TP, CP
/// and EP collective a pass issues through torch.distributed (not Transformer Engine's
/// userbuffers exchanges, issued from C++ inside their GEMM's call: a kernel's each). Override:
/// efficiency.host_per_collective.
inline constexpr double kEagerHostPerCollective = 227e-6;

/// How much longer a Grace CPU (GB200, GB300: cluster.host_cpu grace) takes than an x86 server
/// CPU to run the same PyTorch host code, for kEagerHostPerKernel and kEagerHostPerCollective,
/// both measured on x86 hosts. TransformerEngine issue #2053 ("High CPU overhead on Grace
/// systems", 2025-08-11) timed torch.nn.Linear's forward (bf16, hidden 2048, 8,192 tokens) on
/// the CPU: 37.08 µs a call on a GB200 node, 33.17 on a GH200, 13.48 on a DGX H100 (Intel Xeon
/// Platinum 8480C); the GB200's ratio, 37.08 / 13.48 = 2.75 (Transformer Engine's own Linear:
/// 99.66 µs on the GB200, 2.69 times PyTorch's there). GB300 has the same Grace CPU.
inline constexpr double kGraceHostSlowdown = 37.08 / 13.48;

/// Bytes per value of an FP8 token dispatch (training.fp8_dispatch): the FP8 value and one fp32
/// scale per 1×128 tile of a token's activations (DeepSeek-V3 Technical Report, arXiv:2412.19437,
/// §3.3.1 fine-grained quantization; §3.3.2 dispatches the quantized activations).
inline constexpr double kFp8DispatchBytesPerValue = 1.0 + 4.0 / 128.0;

/// Bytes per element of an MXFP8 cast (training.fp8_recipe mxfp8): it reads the 16-bit tensor
/// and writes it twice in FP8, row- and column-wise (an MXFP8 block of 32 values runs along the
/// GEMM's reduction dimension, which the forward or input-gradient GEMM and the weight-gradient
/// GEMM take on different axes: Transformer Engine's MXFP8Quantizer with both usages), each
/// copy with one 1-byte E8M0 scale per 32 values (OCP Microscaling Formats (MX) Specification
/// v1.0, 2023, §5: MXFP8 E4M3/E5M2, k = 32, shared scale E8M0).
inline constexpr double kMxfp8CastBytes = 2.0 + 2.0 * (1.0 + 1.0 / 32.0);

/// How much longer Transformer Engine's MXFP8 casts take on Blackwell than kMxfp8CastBytes at
/// the model's memory-bound rate (kMemoryEfficiency of the HBM bandwidth). Measured, the kernel
/// alone: Transformer Engine's MXFP8 cast of an 8192 × 8192 bf16 tensor on a B200, both layouts,
/// 52.34 µs (the "B200 (us)" column of ROCm/TransformerEngine PR #598, 2026-05-27, CAST_ONLY: the
/// NVIDIA kernels its port, branched at Transformer Engine 2.14, is compared with): 272.6 MB, 5.21
/// TB/s, 0.65 of the 8 TB/s, where the model gives 0.8: 1.229 times the model's time (row-wise
/// alone 34.84 µs, 5.84 TB/s; column-wise 39.61 µs, 5.14). Another run of the same kernel agrees:
/// its cast fused with the bias gradient, both layouts, on a B200 (NVIDIA/TransformerEngine PR
/// #3137, 2026-09-15, dbias_bf16_e4m3 at 4096 × 14336, the existing C++ kernel) 47.05 µs,
/// 5.07 TB/s (1.262; 3.34 TB/s at 4096 × 4096: small tensors run slower still). So does
/// Transformer Engine's GEMM benchmark on a B300 (kNvfp4CastOverhead below) as merged: 8.984 ms
/// under MXFP8 autocast and 7.161 pre-quantized, 1.823 ms of casts of 1.495 G input elements both
/// ways and 0.988 G weight elements row-wise (9.07 GB), 1.287 times the model's time; not its
/// first draft (commit 81c10a514: 8.507 and 7.324 ms, 1.183 ms, 0.835), which the merged rerun
/// does not reproduce.
inline constexpr double kMxfp8CastOverhead =
    52.34e-6 * kMemoryEfficiency * 8.0e12 / (8192.0 * 8192.0 * kMxfp8CastBytes);

/// How much longer a standalone per-tensor FP8 cast under current scaling (training.fp8_recipe
/// tensorwise: Transformer Engine reads the tensor for its amax, nvte_compute_amax, then casts
/// it, nvte_quantize) takes on Blackwell than its ideal bytes (2 + 2 + 1: Blackwell keeps no
/// transposed copy) at the model's memory-bound rate. Measured by Transformer Engine's GEMM
/// benchmark on a B300 (kNvfp4CastOverhead below), one layer's 12 calls: FP8 current scaling's
/// take 9.147 ms in autocast and 6.812 ms pre-quantized, 2.335 ms of casts of the same 1.495 G +
/// 0.988 G elements, 12.42 GB: 1.204. The
/// cast pass alone keeps the model's rate: the page's two delayed-scaling runs (no amax pass;
/// 7.802 and 8.123 ms, both in autocast, their GEMMs the same per-tensor FP8 kernels) leave 0.99
/// and 1.31 ms for 7.45 GB of casts (0.85 and 1.13 of the model's time), so a cast whose amax
/// its norm or activation computed (a fused one) takes no factor. Hopper takes none either: the
/// page's H200 NVL run (4.8 TB/s) gives current scaling's casts 20.285 − 16.785 = 3.50 ms for
/// 13.91 GB (inputs 2 + 4 with their transposes, weights 2 + 3), 0.97 of the model's time, and
/// delayed scaling's (18.978 and 19.099 ms) 2.19 and 2.31 ms for 8.95 GB (0.94 and 0.99).
inline constexpr double kBlackwellFp8CurrentCastOverhead =
    (2.335e-3 * kMemoryEfficiency * 8.0e12) / ((1.495e9 + 0.988e9) * 5.0);

/// Bytes per element an NVFP4 cast of an activation or a weight (training.fp8_recipe nvfp4)
/// takes the time of, at the HBM rate the model gives memory-bound kernels (kMemoryEfficiency of
/// the GPU's bandwidth), as Transformer Engine 2.14 runs it (the release NeMo Framework 26.04
/// ships, "2.14+71bbefb": NVIDIA-NeMo/Megatron-Bridge docs/releases/software-versions.md, PR
/// #3421; the MLPerf v6.0 runs' ngc26.04 containers). NVFP4's quantizer
/// (transformer_engine/pytorch/csrc/quantizer.cpp, NVFP4Quantizer::quantize_impl, v2.14) runs two
/// passes: one reads the 16-bit tensor for its amax (and the Hadamard-rotated tensor's,
/// nvte_hadamard_transform_amax), one reads it again and writes 4-bit values with an E4M3 scale
/// per 16, row-wise and, Hadamard-rotated, column-wise (nvte_quantize_with_hadamard_transform,
/// PR #2555): 2 + 2 + 2 · (0.5 + 1/16) = 5.125 bytes an element; a weight's 16×16-block cast
/// (no rotation) moves the same. Its norms and activations compute in 16 bits and cast after
/// (normalization.cpp, activation.cpp: Impl::UNFUSED for NVFP4 with the rotation), so every
/// NVFP4 operand takes this cast. Measured: Transformer Engine's GEMM benchmark on a B300
/// (docs/examples/gemm_profiling/gemm_profiling.rst, commit 1609c890e, 2026-06-01, before the
/// scale-swizzle fusion of PR #3011; benchmarks/gemm/benchmark_gemm.py, CUDA events) times one
/// layer's 12 forward te.Linear calls (hidden 4096, FFN 16384, 15,872 tokens) at 6.453 ms under
/// NVFP4 autocast and 3.764 ms with the operands quantized before: 2.689 ms of casts, of 1.495 G
/// input elements both ways with the rotation (5.125 bytes each) and 0.988 G weight elements
/// row-wise only (its inputs need no gradient: 2 + 2 + 0.5625 bytes), 12.17 GB in all, 4.53 TB/s
/// against the 0.8 × 8 TB/s = 6.4 the model gives a B300's memory-bound kernels: 1.414 times
/// the ideal bytes' time, 5.125 × 1.414 = 7.25 bytes an element. (Before session 91 this was
/// MXFP8's cast × 2.685 / 1.183, the two recipes' cast times in the page's first draft, 9.22;
/// the merged page reran MXFP8's at 1.823 ms, where NVFP4's stayed at 2.689: the ratio was no
/// anchor.) Earlier releases (2.8–2.13) read the input once more for the rotated cast
/// (7.125 ideal bytes; TE's benchmarks/benchmark_rht_cast.py counts it so), not modelled: the
/// suite's runs on NGC 25.09 (TE 2.8: HPE's NVFP4 8B on B200s, GB200s and a B300 node) are
/// priced as 2.14 runs them, and come out too slow already (tests/published/README.md).
/// The constants below: the benchmark's cast time over its ideal bytes' at the model's
/// memory-bound rate (a B300's 8 TB/s), 1.414; the two passes' ideal bytes; their product.
inline constexpr double kNvfp4CastOverhead =
    (2.689e-3 * kMemoryEfficiency * 8.0e12) / (1.495e9 * 5.125 + 0.988e9 * 4.5625);
/// The two passes' ideal bytes an element: the amax pass reads the tensor (2), the cast pass
/// reads it again and writes 4 bits and an E4M3 scale per 16 each way (2 + 2 · 0.5625). Without
/// the Hadamard transform (training.nvfp4_hadamard false) a norm's or activation's output cast
/// takes the amax its kernel computed (normalization.cpp FUSED_NORM_AMAX_NVFP4, activation.cpp
/// FUSED_ACTIVATION_AMAX_NVFP4): the cast pass alone.
inline constexpr double kNvfp4AmaxPassBytes = 2.0, kNvfp4CastPassBytes = 2.0 + 2.0 * 0.5625;
/// An activation's or weight's cast with the Hadamard transform: 5.125 × 1.414 = 7.25.
inline constexpr double kNvfp4CastBytes =
    kNvfp4CastOverhead * (kNvfp4AmaxPassBytes + kNvfp4CastPassBytes);

/// Bytes per element an NVFP4 cast of a gradient takes the time of: kNvfp4CastBytes with the
/// stochastic rounding NVFP4BlockScaling applies to the output gradients (its default
/// fp4_quant_bwd_grad), which the benchmark above never runs (no backward). Transformer Engine
/// PR #2412 ("Tuned NVFP4 cast kernel", B300, bf16 input, row- and column-wise) measured its
/// cast kernel at 6.4 TB/s rounding to nearest and 4.5 TB/s rounding stochastically: 1.42 times
/// the time, applied here to the cast pass (3.125 of the 5.125 bytes), not to the amax pass.
/// Measured on the kernel without the Hadamard rotation; the rotated one taken alike.
inline constexpr double kNvfp4StochasticRounding = 6.4 / 4.5;
inline constexpr double kNvfp4GradCastBytes =
    kNvfp4CastOverhead * (kNvfp4AmaxPassBytes + kNvfp4CastPassBytes * kNvfp4StochasticRounding);

/// NCCL base latency of one collective, seconds: src/graph/tuning.cc baseLat, Ring/Simple.
inline constexpr double kCollectiveBaseLatency = 8.4e-6;

/// NCCL's three protocols on a ring between nodes, as its tuning model prices them (NCCL 2.18.5,
/// src/graph/tuning.cc, ncclTopoTuneModel; the version of MLPerf Training v3.1's H100 runs):
/// base latency (baseLat), per-hop latency inside a node (hwLat NVLink, at least the network
/// post overhead, 1 µs on x86 Intel hosts, × 3 for Simple) and across the network (hwLat NET),
/// and the bandwidth each keeps of the link's: LL128 0.92 of it with two or more GPUs of the
/// group per node (0.7 with one), LL a quarter, at most llMaxBws (39 GB/s over 2 nodes, 20.4
/// over more, Intel hosts). NCCL runs the one with the least latency + bytes / bandwidth
/// (ncclTopoGetAlgoTime, which also stretches a ring all-reduce's Simple latency × 1.4 between
/// nodes, the "plateau effect"): LL and LL128 for small and mid-size pieces on many nodes,
/// Simple for large ones. The per-hop latencies scale with the preset's (cluster.*.latency is
/// Simple's). Left out: the per-channel bandwidth caps (perChMax*Bws), which depend on the
/// channel count NCCL picks, and the tables of other NCCL versions (2.17, MLPerf v3.0's, has
/// other latencies: a Simple ring's network hop 9.6 µs).
struct NcclProtocol {
  const char* name;
  double base, intra_hop, inter_hop;  ///< seconds
  double bandwidth_share;             ///< of the link's, with ≥ 2 GPUs of the group per node
  double bandwidth_share_one_per_node;
  double max_bandwidth_two_nodes, max_bandwidth;  ///< bytes/s; 0: no cap
  /// A tree's bandwidth correction by size (treeCorrectionFactor: × [⌊log₂(bytes / 64)⌋] below
  /// 2²³ · 64 bytes); all 1 for a ring.
  std::array<double, 23> tree_correction;
  /// ncclTopoGetAlgoTime's stretch of an all-reduce's latency between nodes (a ring's Simple:
  /// × 1.4 from compute capability 8.0, the "plateau effect of ring").
  double all_reduce_latency_factor = 1.0;
};
inline constexpr std::array<double, 23> kNoCorrection = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
inline constexpr NcclProtocol kRingProtocols[] = {
    {"Simple", 8.4e-6, 3.4e-6, 14.0e-6, 1.0, 1.0, 0, 0, kNoCorrection, 1.4},
    {"LL128", 14.0e-6, 1.9e-6, 4.0e-6, 0.92, 0.7, 0, 0, kNoCorrection},
    {"LL", 6.6e-6, 1.0e-6, 2.7e-6, 0.25, 0.25, 39.0e9, 20.4e9, kNoCorrection},
};
/// NCCL's tree for an all-reduce between nodes (the same source): each piece climbs and descends
/// a tree over the nodes, 2 · (GPUs per node − 1) NVLink hops and 2 · ⌊log₂ nodes⌋ network hops
/// (hwLat's Tree rows), at 0.92 of the link's bandwidth (LL128 × 120/128 of that, LL ÷ 3.8, capped
/// as the ring's) times its correction by size, moving twice the buffer (algorithm bandwidth
/// half the bus bandwidth). NCCL takes it over the ring when latency rules: many nodes, small
/// buckets.
// NCCL's treeCorrectionFactor rows (Simple, LL128, LL).
inline constexpr std::array<double, 23> kTreeSimpleCorrection = {
    .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9};
inline constexpr std::array<double, 23> kTreeLl128Correction = {
    1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1};
inline constexpr std::array<double, 23> kTreeLlCorrection = {
    1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1};
inline constexpr double kTreeLl128Share = 0.92 * 120.0 / 128.0, kTreeLlShare = 0.92 / 3.8;
inline constexpr NcclProtocol kTreeProtocols[] = {
    {"Tree/Simple", 0.0, 4.0e-6, 14.0e-6, 0.92, 0.92, 0, 0, kTreeSimpleCorrection},
    {"Tree/LL128", 14.0e-6, 1.25e-6, 8.5e-6, kTreeLl128Share, kTreeLl128Share, 0, 0,
     kTreeLl128Correction},
    {"Tree/LL", 6.8e-6, 0.6e-6, 5.0e-6, kTreeLlShare, kTreeLlShare, 39.0e9, 20.4e9,
     kTreeLlCorrection},
};
/// NCCL's hwLat for Simple, the unit the preset latencies are given in (NVLink ring, network).
inline constexpr double kSimpleIntraHop = 3.4e-6, kSimpleInterHop = 14.0e-6;

/// Bytes a fused Adam step (one multi-tensor kernel: Megatron's, apex's FusedAdam,
/// torch.optim.AdamW(fused=True)) moves per parameter over fp32 master weights: read the fp32
/// gradient (4), read and write the master weight, momentum and variance (3 × 8) = 28. In the H100
/// trace below, 1.92 G parameters' fused AdamW took 21.3 ms: 53.8 GB at 2.53 TB/s.
inline constexpr double kAdamBytesPerParam = 28.0;

/// The mixed-precision passes around it (Megatron's Float16OptimizerWithFloat16Params and
/// DistributedOptimizer: _copy_model_grads_to_main_grads, _copy_main_params_to_model_params; a
/// PyTorch loop over fp32 masters likewise): the 16-bit gradient cast to the fp32 main gradient
/// (read 2, write 4; none when gradients accumulate in fp32) and the updated master weights
/// copied to the 16-bit model weights (read 4, write 2). In the H100 trace below the two took
/// 8.6 ms for 1.92 G parameters (23 GB, 2.7 TB/s). FSDP (ZeRO-3) updates its fp32 sharded
/// parameters in place and casts while gathering: neither pass.
inline constexpr double kGradCastBytesPerParam = 6.0, kMasterCopyBytesPerParam = 6.0;

/// Bytes an unfused Adam step moves per parameter: torch.optim.AdamW's default foreach path
/// (torch/optim/adamw.py, _multi_tensor_adamw, PyTorch 2.1), one pass over fp32 tensors per
/// operation: decoupled weight decay on the weight (read 4, write 4), lerp of the momentum
/// toward the gradient (12), variance × β₂ (8), += (1 − β₂)·g² (16), √variance (8), ÷ bias
/// correction (8), + ε (8), weight −= step · m / denominator (16) = 84. Composer's
/// DecoupledAdamW runs the same operations tensor by tensor.
inline constexpr double kUnfusedAdamBytesPerParam = 84.0;

/// Bytes gradient-norm clipping moves per parameter, fp32 gradients: the norm reads each
/// gradient (4), the rescale reads and writes it (8) = 12 (torch.nn.utils.clip_grad_norm_,
/// Megatron's clip_grad_norm_fp32: the same two passes, fused or not).
inline constexpr double kGradClipBytesPerParam = 12.0;

/// How much longer compute kernels take while NCCL kernels run beside them on the same GPU
/// (they take SMs and memory bandwidth): Lee et al., "Characterizing Compute-Communication
/// Overlap in GPU-Accelerated Distributed Deep Learning" (arXiv 2507.03114, 2025) measure an
/// average compute slowdown of 18.9% (up to 40%) over GPT and Llama training on A100, H100,
/// MI250 and MI210. NCCL's 16–32 channels (one CTA per SM each) of the H100's 132 SMs are 12–24%
/// of them, the same range. Measured on one H100 SXM (calibrate/reference/overlap_probe.py,
/// h100-sxm-overlap*.json): four-layer MPT-760m, MPT-13B and Llama-3.1-8B forward + backward beside
/// C resident 512-thread stand-in CTAs ran 12–15% slower at C = 8, 16–22% at 16, 17–26% at 24 and
/// 26–42% at 32 (the span: the stand-in moving 40 GB/s to 1.3 TB/s of HBM traffic); the
/// memory-bound optimizer 0–18%. 16–24 channels bracket this mean; the constant stays.
inline constexpr double kOverlapComputeSlowdown = 0.189;

/// How much longer communication kernels take while compute runs beside them on the same GPU:
/// they share its SMs, caches and HBM with it. Measured on one H100 SXM by the same probe
/// (calibrate/reference/overlap_probe.py, h100-sxm-overlap-paced.json): the stand-in CTAs copying
/// at a collective's rates (40 GB/s to 1.5 TB/s, 8–32 CTAs) moved their bytes 10–17 % slower
/// beside the real MPT-760m, MPT-13B and Llama-3.1-8B steps than alone; 0.129 is the median of
/// the 36 pairs.
inline constexpr double kOverlapCommSlowdown = 0.129;

/// Coefficient of variation of sustained compute speed across the GPUs of one cluster
/// (cost/gpu_spread.h: a synchronous step runs at its slowest GPU's pace). Measured by Wei,
/// Pradeep and Bhatele, "The Case of the Elusive Application Performance on Production GPU
/// Supercomputers" (IPDPS 2026), on NERSC Perlmutter's A100s: a bf16 cuBLAS GEMM (m = n = k =
/// 32768, FP32 accumulation) timed on each GPU of every job of 16 or 64 nodes (four A100s each)
/// the study ran (extract_data_perlmutter/gemm_extract.py), each row one GPU's mean over 75
/// repetitions after 25 warm-up ones (about 20 s; github.com/hpcgroup/gpu-benchmarks
/// matmul/perlmutter/gemm.cu), published as github.com/hpcgroup/perf-variability-ipdps26
/// plot/perlmutter/gemm/gemm_data.csv. Over a sample of 18,250 of its rows (25 stretches spread
/// through the file), the 40 GB nodes' (node ids below 8000, as the repository's plotting script
/// labels them) 17,747 GPU runs spread with a coefficient of variation of
/// 1.09 % (1.02 % from the interquartile range; the 1st and 99th percentiles 0.977 and 1.029 of
/// the median), the 80 GB nodes' 503 with 0.82 % (0.84 %); the 4,694 GPUs timed more than once
/// varied between runs by only 5 % of that variance, so a GPU's speed is its own, not a passing
/// state. 1.0 %, between the two.
/// No such figure is published for H100, H200 or B200 (Sinha et al., SC22, arXiv 2208.11035,
/// report V100 clusters' spread of the same order: "8% (max 22%) average performance
/// variation", about 1.5 % as a standard deviation if it is a box plot's whisker span, 5.4 of
/// them, as their artifact's plotting script computes it): the A100's stands in.
inline constexpr double kGpuSpeedSpread = 0.010;

/// Eager (op-by-op) memory-bound kernels, bytes per element and kernels per run, from the PyTorch
/// reference implementations (Hugging Face transformers' modeling_llama.py; IBM's fms
/// LayerNormParameterized writes RMSNorm the same way), bf16 activations:
///   RMSNorm forward: upcast to fp32 (read 2, write 4), x² (4, 4), mean (4), rsqrt of the row
///   statistic (negligible, 2 kernels), x · rsqrt (4, 4), downcast (4, 2), weight · x (2, 2) =
///   36 bytes, 8 kernels. Backward, autograd of each: weight · x (dx 2+2, dweight 2+2+2),
///   downcast (2, 4), x · rsqrt (d/dx 4+4; d/drsqrt 4+4+4, 4), mean (broadcast, 4), x² (4+4, 4),
///   the two gradients of x summed (4+4, 4), upcast (4, 2) = 76 bytes, 12 kernels — as counted
///   on paper. PyTorch 2.11's autograd, kernel by kernel in a real H100 trace
///   (tests/data/kineto/h100-llama8b-4layers.json.gz, recorded by calibrate/reference/), runs
///   more: dweight's product (2+2, 2) and row sum (2); dx of weight · x (2, 2); the downcast's
///   backward (2, 4); d/dx (4, 4) and d/drsqrt (4+4, 4) of x · rsqrt and its row sum (4); the
///   mean's backward (write 4); x²'s backward as a copy (4, 4), 2x (4, 4) and × the gradient
///   (4+4, 4); the two paths summed (4+4, 4); the upcast's backward (4, 2) = 92 bytes in 13
///   kernels, plus 3 on the row statistic and a memset = 17 launches.
///   In that trace (36 norms a step, [1, 4096, 4096], ProfilerStep#3) the forward's kernels took
///   280.6 µs a norm (the upcast, PyTorch's unvectorized converting copy, 56.2; x² 46.4; the mean
///   33.6; x · rsqrt, a broadcast, 60.0; the downcast 34.9; weight · x, a broadcast, 49.6): 36
///   bytes at 2.15 TB/s, 0.64 of the 3.35 TB/s datasheet bandwidth; the backward's 633.8 µs
///   (the broadcast products, the row sums and the converting copy slowest): 92 bytes at
///   2.44 TB/s, 0.73. Used as shares of the memory-bound rate (0.80 and 0.91 of it), as the
///   LayerNorm's below.
inline constexpr double kEagerRmsNormForwardBytes = 36, kEagerRmsNormBackwardBytes = 92;
inline constexpr double kEagerRmsNormForwardMemoryEfficiency = 0.64;
inline constexpr double kEagerRmsNormBackwardMemoryEfficiency = 0.73;
inline constexpr int kEagerRmsNormForwardKernels = 8, kEagerRmsNormBackwardKernels = 17;
///   SwiGLU per element of the f-wide product: silu(gate) (2, 2), × up (4, 2) = 10 bytes, 2
///   kernels; backward: d(up) and d(silu) (4+2 each), silu's backward (4, 2) = 18 bytes, 3
///   kernels (fused: 6 and 12 bytes, 1 kernel each).
inline constexpr double kEagerSwigluForwardBytes = 10, kEagerSwigluBackwardBytes = 18;
///   SwiGLU on the two halves of one GEMM's 2f-wide output (`eager_ops: gate_up_split`:
///   Megatron's `torch.chunk`, nanotron's and fms's `torch.split`, then silu(gate) · up): gate and
///   up are strided views, so silu, the forward product, the backward's d(silu) = dy · up and
///   silu's backward run PyTorch's generic, non-vectorized `elementwise_kernel` (10 bytes forward,
///   12 backward), while the backward's d(up) = dy · silu(gate) is contiguous and the split's
///   backward concatenates the two gradients into the 2f-wide one (read 2 + 2, write 4: 8 bytes
///   per f element), 14 bytes at the usual rate. Timed in a real step's kernels
///   (calibrate/reference/llama_step.py, whose gate and up are one GEMM, `chunk(2)`): on an H100
///   SXM (tests/data/kineto/h100-llama8b-4layers.json.gz, f = 14,336, 4,096 tokens, medians of
///   16 runs) silu 179.6 µs and the strided product 181.3 µs forward, 10 bytes × 58.7 M elements
///   at 1.63 TB/s = 0.49 of the 3.35 TB/s datasheet bandwidth; backward the strided product
///   181.3 and silu's backward 208.5 µs, 12 bytes at 1.81 TB/s = 0.54; the contiguous product
///   117.1 and the concatenation 160.9 µs, 14 bytes at 2.96 TB/s (0.88). On an H200 (the
///   Ultra-Scale Playbook's 1B, f = 8,192, 8,192 tokens, 2026-11-30, calibrate/reference/
///   h200-playbook.json) the strided kernels ran at 1.76 and 1.91 TB/s, the same per SM as on the
///   H100 (`sm_bound`, kSmBoundReferenceBandwidth), the contiguous ones at 4.22 TB/s (0.88 of
///   4.8): the split halves' kernels are the SMs', not the HBM's.
inline constexpr double kEagerSwigluSplitForwardMemoryEfficiency = 0.49;
inline constexpr double kEagerSwigluSplitBackwardMemoryEfficiency = 0.54;
inline constexpr double kEagerSwigluSplitBackwardStridedBytes = 12;
inline constexpr double kEagerSwigluSplitBackwardContiguousBytes = 14;
///   Rotary embeddings per element of q and k: rotate_half's negation (half the elements, 2)
///   and concatenation (2, 2), q·cos (2, 2), rotated·sin (2, 2), the sum (4, 2) = 20 bytes,
///   5 kernels; the backward likewise, then the gradients of the head-major q and k copied back
///   to token-major rows (2, 2) = 24 bytes (the H100 trace above: 2 copies per layer). Fused: 4
///   and 8 bytes, 1 kernel.
inline constexpr double kEagerRopeBytes = 20, kEagerRopeBackwardBytes = 24;
inline constexpr int kEagerRopeKernels = 5;
///   QKV split by slicing (microsoft/Megatron-DeepSpeed megatron/model/transformer.py at 11f2d934,
///   ParallelAttention.split_tensor, until 2024-07 when it moved to torch.split: Q, K and V as a
///   slice and two selects of a view of QKV's output), per element of that output:
///   autograd's slice_backward and select_backward each allocate the whole output's gradient,
///   zero it (write 2) and copy their slice's gradient in (read 2 and write 2 over the three
///   slices), and the view's input buffer sums the three in place (read 4, write 2, twice) =
///   3 · 2 + 4 + 2 · 6 = 22 bytes, 8 kernels. Forward, V (a strided select) is copied contiguous
///   for FlashAttention (`rearrange(...).contiguous()`: read 2, write 2 per V element; Q and K
///   come contiguous out of the rotary embedding). As the four FlagPerf runs had it: micro-batch
///   1, as many key/value heads as query heads, rotary embeddings; with more sequences per
///   micro-batch Q and K are copied too, with grouped-query heads repeat_kv copies K and V (not
///   priced). torch.split, as Megatron-core, Megatron-LM, FlagScale and llm-foundry split it, runs
///   one concatenation of the gradients instead (kEagerQkvCatBytes).
///   Of those 22 bytes the three copies into the zeroed gradients (4: each writes its slice's
///   128-element rows at a stride of QKV's row) are strided, PyTorch's non-vectorized kernel; the
///   fills (6) and the sums (12) contiguous. V's forward copy gathers the same strided rows. Timed
///   as Megatron-DeepSpeed's split_tensor runs them (calibrate/reference/kernel_probe.py
///   `qkv_slice_split`, on an NVIDIA H200, 2026-11-30, h200-qkv-slice-split.json; FlagPerf's
///   Llama-2-7B at tp 1, one 4,096-token sequence: 3 fills, 3 strided copies and 2 sums
///   backward, as counted): backward 418.8 µs, of which the 18 contiguous bytes × 50.3 M at the
///   HBM's usual rate leave 193 µs for the strided 4: 1.04 TB/s; V's copy 70.5 µs for 67.1 MB,
///   0.95 TB/s. As fractions of an H100's 3.35 TB/s datasheet (`sm_bound`, the same per SM on both
///   Hopper parts): 0.31 and 0.28. (At tp 4 the probe's 8 small kernels took 256.7 µs, the CPU's
///   pace in a bare autograd call rather than the kernels'; not used.)
inline constexpr double kEagerQkvSplitBackwardBytes = 22;
inline constexpr int kEagerQkvSplitBackwardKernels = 8;
inline constexpr double kEagerQkvSplitValueCopyBytes = 4;
inline constexpr double kEagerQkvSplitStridedBytes = 4;  ///< of the backward's 22
inline constexpr int kEagerQkvSplitStridedKernels = 3;
inline constexpr double kEagerQkvSplitStridedMemoryEfficiency = 0.31;
inline constexpr double kEagerQkvSplitValueCopyMemoryEfficiency = 0.28;
///   QKV split by torch.split (Megatron-core's SelfAttention.get_query_key_value_tensors,
///   core_r0.6.0 to core_v0.13.1; Megatron-LM's legacy ParallelAttention and FlagScale's;
///   llm-foundry's GroupedQueryAttention.forward at 061f2c7, `qkv.split`): the forward returns
///   views, the backward concatenates the Q, K and V gradients into QKV's output gradient, one
///   torch.cat kernel (read 2, write 2 per element of that output) = 4 bytes. Megatron-core
///   splits through Transformer Engine's _SplitAlongDim where it can import it (TE before 2.3;
///   from 2.3 the class is TE's `SplitAlongDim` in transformer_engine/pytorch/utils.py, the import
///   fails and Megatron-core falls back to torch.split). _SplitAlongDim (v1.4) skips the
///   concatenation when the three gradients already lie side by side in one buffer, as TE's fused
///   attention leaves them only for its packed layouts, Q, K and V of one shape: multi-head
///   attention (MLPerf's GPT-3 on TE before 2.3: not priced there). Grouped-query heads (TE
///   returns dQ apart from dK and dV), a rotary embedding (new Q and K tensors) or separately
///   allocated gradients (llm-foundry's Triton kernel: `torch.empty_like` per tensor) leave them
///   apart. The forward copies some stacks add (Megatron-core's Q reshape under grouped-query
///   heads with more than one group per rank, Transformer Engine's `.contiguous()` of a V slice
///   beside a rotated K, its FlashAttention path's K and V) depend on the version and the
///   attention path and are not priced.
inline constexpr double kEagerQkvCatBytes = 4;
///   Rotary interleave (FlagScale's --rotary-interleaved-patch, megatron/model/transformer.py at
///   ed55532: after the rotary embedding, each of Q, K and V rearranged '... (two d) -> ... two d',
///   transposed and rearranged back to '... (d two)', a reshape of a non-contiguous view, so a
///   copy), per element of Q, K and V: read 2, write 2 forward; backward the gradient takes the
///   same reshapes in reverse, the same copy: 4 bytes each way, one kernel per tensor.
inline constexpr double kEagerRopeInterleaveBytes = 4;
///   Grouped-query K and V expanded to every query head (legacy Megatron-LM's ParallelAttention,
///   megatron/model/transformer.py, and FlagScale's fork of it: `key_layer.repeat_interleave(np //
///   ng, dim=2)`, V likewise, before the rotary embedding): forward a gather that writes each
///   expanded element (2 bytes) and reads each source element (2, once: its repeats hit the
///   cache), one kernel per tensor; backward autograd sums each group's repeated gradients back,
///   reading the expanded (2) and writing the source (2), one reduction per tensor: 2 bytes per
///   element of the expanded K and V and 2 per element of the grouped ones, each way. The rotary
///   embedding then runs on the expanded K (kEagerRopeBytes per element).
inline constexpr double kEagerKvRepeatBytes = 2;
///   nanotron's attention layout (huggingface/nanotron src/nanotron/models/llama.py at e24d2483,
///   CausalSelfAttention.forward, training path): QKV's output [seq, batch, …] made
///   [batch, seq, …] contiguous (multi-head: one permute-copy of the whole output; grouped-query:
///   Q, K and V each transposed contiguous), read 2 and write 2 per element; K and V stacked by
///   torch.cat and permuted contiguous for flash-attn's rotary kernel, two copies of K and V,
///   8 bytes per element of them; the attention output made [seq, batch, …] again before the
///   output projection (a transposed view, copied by the GEMM's reshape), 4 bytes per element.
///   Backward, as autograd runs it: the three gradients of the unbound Q, K and V stacked (the
///   K and V ones strided views) and the stack reshaped back to QKV's token-major rows (8 per
///   QKV element), K and V's split gradients concatenated into their permuted stack (4 per
///   element) and the output's gradient copied back (4 per element). The output's copies only
///   with more than one sequence a micro-batch: [1, seq, …] transposed is already contiguous.
///   Every copy but the forward's stacking of K and V (two device-to-device copies) reads or
///   writes a permuted view: PyTorch's non-vectorized kernels, bound by the SMs. Timed kernel by
///   kernel in a whole step laid out as nanotron lays it (tests/data/kineto/
///   h200-playbook1b-nanotron.json.gz: calibrate/reference/llama_step.py --nanotron-layout, the
///   Ultra-Scale Playbook's 1B, two 4,096-token sequences, on an NVIDIA H200, 2026-11-30; medians
///   of 32 layer passes): forward QKV's permute 150 µs, K and V's 90, the output's 45 (403 MB at
///   1.41 TB/s), the two device copies 17 µs each (3.9 TB/s); backward the stack 217, its reshape
///   150, K and V's concatenation 2 × 45, the output's 45 µs (604 MB at 1.20 TB/s). 0.42 and 0.36
///   of an H100's 3.35 TB/s datasheet, for both Hopper parts (`sm_bound`: the same per SM; the
///   SwiGLU's strided kernels ran 7 % faster on the H200 than on an H100, so an H100's are, if
///   anything, under-priced). The same copies timed alone by kernel_probe.py `nanotron_layout`
///   (h200-nanotron-layout.json) ran their backward up to a third slower: a bare autograd call's
///   CPU pace, not used.
inline constexpr double kEagerQkvLayoutQkvBytes = 4, kEagerQkvLayoutQkvBackwardBytes = 8;
inline constexpr double kEagerQkvLayoutKvBytes = 4;       ///< strided, each way
inline constexpr double kEagerQkvLayoutKvStackBytes = 4;  ///< contiguous, forward
inline constexpr double kEagerQkvLayoutOutputBytes = 4;
inline constexpr double kEagerQkvLayoutForwardMemoryEfficiency = 0.42;
inline constexpr double kEagerQkvLayoutBackwardMemoryEfficiency = 0.36;
/// A permuted (strided) copy by PyTorch's non-vectorized kernels elsewhere, one copy kernel a
/// tensor: the forward's measured rate above, 0.42 of an H100's datasheet (`sm_bound`). Prices
/// the layout copies of all-to-all context parallelism (AnalyticCostModel::a2a_layout_copies).
inline constexpr double kPermutedCopyMemoryEfficiency = kEagerQkvLayoutForwardMemoryEfficiency;

/// The CUDA streams Transformer Engine's GroupedLinear (TE 1.9 on) spreads its per-expert cuBLAS
/// GEMMs over, round robin (transformer_engine/common/util/multi_stream.cpp, v2.5:
/// num_compute_streams = 4; gemm/cublaslt_gemm.cu, multi_stream_cublas_gemm), as the
/// grouped_gemm package Megatron-core's legacy GroupedMLP installs does on Hopper
/// (fanshiqing/grouped_gemm v1.0, csrc/grouped_gemm.cu: NUM_STREAM 4, cuBLAS handle i % 4): up to
/// 4 experts' GEMMs share the GPU at once, timed as one GEMM of their rows together
/// (training.expert_gemms: multi_stream).
inline constexpr int kGroupedLinearStreams = 4;

/// The chunks of Transformer Engine's pipelined comm-GEMM overlap (parallelism.tp_overlap): the
/// reduce-scatter after the row-parallel projections' forward (`pipeline` method, initialize_ub's
/// default num_splits 4 in transformer_engine/pytorch/module/base.py; NeMo's userbuffers configs
/// for GPT and Llama set proj_fprop and fc2_fprop the same). The GEMM runs in this many chunks of
/// the tokens and each chunk's reduce-scatter follows it (the last one beside no GEMM).
inline constexpr int kUserbuffersPipelineSplits = 4;

/// PyTorch's own LayerNorm (torch.nn.functional.layer_norm as eager code calls it: llm-foundry's
/// MPT, Hugging Face's LayerNorm models), per element of the normalized tensor, bf16: forward one
/// kernel reading x and writing y (4 bytes); backward two, layer_norm_grad_input (read dy and x,
/// write dx: 6 bytes) then GammaBetaBackward (read dy and x again for the weight and bias
/// gradients: 4 bytes) = 10. Both are row reductions in fp32 and reach less of the HBM bandwidth
/// than an elementwise kernel: in the H100 trace of four MPT-13B layers
/// (tests/data/kineto/h100-mpt13b-4layers.json.gz, 2 × 2,048 × 5,120 elements, medians of 18
/// launches in each of three steps) the forward took 42.0 µs (2.00 TB/s, 0.60 of the 3.35 TB/s
/// datasheet bandwidth) and the backward's two 67.2 + 51.3 µs (1.87 and 1.64 TB/s; together 10
/// bytes at 1.77 TB/s, 0.53), where the model's one-kernel LayerNorm (read + write, twice that
/// backward, at kMemoryEfficiency) had the backward at half its measured time. Used as a share of
/// the memory-bound rate, as kEagerStridedMemoryEfficiency is: 0.75 and 0.66 of it, of an
/// `efficiency.memory` override's or a profile's copy rate likewise, at that row width (hidden
/// 5,120); other widths scale it by kEagerLayerNormWidthSweep. Fused LayerNorms (apex's,
/// Transformer Engine's, torch.compile's) stay one kernel at the memory-bound rate.
inline constexpr double kEagerLayerNormForwardBytes = 4, kEagerLayerNormBackwardBytes = 10;
inline constexpr int kEagerLayerNormBackwardKernels = 2;
inline constexpr double kEagerLayerNormForwardMemoryEfficiency = 0.60;
inline constexpr double kEagerLayerNormBackwardMemoryEfficiency = 0.53;
inline constexpr double kEagerLayerNormReferenceHidden = 5120;
/// How the rate of those row reductions depends on the row's width (the normalized hidden size):
/// PyTorch 2.11's LayerNorm (torch.nn.LayerNorm without bias, bf16) timed alone on an NVIDIA H200,
/// 65,536 rows, L2 flushed, medians of 10 after 3 warm-ups, at the bytes counted above (4 forward,
/// 10 backward per element), GB/s (calibrate/reference/kernel_probe.py --only norm_sweep,
/// calibrate/reference/h200-norm-sweep.json, 2026-11-29). Narrow rows run far below the rate of
/// wide ones: 768 at 0.52 (forward) and 0.49 (backward) of 5,120's, where the whole MPT-125M
/// step on the same GPU measured its LayerNorms (tests/data/kineto/h200-mpt125m.json.gz). The
/// rate at a width over the rate at 5,120 scales the H100's measured efficiencies above,
/// interpolated linearly in log(width), held at the ends. With a bias the rates are within
/// −7.3 … +13.3 % of these. At 8,192 rows the rates differ, by width not in one direction (768:
/// 1,209 forward, 1,146 backward; 5,120: 2,535 and 1,869), and the ratio to 5,120 with them
/// (768 backward 0.61 instead of 0.49): not modelled, the rows of a micro-batch taken as many (the
/// published LayerNorm runs have 4,096-65,536; the H100 efficiencies above were measured at 4,096).
struct LayerNormWidthRate {
  double hidden, forward_gbps, backward_gbps;
};
inline constexpr LayerNormWidthRate kEagerLayerNormWidthSweep[] = {
    {768, 1542, 1131},  {1024, 1836, 1243}, {1536, 2216, 1886}, {2048, 2461, 2236},
    {2560, 2657, 2532}, {3072, 2774, 2684}, {4096, 2926, 2477}, {5120, 2942, 2294},
    {6144, 2720, 2357}, {7168, 2564, 2366}, {8192, 2424, 2387}, {12288, 2342, 2395}};
static_assert(
    [] {
      for (std::size_t i = 1; i < std::size(kEagerLayerNormWidthSweep); ++i)
        if (kEagerLayerNormWidthSweep[i].hidden <= kEagerLayerNormWidthSweep[i - 1].hidden)
          return false;
      return true;
    }(),
    "kEagerLayerNormWidthSweep: widths strictly increasing (eager_layernorm_width_factor)");

/// Bytes per element of a tied embedding table that autograd's sum of its two gradients moves
/// (the lookup's and the output layer's reach the same weight: InputBuffer adds them, read 2 + 2,
/// write 2), once per micro-batch's backward where no fused fp32 main gradient takes them
/// (Megatron's hook adds each into main_grad instead). The H100 MPT-13B trace above: one
/// 50,368 × 5,120 add per micro-batch, 501 µs (1.55 GB at 3.1 TB/s).
inline constexpr double kTiedEmbeddingGradSumBytes = 6;

/// Fraction of HBM bandwidth PyTorch's elementwise kernels reach on an operand that is not
/// contiguous (a transposed view: q and k of the rotary embedding, head-major views of the
/// token-major projection): they run the generic, non-vectorized `elementwise_kernel`. Measured
/// in the H100 trace above: q · cos 1.34 TB/s, the negation 1.34, the sum 1.80, the
/// concatenation 0.93; the whole rotary forward of q, 20 bytes × 16.8 M elements in 250 µs,
/// 1.34 TB/s = 0.40 of the 3.35 TB/s datasheet bandwidth (contiguous bf16 adds in the same
/// trace: 3.4 TB/s). Used for the eager rotary embedding as a share of the other memory-bound
/// kernels' rate: 0.40 / kMemoryEfficiency = 0.5 of it (of an `efficiency.memory` override's or
/// a profile's copy rate likewise).
inline constexpr double kEagerStridedMemoryEfficiency = 0.40;

/// PyTorch's generic elementwise kernel on strided or broadcast operands and its converting
/// copies are bound by the GPU's SMs, not its HBM: on an NVIDIA H200 (4.8 TB/s HBM3e) they took
/// the same time per token as on the H100 SXM (3.35 TB/s) they were measured on, 16.8 against
/// 17.9 ms and 10.1 against 10.8 ms per 16,384-token step of four Llama-3.1-8B layers, while the
/// HBM-bound softmax ran 1.4 times as fast (calibrate/reference/h200-tp-step.json's tp-1 run
/// beside tests/data/kineto/h100-llama8b-4layers.json.gz; tests/published/README.md). Their
/// rates (kEagerStridedMemoryEfficiency, kConvertingCopyMemoryEfficiency) are H100 rates: on
/// another GPU they are capped at the H100's bandwidth times its SMs over the H100's 132 (the two
/// Hopper SXM parts share SMs and clocks); HBM-poorer GPUs (A100) stay below the cap.
inline constexpr double kSmBoundReferenceBandwidth = 3.35e12;  ///< H100 SXM's HBM, bytes/s
inline constexpr int kSmBoundReferenceSms = 132;               ///< H100 SXM's SMs

/// Bytes per parameter an eager runtime's gradient accumulation moves for every micro-batch
/// after the first: PyTorch's AccumulateGrad adds the new gradient into .grad (read 2, read 2,
/// write 2 in 16-bit; 12 in fp32). The H100 trace above: 81 add kernels per step, 11.14 ms for
/// 3 × 1.92 G parameters × 6 bytes = 34.6 GB (3.1 TB/s). Megatron's gradient-accumulation
/// fusion accumulates inside the weight-gradient GEMM (beta = 1) instead: no kernel.
inline constexpr double kGradAccumulateReadsWrites = 3;

/// Bytes per weight element a weight-gradient GEMM that accumulates into an fp32 main gradient
/// (Megatron's gradient-accumulation fusion: beta = 1, C = D in fp32) moves beyond a 16-bit
/// GEMM's output: reads 4 and writes 4 where the 16-bit one writes 2. Timed at the memory-bound
/// rate (kMemoryEfficiency) times the share of that time the GEMM shows (below); the measurement
/// behind both: AnalyticCostModel's main_grad_accumulate.
inline constexpr double kMainGradEpilogueBytes = 4 + 4 - 2;

/// The same into 16-bit gradients (training.grad_accumulation_fusion without
/// fp32_grad_accumulation: apex's contiguous DistributedFusedAdam buffer in grad_sync_dtype under
/// NeMo 1, Megatron-core's DDP buffer without grad_reduce_in_fp32): the epilogue reads the 2-byte
/// gradient it adds to (beta = 1) and writes 2 where a plain 16-bit GEMM writes 2: 2 bytes more.
/// Derived from the fp32 case's measurement (same rate, same visible share), not timed itself.
inline constexpr double kMainGrad16EpilogueBytes = 2 + 2 - 2;

/// Bytes per element a gradient that no GEMM accumulates (the embedding's) moves into the fp32
/// main gradient: Megatron's hook reads the 16-bit gradient (2) and the main gradient (4) and
/// writes it back (4).
inline constexpr double kMainGradAddBytes = 2 + 4 + 4;

/// The same into a 16-bit gradient buffer: read 2 and 2, write 2.
inline constexpr double kMainGrad16AddBytes = 2 + 2 + 2;

/// Bytes per logit of one training-metric cross-entropy (training.loss_metrics): Composer's
/// LanguageCrossEntropy and LanguagePerplexity (composer/metrics/nlp.py; the second subclasses
/// the first) each run torch.nn.CrossEntropyLoss(reduction='sum') over the micro-batch's kept
/// 16-bit logits under the training's autocast, which runs cross_entropy in fp32: the upcast
/// (read 2, write 4) and a three-pass log-softmax (read 4 three times, write 4), as PyTorch's
/// cross_entropy forward in AnalyticCostModel::head_kernels, no backward.
inline constexpr double kMetricCrossEntropyBytes = 2 + 4 + 3 * 4 + 4;
/// Its kernels: the upcast, the log-softmax, the NLL sum, the count of targets that are not
/// ignored (compare, sum) and the two running totals' adds.
inline constexpr int kMetricCrossEntropyKernels = 7;

/// The share of those bytes' time (at the memory-bound rate) that a weight-gradient GEMM
/// accumulating into fp32 takes beyond the 16-bit GEMM, by its reduction length (the tokens of
/// a micro-batch), log-linear between the points and held outside them: the rest runs beside
/// other tiles' main loops. Medians of 42 timings per point (21 weight shapes, bf16 and fp16)
/// on each of an H100 SXM and an H200, which agree within 0.06 (calibrate/reference/
/// h100-sxm-kernel-probe.json and h200-kernel-probe.json, `wgrad_sweep`): 1.09 / 1.07 at 1,024
/// tokens, 0.82 / 0.84 at 2,048, 0.51 / 0.52 at 4,096, 0.46 / 0.46 at 8,192, 0.43 / 0.39 at
/// 16,384. In a real step (four Llama-3.1-8B layers on the H100, llama_step.py --main-grad
/// against autograd's bf16 gradients, first micro-batch): 0.66 at 2,048 tokens, 0.53 at 8,192.
inline constexpr std::array<double, 5> kMainGradVisibleTokens = {1024, 2048, 4096, 8192, 16384};
inline constexpr std::array<double, 5> kMainGradVisibleShare = {1.08, 0.83, 0.52, 0.46, 0.41};

/// The kernels PyTorch FSDP (FullyShardedDataParallel, FULL_SHARD, bf16 parameters over fp32
/// shards, one unit per layer) runs beside its NCCL ones, per parameter of a unit, measured on
/// one NVIDIA H100 80GB HBM3 as one rank of an 8-rank job under PyTorch's fake process group
/// (calibrate/reference/fsdp_step.py, MPT-13B's layers, 1.53 G parameters; results in
/// calibrate/reference/h100-sxm-fsdp.json). Every micro-batch's backward: the views' backward
/// concatenates the unit's gradients into its flat gradient (read 2, write 2: 4 bytes; 2.12 ms,
/// 2.9 TB/s); with fp32 reduction FSDP casts it to fp32 (read 2, write 4: 6 bytes; 5.22 ms,
/// 1.75 TB/s); it divides the flat gradient by the predivide factor before the reduce-scatter
/// and the shard by the postdivide factor after (read and write in the reduce dtype; 4.67 ms,
/// 2.9 TB/s); a bf16-reduced shard is cast back to fp32 (6 bytes of the shard). Each all-gather
/// first casts the fp32 shard to bf16 (6 bytes of the shard; 2.7 TB/s). They ran on FSDP's side
/// streams, yet the step grew by 11.4 ms of their 12.9: they take the SMs and HBM the layers'
/// kernels need, so they are charged on the compute stream.
inline constexpr double kFsdpFlattenBytes = 4;
inline constexpr double kFsdpCastBytes = 6;
/// The bf16 → fp32 cast above is PyTorch's non-vectorized converting copy: 1.75 of the H100's
/// 3.35 TB/s (the vectorized copies and divisions beside it: 2.9).
inline constexpr double kConvertingCopyMemoryEfficiency = 0.52;

/// Causal attention with FlashAttention skips the masked half of the score matrix.
inline constexpr double kCausalFraction = 0.5;

}  // namespace trainsim::constants
