#include <algorithm>
#include <array>
#include <tuple>

#include "lower/program.h"

namespace trainsim {

std::vector<TaskId> add_tp_pass(Program& p) {
  const Layout& l = p.scenario.layout;
  std::vector<TaskId> tails(p.ranks.ranks.size(), kNone);
  if (l.tp <= 1 || !p.cost.models_hardware()) return tails;
  // The members of each TP collective, keyed by (stage, op kind, micro-batch, part, dp): a flat
  // list sorted by key afterwards (stable: members keep their order), cheaper than a map of
  // vectors for the m · stages collectives of a long pipeline.
  using Key = std::tuple<int, int, int, int, int>;
  std::vector<std::pair<Key, TaskId>> members_of;
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const std::vector<int> members = group_members(l, rank.coord, Axis::TP);
    const LinkClass link = group_link(members, p.scenario);
    const double slow = p.link_scale(members);
    const std::vector<TaskId> tasks = p.builder.stream_order(cs);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const TaskId t = tasks[i];
      const Task task = p.builder.task(t);       // copies: adding tasks and works below
      const Work w = p.builder.work(task.work);  // may reallocate the builder's vectors
      const auto type = static_cast<TaskType>(w.type);
      if (type != TaskType::Forward && type != TaskType::Backward &&
          type != TaskType::BackwardInput && type != TaskType::ForwardBackward)
        continue;
      const Op op = type == TaskType::Forward || type == TaskType::ForwardBackward ? Op::F
                    : type == TaskType::Backward                                   ? Op::B
                                                                                   : Op::I;
      Cost c = p.tp_cost(op, w.stage, link);
      if (type == TaskType::ForwardBackward) {  // both halves' collectives
        const Cost cb = p.tp_cost(Op::B, w.stage2, link);
        c = {c.duration + cb.duration, c.flops + cb.flops, c.bytes + cb.bytes};
      }
      if (w.parts > 1) c = {c.duration / w.parts, c.flops / w.parts, c.bytes / w.parts};
      const int variant = Program::kind_of(op) * 2 + static_cast<int>(link);
      const WorkId wc = p.work(TaskType::TpCollective, w.stage, w.chunk, c, variant, w.stage2, slow,
                               w.part, w.parts);
      const Key key{w.stage, Program::kind_of(op), task.microbatch, w.part, rank.coord.dp};
      // On the TP stream (NCCL's own CUDA stream), and the next compute needs its result.
      const TaskId tc =
          p.builder.add_task(p.stream(r, StreamType::TensorParallel), wc, task.microbatch);
      members_of.emplace_back(key, tc);
      if (i + 1 < tasks.size())
        p.builder.add_dependency(tc, tasks[i + 1]);
      else
        tails[static_cast<std::size_t>(r)] = tc;
      if (l.tp_overlap)  // beside its GEMMs (chunked comm-GEMM overlap): starts with them
        members_of.emplace_back(key, t);
      else
        p.builder.add_dependency(t, tc);  // after them, on the critical path
    }
  }
  std::stable_sort(members_of.begin(), members_of.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TaskId> group;
  for (std::size_t i = 0; i < members_of.size();) {
    group.clear();
    std::size_t j = i;
    for (; j < members_of.size() && members_of[j].first == members_of[i].first; ++j)
      group.push_back(members_of[j].second);
    p.builder.add_rendezvous(group);
    i = j;
  }
  return tails;
}

}  // namespace trainsim
