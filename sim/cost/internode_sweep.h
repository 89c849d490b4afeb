#pragma once
// Measured NCCL collective times between nodes: the networks `cluster.network` names, each a
// public measurement of one cluster's fabric (data in cost/data/, source and method in each
// file's header):
// - `infiniband-ndr` (nccl_h100_sxm_10nodes.inc): nccl-tests on 10 nodes of 8 H100, a 400 Gb/s
//   NDR NIC per GPU; all-reduce, all-gather, reduce-scatter and all-to-all with 1, 2, 4 and 8 GPUs
//   of each node in the group, 32 MiB to 16 GiB. The default of the presets with those NICs.
// - `efa-p5` (nccl_h100_efa_p5.inc): nccl-tests on 2–32 AWS p5.48xlarge instances (EFA,
//   3,200 Gb/s a node), 8 GPUs of each node in the group; all-reduce, all-gather and all-to-all,
//   32 MiB to 8 GiB.
// - `efa-playbook` (nccl_h100_efa_playbook.inc): the Ultra-Scale Playbook's own cluster (EFA),
//   all-reduce, all-gather and reduce-scatter of 256 MB on 2–64 nodes of 8 GPUs, where a shared
//   cluster's rings slow with the node count (99.6 GB/s all-reduce bus bandwidth at 8 nodes,
//   against 232 on efa-p5 and ≈ 275 on infiniband-ndr).
//
// The analytic model prices a collective between nodes as NCCL's tuning model does (ring or
// tree, Simple, LL128 or LL: analytic.cpp). On infiniband-ndr's layouts that model's time is
// 0.82–1.20 times the measured with 1 or 2 GPUs per node, 0.68–1.10 with 4, but 0.40–1.05 with all
// 8 GPUs of each node in the group: 2–2.5 times too quick at 32–256 MiB (the measured ring spends
// ≈ 8 µs per step, the model 4.6) and 12 % too quick at 4–16 GiB (an all-gather reaches 324 GB/s
// bus bandwidth, not 370). The model's time is therefore scaled by measured ÷ model on a measured
// layout (the measured GPUs per node nearest the group's, the node counts measured around the
// group's: the ratio geometric-interpolated in log nodes, held past the ends), at the same size
// (held at the sweep's ends), the model there priced on the measured machine's links and the one
// it scales on the scenario's: exact on a measured layout and machine, the tuning model's shape
// elsewhere.
// An operation a network did not measure reads its ring sibling (reduce-scatter ↔ all-gather);
// else the tuning model alone.
#include <array>        // std::array
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <tuple>        // std::tuple
#include <vector>       // std::vector

#include "cost/cost_model.h"

namespace trainsim {

class InterNodeSweep {
 public:
  struct Row {
    int op, nodes, per_node;
    double bytes, microseconds;
  };
  InterNodeSweep(const char* name, const char* source, const char* machine, const Row* rows,
                 int count);

  /// The network of GPU preset `preset` when the scenario names none (h100-sxm, h200, b200,
  /// gb200: infiniband-ndr, the same NDR NICs, one a GPU; gb300, b300: its XDR successors, the
  /// same rings), or nullptr.
  static const InterNodeSweep* for_preset(const std::string& preset);
  /// The network `cluster.network` names, or nullptr.
  static const InterNodeSweep* named(std::string_view name);
  /// Every named network, as the docs list them.
  static const std::vector<const InterNodeSweep*>& all();

  const char* name() const { return name_; }
  const char* source() const { return source_; }
  /// The GPU preset whose nodes were measured: the tuning model on its links is what the
  /// measured times are divided by (every network here: h100-sxm).
  const char* machine() const { return machine_; }

  /// The operation whose rows time `c`: `c` itself, else its ring sibling (reduce-scatter ↔
  /// all-gather), else none.
  std::optional<Collective> measured_op(Collective c) const;
  /// The measured GPUs per node of `op` nearest in log₂ to `per_node` (a tie: the smaller).
  int measured_per_node(Collective op, int per_node) const;
  /// The node counts measured for `op` with `per_node` (a measured count), ascending.
  std::vector<int> node_counts(Collective op, int per_node) const;
  /// `bytes` held within the measured sizes of (`op`, `per_node`, `nodes`), a measured layout.
  double clamp_bytes(Collective op, int per_node, int nodes, double bytes) const;
  /// Measured seconds of `op` of `bytes` (nccl-tests S, within the measured sizes) over `nodes` ×
  /// `per_node` GPUs, a measured layout: log–log between sizes.
  double seconds(Collective op, int per_node, int nodes, double bytes) const;

 private:
  const std::vector<std::pair<double, double>>& curve(Collective op, int per_node, int nodes) const;
  // (bytes, seconds) sorted by bytes, per (operation, GPUs per node, nodes).
  std::map<std::tuple<int, int, int>, std::vector<std::pair<double, double>>> curves_;
  const char* name_;
  const char* source_;
  const char* machine_;
};

}  // namespace trainsim
