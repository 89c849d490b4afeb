#include "core/error.h"
#include "lower/program.h"

namespace trainsim {
namespace {

TaskType type_of(Op op) {
  switch (op) {
    case Op::F:
      return TaskType::Forward;
    case Op::B:
      return TaskType::Backward;
    case Op::I:
      return TaskType::BackwardInput;
    case Op::W:
      return TaskType::BackwardWeight;
  }
  return TaskType::Forward;
}

}  // namespace

void add_compute_pass(Program& p) {
  const Schedule& s = p.schedule;
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    const int pp = rank.coord.pp;
    const auto& list = s.actions[static_cast<std::size_t>(pp)];
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const double scale = p.compute_scale(r);  // a straggler's compute
    // Index of each stage's last gradient-producing action (B, or W when split) on this rank.
    std::vector<std::size_t> last_gradient(static_cast<std::size_t>(s.stages), list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].op == Op::W || list[i].op == Op::B)  // (one inside an F&B pair is not split)
        last_gradient[static_cast<std::size_t>(list[i].stage)] = i;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      if (a.overlapped_with_next) {  // validated: an F, then the B it overlaps with
        const Action& b = list[++i];
        const Cost c = p.cost.overlapped(a.stage, b.stage, pp);
        // The Work records both stages: the pair's cost depends on which two chunks overlap.
        const WorkId w =
            p.work(TaskType::ForwardBackward, a.stage, p.chunk_of(a.stage), c, 0, b.stage, scale);
        const TaskId t = p.builder.add_task(cs, w, a.microbatch);
        p.task_of(replica, a.stage, a.op, a.microbatch) = t;
        p.task_of(replica, b.stage, b.op, b.microbatch) = t;
        continue;
      }
      const Cost c = p.cost.compute(a.op, a.stage, pp);
      const int k = i == last_gradient[static_cast<std::size_t>(a.stage)] ? p.buckets(a.stage) : 1;
      if (k == 1) {
        const WorkId w = p.work(type_of(a.op), a.stage, p.chunk_of(a.stage), c, 0, -1, scale);
        p.task_of(replica, a.stage, a.op, a.microbatch) = p.builder.add_task(cs, w, a.microbatch);
        continue;
      }
      // The stage's gradients complete during this backward, bucket by bucket: k parts of
      // equal length (the last takes the rounding), the DP pass hangs bucket j on part j.
      const TimeNs part = c.duration / k;
      const Cost lead{part, c.flops / k, c.bytes / k};
      const Cost tail{c.duration - part * (k - 1), c.flops / k, c.bytes / k};
      const WorkId wl = p.work(TaskType::BackwardPart, a.stage, p.chunk_of(a.stage), lead,
                               static_cast<int>(a.op), -1, scale);
      const WorkId wt = p.work(type_of(a.op), a.stage, p.chunk_of(a.stage), tail, k, -1, scale);
      auto& parts = p.gradient_parts[{r, a.stage}];
      for (int j = 0; j + 1 < k; ++j) parts.push_back(p.builder.add_task(cs, wl, a.microbatch));
      parts.push_back(p.builder.add_task(cs, wt, a.microbatch));
      p.task_of(replica, a.stage, a.op, a.microbatch) = parts.front();
      p.last_part[parts.front()] = parts.back();
    }
    // Same-rank data dependencies: the backward needs its forward, W needs its I.
    for (const Action& a : s.actions[static_cast<std::size_t>(pp)]) {
      const TaskId t = p.task_of(replica, a.stage, a.op, a.microbatch);
      if (a.op == Op::B || a.op == Op::I)
        p.builder.add_dependency(p.task_of(replica, a.stage, Op::F, a.microbatch), t);
      if (a.op == Op::W)
        p.builder.add_dependency(p.task_of(replica, a.stage, Op::I, a.microbatch), t);
    }
  }
}

}  // namespace trainsim
