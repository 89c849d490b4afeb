#pragma once
// Published kernel-level measurements per GPU preset: what the analytic model times the
// attention core with when the scenario's GPU is a preset (cost/kernel_data.cpp cites each
// number). A custom GPU, or a preset without a figure, falls back to cost/constants.h.
//
// GEMMs by shape: cost/gemm_efficiency.h. Does not hold (yet): attention throughput by sequence
// length (the figures are each paper's best case, long sequences), collective bandwidth by
// message size.
#include <optional>  // std::optional
#include <string>    // std::string

namespace trainsim {

/// Achieved throughput of an attention kernel, TFLOP/s, in its paper's FLOP convention: forward
/// 4·s²·d per (sequence, head), halved under a causal mask; backward 2.5× the forward.
struct AttentionThroughput {
  double forward_tflops = 0;
  double backward_tflops = 0;
  const char* source = "";
};

struct KernelData {
  const char* gpu;  ///< preset name
  std::optional<AttentionThroughput> flash2, flash3;
};

/// The data of GPU preset `gpu`, or nullptr for a custom GPU.
const KernelData* find_kernel_data(const std::string& gpu);

}  // namespace trainsim
