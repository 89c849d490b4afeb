#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "lower/program.h"

namespace trainsim {

void add_launch_pass(Program& p, const ComputeTasks& compute) {
  if (!p.cost.simulates_cpu()) return;  // the CPU keeps ahead: nothing to add
  // The parts where a DP bucket's gradients are complete, and the CPU's part in their NaN check
  // (parallelism.grad_nan_check), each part's read-back task once made.
  const GradCheckHost check = p.cost.grad_check_host();
  std::set<TaskId> bucket_ends;
  if (check.before > 0)
    for (const auto& [key, ends] : compute.gradient_parts)
      bucket_ends.insert(ends.begin(), ends.end());
  std::map<TaskId, TaskId> checked_by;
  const Schedule& s = p.schedule;
  // The CPU's part in one micro-batch of (op, model stage), asked once each.
  std::map<std::pair<int, int>, HostLaunch> asked;
  auto host = [&](Op op, int stage) {
    const std::pair<int, int> key{static_cast<int>(op), p.model_stage(stage)};
    const auto it = asked.find(key);
    if (it != asked.end()) return it->second;
    return asked[key] = p.cost.host_launch(op, key.second);
  };
  // Per compute task (or part) issued: the task issuing its last kernels. Whatever waits for the
  // part's end waits for them too (below).
  std::map<TaskId, TaskId> rest_of;
  std::set<std::pair<TaskId, TaskId>> gated;  // (rest, task) dependencies added
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    const auto& list = s.actions[static_cast<std::size_t>(rank.coord.pp)];
    // Each compute task's place on its stream: the task after it there (the GPU runs them in
    // order) waits for its last kernel's issue too.
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const std::vector<TaskId> order = p.builder.stream_order(cs);  // a copy: streams are added
    std::map<TaskId, std::size_t> place;
    for (std::size_t i = 0; i < order.size(); ++i) place[order[i]] = i;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      HostLaunch h = host(a.op, a.stage);
      int stage2 = -1;
      if (a.overlapped_with_next) {  // an F&B pair: one task, both actions' kernels
        const Action& b = list[++i];
        const HostLaunch hb = host(b.op, b.stage);
        h.time += hb.time;
        h.kernels += hb.kernels;
        stage2 = b.stage;
      }
      if (h.time <= 0 || h.kernels <= 0) continue;
      const TaskId first = p.task_of(replica, a.stage, a.op, a.microbatch);
      const std::vector<TaskId>* parts = p.parts_of(first);
      const std::vector<TaskId> one{first};
      const std::vector<TaskId>& tasks = parts ? *parts : one;
      // A divided action's kernels are issued part by part, in equal shares (the layers are
      // alike). Each part's issue in two: its first kernel, which the part starts after, and
      // the rest, which everything after the part waits for (the GPU runs the part's kernels as
      // they come; when the CPU is the slower, its wait shows after the part, not inside it).
      const int k = static_cast<int>(tasks.size());
      const TimeNs share = h.time / k;
      const TimeNs one_kernel =
          std::min(share, static_cast<TimeNs>(static_cast<double>(h.time) / h.kernels));
      const StreamId ls = p.stream(r, StreamType::Launch);
      for (int j = 0; j < k; ++j) {
        const TimeNs d = j + 1 < k ? share : h.time - share * (k - 1);
        const TaskId part = tasks[static_cast<std::size_t>(j)];
        const TaskId head =
            p.builder.add_task(ls,
                               p.work(TaskType::Launch, a.stage, p.chunk_of(a.stage),
                                      {one_kernel, 0, 0}, 0, stage2, 1.0, j, k),
                               a.microbatch);
        p.builder.add_dependency(head, part);
        if (d > one_kernel) {
          const TaskId rest =
              p.builder.add_task(ls,
                                 p.work(TaskType::Launch, a.stage, p.chunk_of(a.stage),
                                        {d - one_kernel, 0, 0}, 1, stage2, 1.0, j, k),
                                 a.microbatch);
          rest_of[part] = rest;
          const std::size_t at = place.at(part);
          if (at + 1 < order.size() && gated.insert({rest, order[at + 1]}).second)
            p.builder.add_dependency(rest, order[at + 1]);
        }
        if (!bucket_ends.count(part)) continue;
        // The bucket's check: its norm and NaN test issued, then the wait for the GPU to have
        // run them (the end of this part, which includes them: the compute pass), then the
        // rest; everything the CPU issues after it waits on this stream. The norm alone
        // (`norm`): its issue, and no wait.
        p.builder.add_task(ls,
                           p.work(TaskType::Launch, a.stage, p.chunk_of(a.stage),
                                  {check.before, 0, 0}, 2, stage2, 1.0, j, k),
                           a.microbatch);
        if (check.after <= 0) continue;
        const TaskId after =
            p.builder.add_task(ls,
                               p.work(TaskType::Launch, a.stage, p.chunk_of(a.stage),
                                      {check.after, 0, 0}, 3, stage2, 1.0, j, k),
                               a.microbatch);
        p.builder.add_dependency(part, after);
        checked_by[part] = after;
      }
    }
  }
  // Every task waiting for an issued part (its sends, the collectives after it, the gradient
  // reductions it completes) waits for its last kernels' issue as well: the part's output is
  // not there before they ran.
  // A bucket's reduction is issued after its check's read-backs.
  const std::size_t edges = p.builder.dependencies().size();
  for (std::size_t e = 0; e < edges; ++e) {
    const auto [before, after] = p.builder.dependencies()[e];
    const auto it = rest_of.find(before);
    if (it != rest_of.end() && after != it->second && gated.insert({it->second, after}).second)
      p.builder.add_dependency(it->second, after);
    const auto c = checked_by.find(before);
    if (c != checked_by.end() && after != c->second &&
        static_cast<TaskType>(p.builder.work(p.builder.task(after).work).type) ==
            TaskType::DpCollective &&
        gated.insert({c->second, after}).second)
      p.builder.add_dependency(c->second, after);
  }
}

}  // namespace trainsim
