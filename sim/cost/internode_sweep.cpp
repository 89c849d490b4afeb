#include "cost/internode_sweep.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "cost/interpolate.h"

namespace trainsim {
namespace {

constexpr InterNodeSweep::Row kInfiniband[] = {
#include "cost/data/nccl_h100_sxm_10nodes.inc"
};
constexpr InterNodeSweep::Row kEfaP5[] = {
#include "cost/data/nccl_h100_efa_p5.inc"
};
constexpr InterNodeSweep::Row kEfaPlaybook[] = {
#include "cost/data/nccl_h100_efa_playbook.inc"
};

}  // namespace

InterNodeSweep::InterNodeSweep(const char* name, const char* source, const char* machine,
                               const Row* rows, int count)
    : name_(name), source_(source), machine_(machine) {
  for (int i = 0; i < count; ++i) {
    const Row& r = rows[i];
    TRAINSIM_CHECK(r.op >= 0 && r.op < 4 && r.nodes >= 2 && r.per_node >= 1 && r.bytes > 0 &&
                       r.microseconds > 0,
                   "an inter-node sweep row: operation 0–3, 2 or more nodes, 1 or more GPUs per "
                   "node, positive size and time");
    curves_[{r.op, r.per_node, r.nodes}].push_back({r.bytes, r.microseconds * 1e-6});
  }
  for (auto& [key, c] : curves_) std::sort(c.begin(), c.end());
}

const std::vector<const InterNodeSweep*>& InterNodeSweep::all() {
  static const InterNodeSweep infiniband(
      "infiniband-ndr", "nccl-tests on 10 nodes of 8 H100, xxrjun/nccl-tests-cluster", "h100-sxm",
      kInfiniband, std::size(kInfiniband));
  static const InterNodeSweep efa_p5(
      "efa-p5",
      "nccl-tests on 2-32 AWS p5.48xlarge nodes, crazyguitar/aws-gpu-communication-benchmark",
      "h100-sxm", kEfaP5, std::size(kEfaP5));
  static const InterNodeSweep efa_playbook(
      "efa-playbook", "the Ultra-Scale Playbook's cluster, 256 MB on 2-64 nodes of 8 H100 over EFA",
      "h100-sxm", kEfaPlaybook, std::size(kEfaPlaybook));
  static const std::vector<const InterNodeSweep*> networks{&infiniband, &efa_p5, &efa_playbook};
  return networks;
}

const InterNodeSweep* InterNodeSweep::named(std::string_view name) {
  for (const InterNodeSweep* n : all())
    if (name == n->name()) return n;
  return nullptr;
}

const InterNodeSweep* InterNodeSweep::for_preset(const std::string& preset) {
  // The network bounds these sizes: H200 and B200 systems (HGX H200, DGX B200) have the same
  // eight ConnectX-7 400 Gb/s NICs a node as the DGX H100s measured; a GB200 NVL72 rack one
  // ConnectX-7 400 Gb/s NIC a GPU (four a compute tray) as well.
  if (preset == "h100-sxm" || preset == "h200" || preset == "b200" || preset == "gb200" ||
      preset == "gb300" || preset == "b300")
    return named("infiniband-ndr");
  return nullptr;
}

std::optional<Collective> InterNodeSweep::measured_op(Collective c) const {
  auto has = [this](Collective op) {
    const auto it = curves_.lower_bound({static_cast<int>(op), 0, 0});
    return it != curves_.end() && std::get<0>(it->first) == static_cast<int>(op);
  };
  if (has(c)) return c;
  // A reduce-scatter's ring is an all-gather's run the other way (same steps, same bytes).
  const Collective sibling = c == Collective::ReduceScatter ? Collective::AllGather
                             : c == Collective::AllGather   ? Collective::ReduceScatter
                                                            : c;
  if (sibling != c && has(sibling)) return sibling;
  return std::nullopt;
}

int InterNodeSweep::measured_per_node(Collective op, int per_node) const {
  const double want = std::log2(std::max(1, per_node));
  int best = -1;
  for (const auto& [key, c] : curves_) {
    if (std::get<0>(key) != static_cast<int>(op)) continue;
    const int g = std::get<1>(key);
    if (best < 0 || std::abs(std::log2(g) - want) < std::abs(std::log2(best) - want) - 1e-12)
      best = g;
  }
  TRAINSIM_CHECK(best > 0, "a measured operation (measured_op)");
  return best;
}

std::vector<int> InterNodeSweep::node_counts(Collective op, int per_node) const {
  std::vector<int> out;
  for (const auto& [key, c] : curves_)
    if (std::get<0>(key) == static_cast<int>(op) && std::get<1>(key) == per_node)
      out.push_back(std::get<2>(key));
  return out;  // the map's order: ascending
}

const std::vector<std::pair<double, double>>& InterNodeSweep::curve(Collective op, int per_node,
                                                                    int nodes) const {
  const auto it = curves_.find({static_cast<int>(op), per_node, nodes});
  TRAINSIM_CHECK(it != curves_.end(), "a measured layout (measured_per_node, node_counts)");
  return it->second;
}

double InterNodeSweep::clamp_bytes(Collective op, int per_node, int nodes, double bytes) const {
  const auto& points = curve(op, per_node, nodes);
  return std::clamp(bytes, points.front().first, points.back().first);
}

double InterNodeSweep::seconds(Collective op, int per_node, int nodes, double bytes) const {
  const auto t = loglog_within(curve(op, per_node, nodes), bytes);
  TRAINSIM_CHECK(t.has_value(), "an inter-node sweep read within its sizes (clamp_bytes)");
  return *t;
}

}  // namespace trainsim
