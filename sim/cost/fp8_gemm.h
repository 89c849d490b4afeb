#pragma once
// FP8 GEMMs (`training.precision: fp8`) as a measured ratio to the bf16 GEMM of the same shape.
//
// On an NVIDIA H100 80GB HBM3 (2026-11-26, PyTorch 2.11.0+cu130, cuBLASLt 13.1,
// calibrate/reference/fp8_gemm.py, results in calibrate/reference/h100-sxm-fp8-gemm.json), a
// grid of m ∈ {2k … 16k} × n ∈ {1k … 56k} × k ∈ {1k … 16k} GEMMs was timed in bf16
// (torch.matmul) and in FP8 (torch._scaled_mm: e4m3 operands, per-tensor scales, bf16 out, the
// cuBLASLt kernel Transformer Engine's FP8 linear layers call), the two back to back per shape.
// Large shapes take 0.49–0.63 of the bf16 time (1,180–1,440 of the 1,979 TFLOP/s FP8 peak, not
// the datasheet's 2×), small ones 0.6–1.1 (k = 1024: FP8's per-element saving is small against the
// fixed costs). The ratio is interpolated trilinearly in log2(m), log2(n), log2(k) and held at
// the grid's edges; it multiplies whatever bf16 time the model gives the shape (the GPU's sweep,
// capped at its sustained throughput, or a calibration profile), so the power-limited clock and
// another Hopper GPU's bf16 speed carry over. The same grid on an NVIDIA H200 the same day
// (calibrate/reference/h200-fp8-gemm.json) gives ratios 1.01 × these at the median (0.93–1.08
// for 80 % of the shapes beyond the smallest): one table serves H100 and H200.
//
// Sustained, as bf16 is (cost/gemm_efficiency.h): at the power limit an FP8 GEMM's clock drops
// too, so the per-shape ratio, taken from short back-to-back bursts, must not carry a GEMM past
// what FP8 sustains. The grid's longest GEMMs (m·n·k ≥ 2^42, the bf16 sweep's threshold, 6–25 ms
// in FP8) ran at 1,220–1,248 FP8 TFLOP/s on the H100 (ratios 0.5635, 0.5655, 0.5667, 0.5717,
// 0.5845: median 0.567) and 1,193–1,258 on the H200 (median 0.558), against up to 1,437 for
// 1–3 ms bursts. So no FP8 GEMM runs faster than the GPU's sustained bf16 throughput ÷ 0.567
// (H100: 727.7 ÷ 0.567 = 1,283 TFLOP/s; measured 1,238 beside 705 bf16). The H100's ratio serves
// the H200 too: its own median, 0.558, would put its cap at 1,248 rather than 1,228 (measured
// directly: 1,224). Only with the preset's GEMM sweep: not with `efficiency.gemm`; a calibration
// profile's bf16 times are floored by the sweep's sustained rate all the same.
//
// B200 (Blackwell) has no FP8 grid measured here: the H100's ratio and sustained ratio stand in
// (its FP8 tensor rate is twice its bf16, as Hopper's: the Blackwell datasheet), scaled by how
// much further FP8 gains on it (fp8_ratio_scale). NVIDIA's aiconfigurator database (cost/data/,
// commit 095f58a5, gemm_perf.parquet's `fp8` rows, which time TensorRT-LLM's FP8 linear with its
// activation's quantization, so above these ratios) gives the two GPUs alike ratios at this
// grid's large shapes (m, k ≥ 4096, n = 16384): B200 0.48–0.64, H100 0.51–0.62; over its 154
// shapes of m·n·k ≥ 2^42, a median 0.529 on B200 (FP8 2,583 TFLOP/s) and 0.549 on H100 (1,303).
// Both timed alike, the quantization's share largely cancels in their quotient: B200's FP8
// takes 0.529 / 0.549 = 0.964 of the H100's ratio. So B200's FP8 cap is 1,397 ÷ (0.567 · 0.964)
// = 2,558 TFLOP/s (its bf16 sustained rate: cost/gemm_efficiency.h), 1 % under the database's
// median of those long shapes (the H100's cap, 1,283, lies 1.5 % under its 1,303) and below the
// 2,659–2,854 that its four longest power-of-two shapes ran in bursts of 3–4 ms, short of B200's
// power limit. GB200 likewise: the database's median over the same 154 shapes is 0.531 (× 0.967),
// its cap 1,422.6 ÷ (0.567 · 0.967) = 2,594 TFLOP/s; GB300's median 0.522 (× 0.951), its cap
// 1,743.8 ÷ (0.567 · 0.951) ≈ 3,235; B300's (HGX B300, 1,100 W) also 0.522 (0.5217 against
// GB300's 0.5219), its cap 1,437.8 ÷ (0.567 · 0.951) ≈ 2,667. The quotient is taken on those long
// shapes and applied to every shape: on short ones (the H100's ratio near 1) it is an
// extrapolation.
//
// MXFP8 (training.fp8_recipe mxfp8, Blackwell only): the same GEMMs with one E8M0 scale per 32
// values, which Blackwell's tensor cores apply in the MMA (tcgen05 block-scaled kinds), run by
// cuBLASLt's block-scaled kernels. Transformer Engine's GEMM benchmark
// (NVIDIA/TransformerEngine, docs/features/low_precision_training/gemm_profiling/
// gemm_profiling.rst, "Autocast vs Pre-quantized", 2026; benchmarks/gemm/benchmark_gemm.py
// --pre-quantize: CUDA events, 10 warm-up and 100 timed iterations, operands quantized before the
// timing) timed one layer's 12 linear GEMMs of a model of hidden 4096 and FFN 16384 (15,872
// tokens: QKV 12288 wide, the attention output, an up projection 16384 wide and its down
// projection; forward, input and weight gradients) on an NVIDIA B300: 12.835 ms in bf16, 7.324
// in MXFP8, a ratio of 0.5706. This model's per-tensor FP8 over bf16 for the same 12 GEMMs on
// GB300 (Blackwell Ultra, as B300), weighted by their FLOPs (in the benchmark's bf16 column the
// GEMMs' times follow their FLOPs within 15 %), is the grid's 0.5207 × 0.951 = 0.4951. So an
// MXFP8 GEMM takes 0.5706 / 0.4951 = 1.153 times the per-tensor FP8 time of its shape
// (mxfp8_time_scale), the same factor applying to the sustained cap, on B200 and GB200 too
// (standing in). For comparison, NVIDIA's aiconfigurator database times DeepGEMM-style 1×128
// block-scaled FP8 (its `fp8_block` rows, another kernel) at 1.06–1.17 times its per-tensor
// `fp8` rows over the long shapes (GB200 0.563 / 0.531, GB300 0.579 / 0.522, B200 0.620 / 0.529),
// and the same TE benchmark's cuBLAS 1×128 block kernel at 0.93 times MXFP8 (6.830 ms).
//
// NVFP4 (training.fp8_recipe nvfp4, Blackwell only): E2M1 values with an E4M3 scale per 16 and
// an fp32 one per tensor, run by the block-scaled FP4 kernels. NVIDIA's aiconfigurator database
// times them beside its per-tensor FP8 rows (gemm_perf.parquet's `nvfp4` and `fp8` rows, both
// with their activation's quantization): over its 154 long shapes (m·n·k ≥ 2^42) a median
// NVFP4/bf16 of 0.359 on B200, 0.343 on GB200, 0.304 on GB300 and 0.274 on B300, against
// FP8/bf16 0.529, 0.531, 0.522 and 0.522, so NVFP4 takes 0.679, 0.646, 0.582 and 0.525 of the
// per-tensor FP8 time (nvfp4_time_scale; Blackwell Ultra's FP4 rate is 1.5 times B200's over the
// same FP8 rate). B300's NVFP4 cap, 2,667 ÷ 0.525 = 5,080 TFLOP/s, lies within 1 % of what
// Transformer Engine's pre-quantized benchmark above ran on a B300 (19.17 TFLOP of NVFP4 GEMMs in
// 3.754 ms: 5,107).
// Transformer Engine's pre-quantized B300 benchmark above agrees for Blackwell Ultra: NVFP4
// 3.754 ms over bf16 12.835 for the 12 GEMMs, 0.2925, over this model's per-tensor 0.4951 =
// 0.591.
//
// Fast accumulation, not modelled. Transformer Engine runs its forward FP8 GEMMs on Hopper with
// cuBLASLt's fast accumulation (transformer_engine/pytorch/module/base.py: _2X_ACC_FPROP = False,
// the input- and weight-gradient GEMMs keep the split accumulator), where the grid above used
// torch._scaled_mm's default (use_fast_accum=False); pytorch/ao issue #2377 reports 1.1–1.2 times
// from it. Bounded here without a measurement: every forward FP8 GEMM on a Hopper GPU 1.15 times
// faster, still under the sustained cap, moves the suite's Hopper FP8 runs by 0 to −0.9 points
// (the 405B runs −0.5, Llama 2 70B LoRA −0.8, Cisco's 8B −0.5 … −0.9; the GPT-3 175B runs, their
// GEMMs at the cap, under 0.2) and its mean |error| 5.32 → 5.37 %: the cap, not the accumulator,
// sets most long FP8 GEMMs' time. calibrate/reference/gpu_fp8_fast_accum.sh times the grid both
// ways on a lent Hopper GPU.
//
// Does not model: 1×128 block-wise scaling (DeepSeek-V3's tiles), FP8 attention (see
// training.fp8_attention), FP8 communication.

#include <string_view>

namespace trainsim {

/// FP8 time over bf16 time of one m×n×k GEMM (see above).
double fp8_gemm_time_ratio(double m, double n, double k);

/// FP8 time over bf16 time at the power limit: the median ratio of the grid's longest GEMMs
/// (see above). An FP8 GEMM takes at least this times its FLOPs at the GPU's sustained bf16
/// throughput.
double fp8_sustained_time_ratio();

/// The GPU's FP8/bf16 time ratio over the H100's, by which the H100's grid and sustained ratio
/// stand in for it: the aiconfigurator database's median ratio over its 154 shapes of
/// m·n·k ≥ 2^42 on that GPU over the H100's (see above): B200 0.529 / 0.549, GB200 0.531 / 0.549,
/// GB300 and B300 0.522 / 0.549; 1 for the Hopper GPUs (`gpu`: a preset's device name, "b200") and
/// any other.
double fp8_ratio_scale(std::string_view gpu);

/// MXFP8 GEMM time over the per-tensor FP8 GEMM time of the same shape (see above: TE's B300
/// benchmark's MXFP8/bf16 ratio, 0.5706, over this model's FP8/bf16 ratio for the same GEMMs on
/// GB300, 0.4951).
double mxfp8_time_scale();

/// NVFP4 GEMM time over the per-tensor FP8 GEMM time of the same shape on `gpu` (a preset's
/// device name): the aiconfigurator database's NVFP4/bf16 median over its FP8/bf16 median on
/// that GPU (see above); 1 on a GPU without figures (validation refuses NVFP4 there).
double nvfp4_time_scale(std::string_view gpu);

/// Where the ratio comes from, for the report's durations line.
const char* fp8_gemm_source();

/// Where the MXFP8 factor comes from, for the report's durations line.
const char* mxfp8_gemm_source();

/// Where the NVFP4 factor comes from, for the report's durations line.
const char* nvfp4_gemm_source();

}  // namespace trainsim
