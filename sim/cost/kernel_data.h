#pragma once
// Published kernel-level measurements per GPU preset: the attention kernels' throughput by
// sequence length and head dimension (cost/kernel_data.cpp cites each figure), and how a launch's
// parallelism scales them. A custom GPU, or a kernel nobody measured on a preset, falls back to
// cost/constants.h.
//
// GEMMs by shape: cost/gemm_efficiency.h; collectives by message size: cost/collective_curve.h.
#include <array>     // std::array
#include <optional>  // std::optional
#include <string>    // std::string

#include "scenario/scenario.h"

namespace trainsim {

/// Achieved throughput of an attention kernel on one shape, TFLOP/s, in the FlashAttention
/// papers' FLOP convention: forward 4·s²·d per (sequence, head), halved under a causal mask;
/// backward 2.5× the forward (it recomputes the scores).
struct AttentionThroughput {
  double forward_tflops = 0;
  double backward_tflops = 0;
};

/// TFLOP/s of a causal attention at s = 512, 1k, 2k, 4k, 8k and 16k tokens, for head
/// dimensions 64 and 128: one bar chart of a paper.
struct SeqCurves {
  std::array<double, 6> d64{}, d128{};
};

/// One fused attention kernel's published figures on one GPU preset: a forward + backward
/// chart, a forward-only chart, or both (the backward then follows from the two); without a
/// chart of its own the backward is `backward_scale` × `backward_from`'s.
struct AttentionData {
  const char* gpu;    ///< the preset it was measured on
  double peak_flops;  ///< that GPU's dense 16-bit peak (datasheet), FLOP/s
  int sms;            ///< that GPU's streaming multiprocessors (the benchmark's tiles per SM)
  AttentionKernel kernel;
  const char* source;  ///< paper and figure, for the report's `durations` line
  std::optional<SeqCurves> fwd_bwd, forward;
  const AttentionData* backward_from = nullptr;
  double backward_scale = 1;
  /// cuDNN's: the earliest release these figures price (training.cudnn_version), up to the next
  /// measurement's; {0, 0} for every release before that (and for the other kernels).
  CudnnVersion from{};
  /// Throughput at the GPU's power limit over the figures' (timed at a free clock):
  /// constants.h, kB200AttentionSustained; 1 for figures timed as a step runs its kernels.
  double sustained = 1;
  /// Whether `sustained` was measured on attention itself (B200's) or read from the GPU's own
  /// GEMMs (GB200's, GB300's: constants.h).
  bool sustained_measured = true;
  /// Where the head dimension 64 curve comes from when no benchmark of this GPU timed it (the
  /// Blackwell ones: "the H100's ratio to head dim 128, …"), for the report; nullptr where it
  /// was measured.
  const char* head_dim_64_from = nullptr;
  /// With head_dim_64_from: the forward's head-dim-64 throughput over what that ratio gives, at
  /// the charted lengths (512 … 16k): how far this GPU's own ratio of head dim 64 to 128 falls
  /// under the H100's in another kernel measured on both (cost/kernel_data.cpp,
  /// kBlackwellHeadDim64Forward…). 1 elsewhere; the backward keeps the H100's ratio.
  std::array<double, 6> head_dim_64_forward_scale{1, 1, 1, 1, 1, 1};
  /// Heads over 128 (latent attention's query-key 192, value 128), where a benchmark run that
  /// gave these curves also timed DeepSeek-V3's heads: their throughput over head dim 128's,
  /// forward (carried to the charts' launch as the curves are) and backward, at 2k, 4k, 8k, 16k and
  /// 32k tokens (linear in log₂ seq, held at the ends; cost/kernel_data.cpp, kLatentHeads…). 1
  /// elsewhere: such heads run at head dim 128's rate.
  std::array<double, 5> wide_head_forward_scale{1, 1, 1, 1, 1};
  std::array<double, 5> wide_head_backward_scale{1, 1, 1, 1, 1};

  /// Throughput of causal attention over sequences of `seq` tokens with head dimension
  /// `head_dim`: linear in log₂(seq) between the charted lengths and linear in the head
  /// dimension between 64 and 128, held at the ends outside them. A kernel that pads a head to
  /// the size it was compiled for (kernel_head_dim) runs at that size's throughput × d / D.
  AttentionThroughput at(double seq, double head_dim) const;
  /// The head size the kernel runs a head of `head_dim` as: FlashAttention-1's 32, 64 or 128 and
  /// the Triton kernel's next power of two (at least 32); the head dimension itself for the
  /// kernels with instantiations at every multiple of 32.
  double kernel_head_dim(double head_dim) const;
  /// For the report: where a head of `head_dim` below 128 gets its throughput when this GPU's
  /// benchmarks time heads of 128 only ("its head dim 64 not measured on this GPU: at …", from
  /// head_dim_64_from), or a head over 128 its own measured rate ("its heads over 128 at
  /// DeepSeek-V3's heads' measured rate over Llama's"); empty otherwise, and for a head
  /// dimension not given (0).
  std::string head_dim_note(double head_dim) const;

  /// Throughput at `tiles` query tiles (batch · heads · ⌈seq / 128⌉ of one launch) on a GPU of
  /// `sms` SMs over the charted throughput at `head_dim`, whose benchmark launches 16k tokens ×
  /// hidden 2048: x / (x + c) over the same at the benchmark's tiles per SM (constants.h,
  /// kAttentionTileOverhead…). Below 1 for a launch of fewer tiles per SM than the benchmark's,
  /// above for more; 1 where `sms` is unknown (0). A backward given its tiles' mean work over
  /// their longest (`mean_over_longest`, 0: not given) runs no faster than attention_tile_bound
  /// allows, as a share of the rate x / (x + c) tends to (the charted rate × (b + c) / b at the
  /// benchmark's b per SM). The forward's x / (x + c) lies below the bound wherever it was
  /// measured.
  double parallelism(bool backward, double tiles, int sms, double head_dim,
                     double mean_over_longest = 0) const;
};

/// The most of a GPU's attention throughput a launch of `tiles` tiles (128-row key tiles of a
/// backward, one CTA each; or query tiles of a forward that does not split them) on `sms` SMs can
/// reach: it takes at least as long as its longest tile, so at most x · `mean_over_longest` of the
/// rate, x = tiles / sms; 1 from there on, and where `sms` is unknown (0). Measured: constants.h,
/// kAttentionTileOverheadForward's runs, whose one-tile-per-SM causal backward calls took as long
/// as their two-tile ones (FlashAttention-2 and cuDNN, H200 and H100).
double attention_tile_bound(double tiles, int sms, double mean_over_longest);
/// A causal block's tiles' mean work over its longest, `per_sequence` tiles to a head's
/// sequence: tile i works on i of its k blocks, so (k + 1) / 2 over k (about 1/2: a launch of
/// one tile per SM takes as long as one of two tiles per SM). Unmasked tiles are equal: 1.
double causal_mean_over_longest(double per_sequence);

/// How Transformer Engine's FP8 dot-product attention scales its operands: one scale a tensor
/// (delayed or current scaling: what it runs under those recipes, and under NVFP4, whose
/// attention takes a per-tensor FP8 recipe of its own), or MXFP8's scale a 32-value block (its
/// MXFP8 recipe from cuDNN 9.21 on: TE 2.15's dot_product_attention/utils.py).
enum class Fp8AttentionScaling { PerTensor, Mxfp8 };

/// The scaling FP8 attention runs with under `recipe` and cuDNN `cudnn` (the newest without one):
/// MXFP8's only under the MXFP8 recipe from cuDNN 9.21 on.
Fp8AttentionScaling fp8_attention_scaling(Fp8Recipe recipe, std::optional<CudnnVersion> cudnn);

/// FP8 over bf16 time of cuDNN's fused causal attention, forward or backward, at `seq` tokens
/// with heads of `head_dim` (query-key): Transformer Engine's FP8 dot-product attention
/// (training.fp8_attention). Measured by NVIDIA in one run of both precisions
/// (cost/kernel_data.cpp cites them): for cuDNN before 9.17, 9.13's per-tensor FP8 on a B200 and
/// on a GB300 (linear in log₂ seq over 512 … 131,072, held at the ends); from 9.17 and without a
/// release, 9.22's per-tensor FP8 and MXFP8 on a GB200 and a GB300, with Llama 3.1's heads of
/// 128 or, for heads over 128, DeepSeek-V3's of 192 (linear in log₂ seq over 2,048 … 32,768, held
/// at the ends), the releases the bf16 curves take (find_attention_data). `gpu` gb300 and b300
/// read the GB300's figures, any other the B200's (9.13) or the GB200's (9.22).
double cudnn_fp8_attention_time_ratio(bool backward, double seq, const std::string& gpu = "b200",
                                      std::optional<CudnnVersion> cudnn = std::nullopt,
                                      Fp8AttentionScaling scaling = Fp8AttentionScaling::PerTensor,
                                      double head_dim = 128);
/// The GPU whose FP8-over-bf16 figures preset `gpu` reads at release `cudnn`: "GB300", "GB200"
/// or "B200".
const char* cudnn_fp8_attention_measured_on(const std::string& gpu,
                                            std::optional<CudnnVersion> cudnn = std::nullopt);
/// Where those figures come from, for a durations line: "cuDNN 9.13 on a B200", "cuDNN 9.22 on a
/// GB200, MXFP8, DeepSeek-V3's heads".
std::string cudnn_fp8_attention_source(const std::string& gpu, std::optional<CudnnVersion> cudnn,
                                       Fp8AttentionScaling scaling, double head_dim);

/// The published curves of `kernel` for GPU preset `gpu`: measured on it, or on a GPU of the
/// same architecture (scale them by the peaks' ratio: the fused kernels are compute-bound);
/// nullptr for a custom GPU, a kernel not measured on that architecture, or the unfused
/// kernels (timed as GEMMs and memory-bound kernels). Where cuDNN was measured at several
/// releases: the newest measured at or before `cudnn` (the oldest measured for an older
/// release), the newest of all without one.
const AttentionData* find_attention_data(const std::string& gpu, AttentionKernel kernel,
                                         std::optional<CudnnVersion> cudnn = std::nullopt);

}  // namespace trainsim
