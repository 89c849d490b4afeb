#pragma once
// A PyTorch profiler trace's kernels as calibration samples (`trainsim-calibrate
// import-torch-trace`): what a real training step measured becomes the profile a scenario then
// uses, without running anything on a GPU.
//
// What carries over, from every profiled step but the first (warm-up) when there are three or
// more (a trace without ProfilerStep annotations: all of it):
// - GEMMs with a known shape (record_shapes=True) in bf16 or fp16: one time per operator call
//   (its kernels summed, e.g. a GEMM and its split-K reduction), the median per (m, n, k, dtype)
//   with max − min as the spread;
// - device-to-device copies: bytes moved (2 × copied) and time, per size;
// - NCCL collectives whose metadata gives bytes and group size (PyTorch ≥ 2.2): the median per
//   (op, group size, size), `inter_node` when the group is larger than the scenario's GPUs per
//   node.
// Not carried over, and counted: batched GEMMs (bmm: the profile has plain GEMMs only), fp32
// GEMMs, GEMMs without a shape, attention kernels (the profile has no attention samples), NCCL
// kernels without metadata.
//
// Caveat: a kernel measured inside a training step ran beside whatever else ran then (NCCL
// kernels take SMs), and an NCCL kernel's time includes waiting for the slowest rank to arrive.
#include <string>  // std::string
#include <vector>  // std::vector

#include "cost/calibration_profile.h"
#include "measured/torch_trace.h"
#include "scenario/scenario.h"

namespace trainsim {

struct TorchTraceImport {
  CalibrationProfile profile;
  int steps = 0;            ///< steps read, over all traces
  int gemm_calls = 0;       ///< GEMM operator calls turned into samples
  int gemm_batched = 0;     ///< calls skipped: batched (bmm)
  int gemm_fp32 = 0;        ///< calls skipped: not bf16/fp16
  int gemm_no_shape = 0;    ///< GEMM kernels with no operator shape
  int attention_calls = 0;  ///< attention operator calls turned into samples
  int attention_kernels =
      0;  ///< attention kernels not imported: no SDPA operator, or causal unknown
  int collective_calls = 0;    ///< NCCL kernels turned into samples
  int collective_skipped = 0;  ///< NCCL kernels without metadata, or broadcast/reduce
  int copies = 0;              ///< device-to-device copies turned into samples
};

/// Samples from `traces` (each trace's steps as read, but the first of three or more; provenance:
/// the first trace's device). `s` gives the GPUs per node that decide a collective's link.
/// `step`, when given, is the one step of each trace to read, as `trainsim diff --step` takes it
/// (a ProfilerStep's number or name, or a time window "1.2s..1.9s"; pick_step), and InputError
/// when a trace has no such step.
TorchTraceImport import_torch_traces(std::vector<TorchTrace> traces, const Scenario& s,
                                     const std::string& step = "");

}  // namespace trainsim
