#include <array>

#include "lower/program.h"

namespace trainsim {

void add_p2p_pass(Program& p) {
  const Schedule& s = p.schedule;
  const Layout& l = p.scenario.layout;
  const double bytes = p.cost.activation_bytes();
  const Op backward_op = s.split_backward() ? Op::I : Op::B;  // what consumes a gradient
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    // Walk the sender's actions in order: that is the order its transfers leave.
    for (const Action& a : s.actions[static_cast<std::size_t>(rank.coord.pp)]) {
      if (a.op == Op::W) continue;
      const bool forward = a.op == Op::F;
      const int next = forward ? a.stage + 1 : a.stage - 1;
      if (next < 0 || next >= s.stages) continue;
      const Op consumer_op = forward ? Op::F : backward_op;
      const TaskId producer = p.end_of(replica, a.stage, a.op, a.microbatch);
      const TaskId consumer = p.task_of(replica, next, consumer_op, a.microbatch);
      const int dest_pp = s.stage_rank[static_cast<std::size_t>(next)];
      if (dest_pp == rank.coord.pp) {  // the next stage lives on this rank: no transfer
        p.builder.add_dependency(producer, consumer);
        continue;
      }
      Coord dc = rank.coord;
      dc.pp = dest_pp;
      const int dest = p.ranks.find(dc, l);
      const LinkClass link = group_link({rank.global, l.rank_of(dc)}, p.scenario);
      const Cost c = p.cost.p2p(link, bytes);
      const double slow = p.link_scale({rank.global, l.rank_of(dc)});
      const WorkId ws = p.work(forward ? TaskType::SendActivation : TaskType::SendGradient, a.stage,
                               p.chunk_of(a.stage), c, static_cast<int>(link), -1, slow);
      const WorkId wr = p.work(forward ? TaskType::RecvActivation : TaskType::RecvGradient, next,
                               p.chunk_of(next), c, static_cast<int>(link), -1, slow);
      const TaskId send = p.builder.add_task(p.stream(r, StreamType::Send, dest), ws, a.microbatch);
      const TaskId recv = p.builder.add_task(p.stream(dest, StreamType::Recv, r), wr, a.microbatch);
      const std::array<TaskId, 2> pair{send, recv};
      p.builder.add_rendezvous(pair);
      p.builder.add_dependency(producer, send);
      p.builder.add_dependency(recv, consumer);
    }
  }
}

}  // namespace trainsim
