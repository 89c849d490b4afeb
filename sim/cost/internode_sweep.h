#pragma once
// Measured NCCL collective times between nodes, for the GPU presets whose network has a public
// nccl-tests sweep (cost/data/nccl_h100_sxm_10nodes.inc: 10 nodes of 8 H100, a 400 Gb/s-class
// NIC per GPU; also read for the H200 preset, the same HGX board and network): all-reduce,
// all-gather, reduce-scatter and all-to-all with 1, 2, 4 and 8 GPUs of each node in the group,
// 32 MiB to 16 GiB.
//
// The analytic model prices a collective between nodes as NCCL's tuning model does (ring or
// tree, Simple, LL128 or LL: analytic.cpp). On this sweep's layouts that model's time is 0.82–1.20
// times the measured with 1 or 2 GPUs per node, 0.68–1.10 with 4, but 0.40–1.05 with all 8 GPUs
// of each node in the group: 2–2.5 times too quick at 32–256 MiB (the measured ring spends
// ≈ 8 µs per step, the model 4.6) and 12 % too quick at 4–16 GiB (an all-gather reaches 324
// GB/s bus bandwidth, not 370). The model's time is therefore scaled by measured ÷ model on the
// sweep's own layout (10 nodes, the measured GPUs per node nearest the group's), at the same size:
// exact on that layout, the tuning model's growth with the node count elsewhere. Sizes outside the
// sweep take the ratio at its nearest end.
#include <array>   // std::array
#include <string>  // std::string
#include <vector>  // std::vector

#include "cost/cost_model.h"

namespace trainsim {

class InterNodeSweep {
 public:
  /// The sweep that holds for GPU preset `preset` (h100-sxm, h200, b200, gb200: the same NDR
  /// NICs, one a GPU), or nullptr.
  static const InterNodeSweep* for_preset(const std::string& preset);

  /// Nodes of the measured groups (every group spans all of them).
  int nodes() const { return nodes_; }
  /// The measured GPUs per node (1, 2, 4 or 8) that a group with `per_node` members in each
  /// node reads: the nearest in log₂ (3 → 4, 5–16 → 8).
  static int measured_per_node(int per_node);
  /// `bytes` held within the measured sizes of `c` with `per_node` (a measured count).
  double clamp_bytes(Collective c, int per_node, double bytes) const;
  /// Measured seconds of collective `c` of `bytes` (nccl-tests S, within the measured sizes)
  /// over nodes() × `per_node` GPUs, `per_node` a measured count: log–log between sizes.
  double seconds(Collective c, int per_node, double bytes) const;
  const char* source() const { return source_; }

  struct Row {
    int op, per_node;
    double bytes, microseconds;
  };
  InterNodeSweep(const char* source, int nodes, const Row* rows, int count);

 private:
  const std::vector<std::pair<double, double>>& curve(Collective c, int per_node) const;
  // (bytes, seconds) sorted by bytes, per operation and measured GPUs per node (1, 2, 4, 8).
  std::array<std::array<std::vector<std::pair<double, double>>, 4>, 4> curves_;
  const char* source_;
  int nodes_;
};

}  // namespace trainsim
