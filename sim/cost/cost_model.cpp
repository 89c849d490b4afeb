#include "cost/cost_model.h"

#include <algorithm>
#include <utility>

namespace trainsim {

double busbw_factor(Collective c, int n) {
  if (n <= 1) return 0.0;
  const double r = static_cast<double>(n - 1) / n;
  return c == Collective::AllReduce ? 2.0 * r : r;
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all-reduce";
    case Collective::AllGather:
      return "all-gather";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllToAll:
      return "all-to-all";
  }
  return "?";
}

namespace {
Cost sum_of(const CostModel& m, const std::vector<CollectiveRun>& runs, LinkClass link,
            int per_node = 1) {
  Cost sum;
  for (const CollectiveRun& run : runs) {
    const Cost one = m.collective(run.kind, run.group_size, link, run.bytes, per_node);
    sum.duration += one.duration * run.count;
    sum.bytes += one.bytes * run.count;
  }
  return sum;
}

// A layer's collectives' time on the critical path (blocking runs, and what an asynchronous run
// outlasts the compute it hides under by) and hidden beside that compute.
std::pair<Cost, Cost> parts_of(const CostModel& m, const std::vector<CollectiveRun>& runs,
                               LinkClass link, int per_node) {
  Cost path, hidden;
  for (const CollectiveRun& run : runs) {
    const Cost one = m.collective(run.kind, run.group_size, link, run.bytes, per_node);
    const TimeNs under =
        run.beside_pass
            ? one.duration
            : std::min(static_cast<TimeNs>(static_cast<double>(one.duration) * run.hidden_share),
                       seconds_to_ns(run.hide_s));
    path.duration += (one.duration - under) * run.count;
    hidden.duration += under * run.count;
    (run.hide_s > 0 || run.beside_pass ? hidden : path).bytes += one.bytes * run.count;
  }
  return {path, hidden};
}
std::pair<Cost, Cost> tp_parts(const CostModel& m, Op op, int stage, LinkClass link, int per_node) {
  return parts_of(m, m.tp_collectives(op, stage), link, per_node);
}
}  // namespace

Cost CostModel::tp_communication(Op op, int stage, LinkClass link, int per_node) const {
  return tp_parts(*this, op, stage, link, per_node).first;
}

Cost CostModel::tp_hidden_communication(Op op, int stage, LinkClass link, int per_node) const {
  return tp_parts(*this, op, stage, link, per_node).second;
}

Cost CostModel::ep_communication(Op op, int stage, LinkClass link, int per_node) const {
  return sum_of(*this, ep_collectives(op, stage), link, per_node);
}

Cost CostModel::cp_communication(Op op, int stage, LinkClass link, int per_node) const {
  return parts_of(*this, cp_collectives(op, stage), link, per_node).first;
}

Cost CostModel::cp_hidden_communication(Op op, int stage, LinkClass link, int per_node) const {
  return parts_of(*this, cp_collectives(op, stage), link, per_node).second;
}

Cost CostModel::overlapped(int forward_stage, int backward_stage, int rank) const {
  const Cost f = compute(Op::F, forward_stage, rank);
  const Cost b = compute(Op::B, backward_stage, rank);
  return {f.duration + b.duration, f.flops + b.flops, f.bytes + b.bytes};
}

}  // namespace trainsim
