#include <algorithm>

#include "core/error.h"
#include "lower/program.h"

namespace trainsim {

void add_dp_optimizer_pass(Program& p, const ComputeTasks& compute,
                           const std::vector<TaskId>& tp_tails) {
  if (!p.cost.models_hardware()) return;  // a costs-only pipeline study has no optimizer step
  const Scenario& sc = p.scenario;
  const Layout& l = sc.layout;
  const Schedule& s = p.schedule;
  // Members of each DP collective, keyed by (pp, tp, stage, phase).
  std::map<std::tuple<int, int, int, int>, std::vector<TaskId>> groups;
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const std::vector<int> members = group_members(l, rank.coord, Axis::DP);
    const LinkClass link = group_link(members, sc);
    const int per_node = members_per_node(members, sc);
    const double slow = p.link_scale(members);  // the group's slowest member sets the pace
    const auto& actions = s.actions[static_cast<std::size_t>(rank.coord.pp)];
    // Each stage (chunk) this rank holds: its gradients are complete after its last
    // weight-gradient-producing task (B, or W when the backward is split).
    const std::vector<int>& stages = p.stages_on(rank.coord.pp);
    double params = 0;
    std::vector<TaskId> reductions;
    for (int st : stages) {
      params += p.cost.stage_params(st);
      if (l.dp <= 1) continue;
      // Where the stage's gradients complete: the parts of its last backward (one bucket
      // each), or that backward as a whole.
      std::vector<TaskId> ready;
      if (auto it = compute.gradient_parts.find({r, st}); it != compute.gradient_parts.end()) {
        ready = it->second;
      } else {
        TaskId last = kNone;
        for (const Action& a : actions)
          if (a.stage == st && (a.op == Op::B || a.op == Op::W))
            last = p.end_of(replica, st, a.op, a.microbatch);
        TRAINSIM_CHECK(last != kNone, "every stage has a backward");
        ready.push_back(last);
      }
      // ZeRO-0 all-reduces each bucket, ZeRO-2 reduce-scatters it, ZeRO-3 reduce-scatters
      // each FSDP unit; ZeRO-1 reduce-scatters once after the last backward. Buckets leave in
      // order on the DP stream.
      const Collective op = l.zero == 0 ? Collective::AllReduce : Collective::ReduceScatter;
      const int k = static_cast<int>(ready.size());
      const Cost c = p.cost.collective(op, l.dp, link, p.cost.gradient_bytes(st) / k, per_node);
      const WorkId w = p.work(TaskType::DpCollective, st, p.chunk_of(st), c, 0, -1, slow);
      for (int j = 0; j < k; ++j) {
        const TaskId t = p.builder.add_task(p.stream(r, StreamType::DataParallel), w, -1);
        p.builder.add_dependency(ready[static_cast<std::size_t>(j)], t);
        reductions.push_back(t);
        groups[{rank.coord.pp, rank.coord.tp, st, 2 + j}].push_back(t);
      }
    }
    // Optimizer step on this GPU's shard: everything (ZeRO-0), 1/dp of it (ZeRO-1/2/3).
    const double shard = l.zero >= 1 ? params / l.dp : params;
    const WorkId wo = p.work(TaskType::Optimizer, -1, -1, p.cost.optimizer(shard), rank.coord.pp,
                             -1, p.compute_scale(r));
    const TaskId opt = p.builder.add_task(cs, wo, -1);
    for (TaskId t : reductions) p.builder.add_dependency(t, opt);
    if (const TaskId tail = tp_tails[static_cast<std::size_t>(r)]; tail != kNone)
      p.builder.add_dependency(tail, opt);
    if ((l.zero == 1 || l.zero == 2) && !l.param_gather_with_forward && l.dp > 1) {
      // Updated bf16 parameters are gathered back from every shard (ZeRO-3 gathers before each
      // use instead; with param_gather the next forward does, add_param_gather_pass).
      for (int st : stages) {
        const Cost c = p.cost.collective(Collective::AllGather, l.dp, link,
                                         2.0 * p.cost.stage_params(st), per_node);
        const WorkId w = p.work(TaskType::DpCollective, st, p.chunk_of(st), c, 1, -1, slow);
        const TaskId t = p.builder.add_task(p.stream(r, StreamType::DataParallel), w, -1);
        p.builder.add_dependency(opt, t);
        groups[{rank.coord.pp, rank.coord.tp, st, 1}].push_back(t);  // 1: the parameter gather
      }
    }
  }
  for (const auto& [key, members] : groups) p.builder.add_rendezvous(members);
}

}  // namespace trainsim
