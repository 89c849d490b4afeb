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
// its cap 1,422.6 ÷ (0.567 · 0.967) = 2,594 TFLOP/s. The quotient is taken on those long shapes
// and applied to every shape: on short ones (the H100's ratio near 1) it is an extrapolation.
//
// Blackwell Ultra (B300, GB300) has a direct measurement instead, which also times the
// block-scaled recipes below in the same run: Transformer Engine's GEMM benchmark
// (NVIDIA/TransformerEngine, docs/examples/gemm_profiling/gemm_profiling.rst as merged, commit
// 1609c890e, PR #2863; benchmarks/gemm/benchmark_gemm.py --pre-quantize: CUDA events, 10 warm-up
// and 100 timed iterations, operands quantized before the timing, so the GEMM kernels alone) timed
// one layer's 12 linear GEMMs of a model of hidden 4096 and FFN 16384 (15,872 tokens: QKV 12288
// wide, the attention output, an up projection 16384 wide and its down projection; forward, input
// and weight gradients) on an NVIDIA B300: 13.102 ms in bf16 (1,463 TFLOP/s: about the B300's
// sustained 1,437.8, so the run holds the GPU at its power limit), 6.812 in per-tensor FP8
// (current scaling), 7.161 in MXFP8 and 3.764 in NVFP4. Its FP8/bf16, 0.520, over the H100's at
// the power limit (0.567) is B300's quotient, 0.917, GB300's too (the same die): its FP8 cap
// 1,437.8 ÷ 0.520 = 2,765 TFLOP/s (TE's run: 2,815) and GB300's 1,743.8 ÷ 0.520 = 3,354. (The
// database's B300 median, 0.522 / 0.549 = 0.951, gave 2,667: it runs these 12 GEMMs 5.5 % slower
// than TE measured them, where its bf16 sweep runs them 1.8 % slower.)
//
// MXFP8 (training.fp8_recipe mxfp8, Blackwell only): the same GEMMs with one E8M0 scale per 32
// values, which Blackwell's tensor cores apply in the MMA (tcgen05 block-scaled kinds), run by
// cuBLASLt's block-scaled kernels. In TE's run above MXFP8 takes 7.161 / 6.812 = 1.051 times the
// per-tensor FP8 time (mxfp8_time_scale), on B200 and GB200 too (standing in). (Until session 92
// the factor was 1.153, the benchmark's first draft's MXFP8/bf16, 7.324 / 12.835, over this
// model's uncapped per-shape FP8 ratio for those GEMMs, 0.4951: as the model caps FP8 at the power
// limit, it ran TE's own GEMMs 13–16 % slower than TE measured them.) For comparison, NVIDIA's
// aiconfigurator database times DeepGEMM-style 1×128 block-scaled FP8 (its `fp8_block` rows,
// another kernel) at 1.06–1.17 times its per-tensor `fp8` rows over the long shapes (GB200
// 0.563 / 0.531, GB300 0.579 / 0.522, B200 0.620 / 0.529).
//
// NVFP4 (training.fp8_recipe nvfp4, Blackwell only): E2M1 values with an E4M3 scale per 16 and
// an fp32 one per tensor, run by cuBLASLt's block-scaled FP4 kernels. Blackwell Ultra: TE's run
// above, 3.764 / 6.812 = 0.553 of the per-tensor FP8 time (nvfp4_time_scale): the cap 5,005
// TFLOP/s on B300 (TE's run, at a 1.8 % faster bf16: 5,094), 6,070 on GB300. Blackwell (B200,
// GB200): no published run times NVFP4 beside FP8 there; pytorch/ao's matmul benchmark times it
// beside bf16 on a B200 (github.com/pytorch/ao PR #2427, 2025-06-23,
// benchmarks/float8/bench_matmul.py --recipe nvfp4: torch._scaled_mm into cuBLASLt with E4M3
// block scales, pre-quantized; torch.mm for bf16): 8192³ in 2.05e-4 s against 7.74e-4 s in bf16
// (5,370 and 1,420 TFLOP/s, the bf16 at about B200's sustained 1,397), 0.265 (6144³: 0.265).
// Over this model's FP8/bf16 at the power limit there (0.567 × 0.964 on B200, × 0.967 on GB200)
// that is 0.485 and 0.483 of the per-tensor FP8 time: caps of 5,274 and 5,371 TFLOP/s. (Until
// session 92 NVFP4 took aiconfigurator's NVFP4/FP8 medians, 0.679 on B200, 0.646 on GB200, 0.582
// on GB300, 0.525 on B300: TensorRT-LLM's FP4 linear with its activation's quantization, whose
// FP4 kernel ran at 0.57–0.64 of cuDNN's and CUTLASS's on a B200 at one shape, 2,187 against
// 3,798 and 3,441 TFLOP/s: flashinfer-ai/flashinfer PR #1979.)
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
/// stand in for it (see above): B200 0.529 / 0.549, GB200 0.531 / 0.549 (the aiconfigurator
/// database's medians over its 154 shapes of m·n·k ≥ 2^42); B300 and GB300 (6.812 / 13.102) /
/// 0.567 (TE's pre-quantized B300 benchmark over the H100's ratio at the power limit); 1 for the
/// Hopper GPUs (`gpu`: a preset's device name, "b200") and any other.
double fp8_ratio_scale(std::string_view gpu);

/// Where fp8_ratio_scale's figure for `gpu` comes from, for the report's durations line.
const char* fp8_ratio_scale_source(std::string_view gpu);

/// MXFP8 GEMM time over the per-tensor FP8 GEMM time of the same shape (see above: TE's
/// pre-quantized B300 benchmark, 7.161 / 6.812 ms).
double mxfp8_time_scale();

/// NVFP4 GEMM time over the per-tensor FP8 GEMM time of the same shape on `gpu` (a preset's
/// device name; see above): B300 and GB300 3.764 / 6.812 (TE's pre-quantized B300 benchmark);
/// B200 and GB200 cuBLASLt's NVFP4/bf16 on a B200, 2.05e-4 / 7.74e-4 s (pytorch/ao), over
/// fp8_sustained_time_ratio() × fp8_ratio_scale(gpu); 1 on a GPU without figures (validation
/// refuses NVFP4 there).
double nvfp4_time_scale(std::string_view gpu);

/// Where the ratio comes from, for the report's durations line.
const char* fp8_gemm_source();

/// Where the MXFP8 factor comes from, for the report's durations line.
const char* mxfp8_gemm_source();

/// Where the NVFP4 factor for `gpu` comes from, for the report's durations line.
const char* nvfp4_gemm_source(std::string_view gpu);

}  // namespace trainsim
