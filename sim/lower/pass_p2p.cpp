#include <array>
#include <cstdint>
#include <unordered_map>

#include "lower/program.h"

namespace trainsim {

void add_p2p_pass(Program& p, const LayerCommTasks& layer_comm) {
  const Schedule& s = p.schedule;
  const Layout& l = p.scenario.layout;
  const double bytes = p.cost.activation_bytes();
  const Op backward_op = s.split_backward() ? Op::I : Op::B;  // what consumes a gradient
  // What a transfer of (stage, direction) from one rank needs is the same for every
  // micro-batch: found once per rank.
  struct Route {
    int dest_pp = -1;
    StreamId send = 0, recv = 0;
    WorkId ws = 0, wr = 0;
  };
  std::unordered_map<std::uint64_t, Route> routes;
  const std::vector<TaskId> no_comm;  // a producer without layer collectives
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    routes.clear();
    // Walk the sender's actions in order: that is the order its transfers leave.
    for (const Action& a : s.actions[static_cast<std::size_t>(rank.coord.pp)]) {
      if (a.op == Op::W) continue;
      const bool forward = a.op == Op::F;
      // The micro-batch's chain (pipeline) ends here: the loss, or its first stage.
      if (forward ? s.chain_last(a.stage) : s.chain_first(a.stage)) continue;
      const int next = forward ? a.stage + 1 : a.stage - 1;
      const Op consumer_op = forward ? Op::F : backward_op;
      const TaskId producer = p.end_of(replica, a.stage, a.op, a.microbatch);
      // The producer's output is complete when its layers' collectives are too (its last
      // layer's TP reduce-scatter, its input gradients' collectives).
      const auto comm = layer_comm.after.find(producer);
      const std::vector<TaskId>& producer_comm =
          comm == layer_comm.after.end() ? no_comm : comm->second;
      const TaskId consumer = p.task_of(replica, next, consumer_op, a.microbatch);
      const auto key = static_cast<std::uint64_t>(a.stage) << 1 | (forward ? 1u : 0u);
      auto it = routes.find(key);
      if (it == routes.end()) {
        Route route;
        route.dest_pp = s.stage_rank[static_cast<std::size_t>(next)];
        if (route.dest_pp != rank.coord.pp) {
          Coord dc = rank.coord;
          dc.pp = route.dest_pp;
          const int dest = p.ranks.find(dc, l);
          const LinkClass link = group_link({rank.global, l.rank_of(dc)}, p.scenario);
          const Cost c = p.cost.p2p(link, bytes);
          const double slow = p.link_scale({rank.global, l.rank_of(dc)});
          route.ws = p.work(forward ? TaskType::SendActivation : TaskType::SendGradient, a.stage,
                            p.chunk_of(a.stage), c, static_cast<int>(link), -1, slow);
          route.wr = p.work(forward ? TaskType::RecvActivation : TaskType::RecvGradient, next,
                            p.chunk_of(next), c, static_cast<int>(link), -1, slow);
          route.send = p.stream(r, StreamType::Send, dest);
          route.recv = p.stream(dest, StreamType::Recv, r);
        }
        it = routes.emplace(key, route).first;
      }
      const Route& route = it->second;
      if (route.dest_pp == rank.coord.pp) {  // the next stage lives on this rank: no transfer
        p.builder.add_dependency(producer, consumer);
        for (const TaskId c : producer_comm) p.builder.add_dependency(c, consumer);
        continue;
      }
      const TaskId send = p.builder.add_task(route.send, route.ws, a.microbatch);
      const TaskId recv = p.builder.add_task(route.recv, route.wr, a.microbatch);
      const std::array<TaskId, 2> pair{send, recv};
      p.builder.add_rendezvous(pair);
      p.builder.add_dependency(producer, send);
      for (const TaskId c : producer_comm) p.builder.add_dependency(c, send);
      p.builder.add_dependency(recv, consumer);
    }
  }
}

}  // namespace trainsim
