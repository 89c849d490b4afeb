#include "report/critical_path.h"

#include <cstdint>
#include <span>
#include <vector>

#include "lower/task_types.h"

namespace trainsim {

CriticalPath critical_path(const Timeline& tl) {
  const TaskGraph& g = *tl.graph;
  CriticalPath cp;
  if (g.size() == 0) return cp;
  // Predecessors: dependencies reversed (CSR: task u's are in_tasks[in_offsets[u] ..
  // in_offsets[u + 1])), and each task's previous task in its stream.
  std::vector<std::uint32_t> in_offsets(g.size() + 1, 0);
  for (TaskId u = 0; u < g.size(); ++u) in_offsets[u + 1] = in_offsets[u] + g.pred_count[u];
  std::vector<TaskId> in_tasks(in_offsets.back());
  {
    std::vector<std::uint32_t> fill(in_offsets.begin(), in_offsets.end() - 1);
    for (TaskId t = 0; t < g.size(); ++t)
      for (auto e : boost::make_iterator_range(boost::out_edges(t, g.deps)))
        in_tasks[fill[boost::target(e, g.deps)]++] = t;
  }
  const auto deps_in = [&](TaskId u) {
    return std::span<const TaskId>(in_tasks.data() + in_offsets[u],
                                   in_offsets[u + 1] - in_offsets[u]);
  };
  std::vector<TaskId> stream_prev(g.size(), kNone);
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    const auto order = g.stream(s);
    for (std::size_t i = 1; i < order.size(); ++i) stream_prev[order[i]] = order[i - 1];
  }
  TaskId t = 0;
  for (TaskId u = 1; u < g.size(); ++u)
    if (tl.end[u] > tl.end[t]) t = u;
  for (;;) {
    const double d = to_seconds(tl.end[t] - tl.start[t]);
    const auto type = static_cast<TaskType>(g.work(t).type);
    if (is_pipeline_compute(type))
      cp.compute_s += d;
    else if (type == TaskType::Optimizer || type == TaskType::HostOptimizer ||
             type == TaskType::HostTransfer)
      cp.optimizer_s += d;
    else if (type == TaskType::TpCollective)
      cp.tp_s += d;
    else if (type == TaskType::EpCollective)
      cp.ep_s += d;
    else if (type == TaskType::CpCollective)
      cp.cp_s += d;
    else if (type == TaskType::ActivationOffload || type == TaskType::ActivationReload)
      cp.host_s += d;
    else if (type == TaskType::Launch)
      cp.launch_s += d;
    else if (type == TaskType::DpCollective || type == TaskType::ParamGather)
      cp.dp_s += d;
    else
      cp.pp_s += d;
    ++cp.tasks;
    const TimeNs start = tl.start[t];
    if (start == 0) break;
    // The binding constraint: a predecessor of this task (or of a rendezvous partner) that
    // ended exactly when it started.
    TaskId next = kNone;
    auto consider = [&](TaskId m) {
      for (TaskId p : deps_in(m))
        if (next == kNone && tl.end[p] == start) next = p;
      const TaskId p = stream_prev[m];
      if (next == kNone && p != kNone && tl.end[p] == start) next = p;
    };
    consider(t);
    if (next == kNone && g.tasks[t].rendezvous != kNone)
      for (TaskId m : g.rendezvous(g.tasks[t].rendezvous)) consider(m);
    if (next == kNone) {  // nothing ended at our start: an unexplained wait
      TimeNs latest = 0;
      for (TaskId p : deps_in(t)) latest = std::max(latest, tl.end[p]);
      if (stream_prev[t] != kNone) latest = std::max(latest, tl.end[stream_prev[t]]);
      cp.waiting_s += to_seconds(start - latest);
      break;
    }
    t = next;
  }
  return cp;
}

}  // namespace trainsim
