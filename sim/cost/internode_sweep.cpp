#include "cost/internode_sweep.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "cost/interpolate.h"

namespace trainsim {
namespace {

constexpr InterNodeSweep::Row kH100[] = {
#include "cost/data/nccl_h100_sxm_10nodes.inc"
};
constexpr const char* kSource = "nccl-tests on 10 nodes of 8 H100, xxrjun/nccl-tests-cluster";

// 1, 2, 4, 8 GPUs per node → 0 … 3.
std::size_t per_node_index(int per_node) {
  return per_node == 1 ? 0 : per_node == 2 ? 1 : per_node == 4 ? 2 : 3;
}

}  // namespace

InterNodeSweep::InterNodeSweep(const char* source, int nodes, const Row* rows, int count)
    : source_(source), nodes_(nodes) {
  for (int i = 0; i < count; ++i) {
    const Row& r = rows[i];
    TRAINSIM_CHECK(r.op >= 0 && r.op < 4 &&
                       (r.per_node == 1 || r.per_node == 2 || r.per_node == 4 || r.per_node == 8) &&
                       r.bytes > 0 && r.microseconds > 0,
                   "an inter-node sweep row: operation 0–3, 1/2/4/8 GPUs per node, positive "
                   "size and time");
    curves_[static_cast<std::size_t>(r.op)][per_node_index(r.per_node)].push_back(
        {r.bytes, r.microseconds * 1e-6});
  }
  for (auto& op : curves_)
    for (auto& c : op) {
      TRAINSIM_CHECK(c.size() >= 2, "each operation and GPUs per node has a sweep");
      std::sort(c.begin(), c.end());
    }
}

const InterNodeSweep* InterNodeSweep::for_preset(const std::string& preset) {
  static const InterNodeSweep h100(kSource, 10, kH100, std::size(kH100));
  // The network bounds these sizes: H200 and B200 systems (HGX H200, DGX B200) have the same
  // eight ConnectX-7 400 Gb/s NICs a node as the DGX H100s measured; a GB200 NVL72 rack one
  // ConnectX-7 400 Gb/s NIC a GPU (four a compute tray) as well.
  if (preset == "h100-sxm" || preset == "h200" || preset == "b200" || preset == "gb200")
    return &h100;
  return nullptr;
}

int InterNodeSweep::measured_per_node(int per_node) {
  if (per_node <= 1) return 1;
  if (per_node >= 8) return 8;
  // Nearest in log₂: 3 (1.58) → 4, 5–7 → 8; 2 and 4 are measured.
  const int lower = per_node >= 4 ? 4 : 2;
  return std::log2(per_node) - std::log2(lower) < 0.5 ? lower : 2 * lower;
}

const std::vector<std::pair<double, double>>& InterNodeSweep::curve(Collective c,
                                                                    int per_node) const {
  TRAINSIM_CHECK(measured_per_node(per_node) == per_node, "a measured GPUs-per-node count");
  return curves_[static_cast<std::size_t>(c)][per_node_index(per_node)];
}

double InterNodeSweep::clamp_bytes(Collective c, int per_node, double bytes) const {
  const auto& points = curve(c, per_node);
  return std::clamp(bytes, points.front().first, points.back().first);
}

double InterNodeSweep::seconds(Collective c, int per_node, double bytes) const {
  const auto t = loglog_within(curve(c, per_node), bytes);
  TRAINSIM_CHECK(t.has_value(), "an inter-node sweep read within its sizes (clamp_bytes)");
  return *t;
}

}  // namespace trainsim
