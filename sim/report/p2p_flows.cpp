#include "report/p2p_flows.h"

#include "lower/task_types.h"

namespace trainsim {

std::vector<P2pFlow> p2p_flows(const TaskGraph& g) {
  const auto p2p = [&](TaskId t) { return is_p2p(static_cast<TaskType>(g.work(t).type)); };
  const auto compute = [&](TaskId t) {
    return is_pipeline_compute(static_cast<TaskType>(g.work(t).type));
  };
  // A send waits for its producer and for the producer's layer collectives (and the CPU's
  // launches): the producer is the compute task among them.
  std::vector<TaskId> producer(g.size(), kNone), consumer(g.size(), kNone);
  for (TaskId t = 0; t < g.size(); ++t)
    for (auto v : g.successors(t)) {
      if (p2p(static_cast<TaskId>(v)) && compute(t)) producer[v] = t;
      if (p2p(t) && compute(static_cast<TaskId>(v))) consumer[t] = static_cast<TaskId>(v);
    }
  std::vector<P2pFlow> out;
  for (RendezvousId rv = 0; rv < g.rendezvous_count(); ++rv) {
    auto members = g.rendezvous(rv);
    if (members.size() != 2 || !p2p(members[0])) continue;
    const TaskId from = producer[members[0]], to = consumer[members[1]];
    if (from == kNone || to == kNone) continue;
    out.push_back({from, members[0], members[1], to, rv});
  }
  return out;
}

}  // namespace trainsim
