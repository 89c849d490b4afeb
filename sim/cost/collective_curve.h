#pragma once
// Measured NCCL collective times by message size on one node of 8 NVSwitch GPUs, for the GPU
// presets that have published nccl-tests sweeps (cost/data/nccl_*.inc, NVIDIA's aiconfigurator
// database: A100 SXM, H100 SXM, H200 SXM): all-reduce, all-gather, reduce-scatter and all-to-all
// over 2, 4 and 8 GPUs, 512 B to 512 MiB. Bus bandwidth ramps with size (a 1 MB all-gather on 8
// H100s reaches 54 GB/s of its 335), which an α–β line with the large-message bandwidth misses.
//
// Between measured sizes the time is interpolated log–log; above the largest it grows at the
// largest's bus bandwidth, below the smallest it stays at the smallest's (the latency floor).
// Other group sizes (3, 5–7) take the next measured group's bus bandwidth at that size.
// Does not hold: inter-node collectives (NCCL's tuning model and cost/internode_sweep.h time
// them), fp32 or int8 data.
#include <array>   // std::array
#include <string>  // std::string
#include <vector>  // std::vector

#include "cost/cost_model.h"

namespace trainsim {

class CollectiveCurve {
 public:
  /// The sweep of GPU preset `preset` (a100-sxm-80gb, h100-sxm, h200), or nullptr.
  static const CollectiveCurve* for_preset(const std::string& preset);

  /// Seconds of collective `c` of `bytes` (nccl-tests S) over `group_size` GPUs of one node, 2 ≤
  /// group_size ≤ 8.
  double seconds(Collective c, int group_size, double bytes) const;
  /// The latency floor of that collective: its time at the smallest measured size (512 B).
  double floor_seconds(Collective c, int group_size) const;
  const char* source() const { return source_; }

  struct Row {
    int op, gpus;
    double bytes, microseconds;
  };
  CollectiveCurve(const char* source, const Row* rows, int count);

 private:
  static int measured_group(int group_size);  // the measured group a size of 2–8 reads: 2, 4, 8
  const std::vector<std::pair<double, double>>& curve(Collective c, int measured) const;
  // (bytes, seconds) sorted by bytes, per operation and measured group size (2, 4, 8).
  std::array<std::array<std::vector<std::pair<double, double>>, 3>, 4> curves_;
  const char* source_;
};

}  // namespace trainsim
