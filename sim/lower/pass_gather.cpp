#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "lower/program.h"

namespace trainsim {

void add_param_gather_pass(Program& p, const ComputeTasks& compute) {
  const Layout& l = p.scenario.layout;
  const int depth = l.fsdp.prefetch;
  // ZeRO-1/2's gathers with the next forward over model chunks go chunk by chunk, a chunk ahead:
  // Megatron-LM's interleaved schedule launches the parameter all-gathers of chunks 0 and 1 at
  // the step's start and those of chunk c + 1, every bucket at once, as the forward of virtual
  // micro-batch c·pp − r begins on pipeline rank r (schedules.py,
  // forward_backward_pipelining_with_interleaving, config.param_sync_func: param_sync_microbatch_id
  // = microbatch_id + pipeline_parallel_rank): on rank 0 chunk c's first forward, on rank r the
  // forward r before it, so the ranks launch together. Without chunks each bucket is gathered
  // `depth` ahead, as FSDP does.
  const bool chunk_ahead = l.zero != 3 && l.param_gather_with_forward && l.vpp > 1;
  // Members of each all-gather, keyed by (pp, tp, position in the rank's gather sequence): DP
  // peers run the same schedule, so their sequences match position by position.
  std::map<std::tuple<int, int, std::size_t>, std::vector<TaskId>> groups;
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const auto& uses = compute.gathered[static_cast<std::size_t>(r)];
    if (uses.empty()) continue;
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const std::vector<int> members = group_members(l, rank.coord, Axis::DP);
    const LinkClass link = group_link(members, p.scenario);
    const int per_node = members_per_node(members, p.scenario);
    const double slow = p.link_scale(members);
    const StreamId gs = p.stream(r, StreamType::Gather);
    // The compute parts that need a gathered unit, in the order the compute stream runs them;
    // chunk_of_use: which of this rank's chunks (its n-th first forward) each belongs to, and
    // first_part: the first part of each chunk's first forward.
    std::vector<TaskId> consumers;
    std::vector<int> stage_of;
    std::vector<std::size_t> chunk_of_use;
    std::vector<TaskId> first_part;
    for (const TaskId first : uses) {
      const std::vector<TaskId> one{first};
      const std::vector<TaskId>* divided = p.parts_of(first);
      const std::vector<TaskId>& parts = divided ? *divided : one;
      for (TaskId t : parts) {
        consumers.push_back(t);
        stage_of.push_back(p.builder.work(p.builder.task(t).work).stage);
        chunk_of_use.push_back(first_part.size());
      }
      first_part.push_back(parts.front());
    }
    // Chunk-ahead launch points: for chunk c ≥ 2, the compute task before the forward that
    // launches it (none: the step's start), so the gathers start as that forward begins.
    std::vector<std::optional<TaskId>> launch(first_part.size());
    if (chunk_ahead && first_part.size() > 2) {
      const std::vector<TaskId>& order =
          p.builder.stream_order(p.compute_stream[static_cast<std::size_t>(r)]);
      // The first part of every forward, in the order the compute stream runs them.
      std::vector<std::size_t> forwards;  // positions in `order`
      std::unordered_map<TaskId, std::size_t> forward_index;
      std::set<std::pair<int, int>> seen;  // (stage, micro-batch)
      for (std::size_t j = 0; j < order.size(); ++j) {
        const Work& w = p.builder.work(p.builder.task(order[j]).work);
        if (static_cast<TaskType>(w.type) != TaskType::Forward) continue;
        if (!seen.insert({w.stage, p.builder.task(order[j]).microbatch}).second) continue;
        forward_index.emplace(order[j], forwards.size());
        forwards.push_back(j);
      }
      for (std::size_t c = 2; c < first_part.size(); ++c) {
        // (A chunk whose first forward runs fused with a backward, as F&B, launches none: its
        // gathers go at the step's start.)
        const auto found = forward_index.find(first_part[c - 1]);
        if (found == forward_index.end()) continue;
        const std::size_t at = found->second;
        const std::size_t back = std::min(at, static_cast<std::size_t>(rank.coord.pp));
        const std::size_t pos = forwards[at - back];
        if (pos > 0) launch[c] = order[pos - 1];
      }
    }
    for (std::size_t i = 0; i < consumers.size(); ++i) {
      const int st = stage_of[i];
      // The unit the part needs (a forward's parts in order; ZeRO-1/2's first the largest).
      const int unit = p.builder.work(p.builder.task(consumers[i]).work).part;
      // ZeRO-3 gathers each unit in parallelism.fsdp.gather_bucket pieces.
      const Cost c =
          p.bucketed(Collective::AllGather, l.dp_ranks(), link, p.gather_unit_bytes(st, unit),
                     per_node, l.zero == 3 ? l.fsdp.gather_bucket : std::nullopt);
      const WorkId w = p.work(TaskType::ParamGather, st, p.chunk_of(st), c, 0, -1, slow);
      const TaskId g = p.builder.add_task(gs, w, p.builder.task(consumers[i]).microbatch);
      p.builder.add_dependency(g, consumers[i]);
      if (chunk_ahead) {
        if (const auto& at = launch[chunk_of_use[i]]) p.builder.add_dependency(*at, g);
      } else if (i >= static_cast<std::size_t>(depth) + 1) {
        // Prefetch depth d: gather i is issued once part i − d − 1 has finished, i.e. when part
        // i − d starts computing (d = 0: on demand, right before its own part).
        p.builder.add_dependency(consumers[i - static_cast<std::size_t>(depth) - 1], g);
      }
      groups[{rank.coord.pp, rank.coord.tp, i}].push_back(g);
    }
  }
  for (const auto& [key, members] : groups) p.builder.add_rendezvous(members);
}

}  // namespace trainsim
