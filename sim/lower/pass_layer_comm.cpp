#include <algorithm>
#include <array>
#include <tuple>

#include "lower/program.h"

namespace trainsim {

LayerCommTasks add_layer_comm_pass(Program& p) {
  const Layout& l = p.scenario.layout;
  LayerCommTasks out;
  out.tails.resize(p.ranks.ranks.size());
  if ((l.tp <= 1 && l.ep <= 1 && l.cp <= 1) || !p.cost.models_hardware()) return out;
  // The members of each collective, keyed by (kind, stage, op kind, micro-batch, part, group):
  // a flat list sorted by key afterwards (stable: members keep their order), cheaper than a map
  // of vectors for the m · stages collectives of a long pipeline. The group: the DP index for
  // TP (one TP group per DP replica), the EP block and TP index for EP (0 when EP groups span
  // TP).
  // Each entry's value: (0, a collective's own task) or (1, the compute that starts with it).
  using Key = std::tuple<int, int, int, int, int, int, int>;
  std::vector<std::pair<Key, std::pair<int, TaskId>>> members_of;
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    struct Kind {
      LayerComm kind;
      TaskType type;
      StreamType stream;
      LinkClass link;
      int per_node;
      double slow;
      int group_a, group_b;
    };
    std::vector<Kind> kinds;
    if (l.tp > 1) {
      // The asynchronous part first: on the one TP stream it starts with the compute, before
      // the blocking part that waits for the compute's end. With comm-GEMM overlap each layer's
      // collectives hide under the GEMMs they are fused with (the cost model's split): the same
      // two parts.
      // A TP group wider than a node spans whole nodes (its ranks are consecutive): every
      // node's NICs carry a ring apiece, as a data-parallel group's do.
      auto m = group_members(l, rank.coord, Axis::TP);
      const int per_node = members_per_node(m, p.scenario);
      kinds.push_back({LayerComm::TPHidden, TaskType::TpCollective, StreamType::TensorParallel,
                       group_link(m, p.scenario), per_node, p.link_scale(m), rank.coord.dp, 0});
      kinds.push_back({LayerComm::TP, TaskType::TpCollective, StreamType::TensorParallel,
                       group_link(m, p.scenario), per_node, p.link_scale(m), rank.coord.dp, 0});
    }
    if (l.ep > 1) {
      auto m = expert_group_members(l, rank.coord);
      kinds.push_back({LayerComm::EP, TaskType::EpCollective, StreamType::ExpertParallel,
                       group_link(m, p.scenario), members_per_node(m, p.scenario), p.link_scale(m),
                       l.expert_slot(rank.coord) / l.ep, l.experts_span_tp() ? 0 : rank.coord.tp});
    }
    if (l.cp > 1) {
      // As TP's: the part that hides beside the compute first (all-to-all context parallelism's
      // exchanges beside the layout copies around them), then the blocking part.
      auto m = context_group_members(l, rank.coord);
      for (const LayerComm kind : {LayerComm::CPHidden, LayerComm::CP})
        kinds.push_back({kind, TaskType::CpCollective, StreamType::ContextParallel,
                         group_link(m, p.scenario), members_per_node(m, p.scenario),
                         p.link_scale(m), rank.coord.dp / l.cp, rank.coord.tp});
    }
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
      // TP's collectives, then the EP all-to-alls (a simplification: in a layer they
      // alternate; summed per part they take the same time on the critical path).
      TaskId before = t;       // what the next collective of the chain waits for
      bool hidden_tp = false;  // TP's asynchronous part was added
      for (const Kind& k : kinds) {
        Cost c = p.layer_comm_cost(k.kind, op, w.stage, k.link, k.per_node);
        if (type == TaskType::ForwardBackward) {  // both halves' collectives
          const Cost cb = p.layer_comm_cost(k.kind, Op::B, w.stage2, k.link, k.per_node);
          c = {c.duration + cb.duration, c.flops + cb.flops, c.bytes + cb.bytes};
        }
        // Nothing to run: a stage without MoE layers; a W (no keys or values move); TP's
        // blocking part when its asynchronous part holds it all. (A TP collective with neither
        // part stays, a zero-length one, where a layer-less stage has none.)
        if (c.duration == 0 && c.bytes == 0 && (k.kind != LayerComm::TP || hidden_tp)) continue;
        if (k.kind == LayerComm::TPHidden) hidden_tp = true;
        if (w.parts > 1) c = {c.duration / w.parts, c.flops / w.parts, c.bytes / w.parts};
        // Works differ by op, link and the group's members per node (an all-to-all's time).
        const int variant = (k.per_node * 3 + Program::kind_of(op)) * 2 + static_cast<int>(k.link);
        const WorkId wc =
            p.work(k.type, w.stage, w.chunk, c, variant, w.stage2, k.slow, w.part, w.parts);
        const Key key{static_cast<int>(k.kind),
                      w.stage,
                      Program::kind_of(op),
                      task.microbatch,
                      w.part,
                      k.group_a,
                      k.group_b};
        // On its own stream (NCCL's CUDA stream), and the next compute needs its result.
        const TaskId tc = p.builder.add_task(p.stream(r, k.stream), wc, task.microbatch);
        members_of.push_back({key, {0, tc}});
        out.after[t].push_back(tc);
        if (i + 1 < tasks.size())
          p.builder.add_dependency(tc, tasks[i + 1]);
        else
          out.tails[static_cast<std::size_t>(r)].push_back(tc);
        // Beside the compute it belongs to, starting with it: TP's asynchronous part and what
        // comm-GEMM overlap hides (the cost model's tp_hidden_communication); the
        // all-to-alls of DualPipe's overlapped F&B pair, each chunk's hidden under the other's
        // compute (DeepSeek-V3 report, arXiv 2412.19437, §3.2.1).
        // Ring attention's KV blocks travel beside the attention blocks (Megatron-core's p2p
        // context parallelism), here beside the part's whole compute; the all-gather variant
        // waits for its keys and values. The compute starts with each collective it overlaps
        // (with all of them at once when several do: their groups start together) and keeps its
        // own pace, slowed by contention, not by the collective's link.
        const bool beside = k.kind == LayerComm::TPHidden || k.kind == LayerComm::CPHidden ? true
                            : k.kind == LayerComm::TP                                      ? false
                            : k.kind == LayerComm::CP ? l.cp_ring()
                                                      : type == TaskType::ForwardBackward;
        if (beside) {
          members_of.push_back({key, {1, t}});
        } else {
          p.builder.add_dependency(before, tc);  // after them, on the critical path
          before = tc;
        }
      }
    }
  }
  std::stable_sort(members_of.begin(), members_of.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TaskId> group, beside;
  for (std::size_t i = 0; i < members_of.size();) {
    group.clear();
    beside.clear();
    std::size_t j = i;
    for (; j < members_of.size() && members_of[j].first == members_of[i].first; ++j)
      (members_of[j].second.first == 0 ? group : beside).push_back(members_of[j].second.second);
    p.builder.add_rendezvous(group, beside);
    i = j;
  }
  return out;
}

}  // namespace trainsim
