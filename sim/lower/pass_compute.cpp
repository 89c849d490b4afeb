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
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      if (a.overlapped_with_next) {  // validated: an F, then the B it overlaps with
        const Action& b = list[++i];
        const Cost c = p.cost.overlapped(a.stage, b.stage, pp);
        // The Work records both stages: the pair's cost depends on which two chunks overlap.
        const WorkId w =
            p.work(TaskType::ForwardBackward, a.stage, p.chunk_of(a.stage), c, 0, b.stage);
        const TaskId t = p.builder.add_task(cs, w, a.microbatch);
        p.task_of(replica, a.stage, a.op, a.microbatch) = t;
        p.task_of(replica, b.stage, b.op, b.microbatch) = t;
        continue;
      }
      const Cost c = p.cost.compute(a.op, a.stage, pp);
      const WorkId w = p.work(type_of(a.op), a.stage, p.chunk_of(a.stage), c);
      p.task_of(replica, a.stage, a.op, a.microbatch) = p.builder.add_task(cs, w, a.microbatch);
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
