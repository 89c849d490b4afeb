#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "lower/program.h"
#include "memory/footprint.h"
#include "scenario/partition.h"

namespace trainsim {
namespace {

// What a DP group's collective runs, for the trace and the GUI (task_types.h).
DpDetail detail_of(Collective op, bool experts) {
  switch (op) {
    case Collective::AllReduce:
      return experts ? DpDetail::ExpertAllReduce : DpDetail::AllReduce;
    case Collective::ReduceScatter:
      return experts ? DpDetail::ExpertReduceScatter : DpDetail::ReduceScatter;
    case Collective::AllGather:
      return experts ? DpDetail::ExpertAllGather : DpDetail::AllGather;
    case Collective::AllToAll:
      break;
  }
  TRAINSIM_CHECK(false, "a data-parallel group runs no all-to-all");
  return DpDetail::None;
}

}  // namespace

void add_dp_optimizer_pass(Program& p, const ComputeTasks& compute,
                           const std::vector<std::vector<TaskId>>& tails) {
  if (!p.cost.models_hardware()) return;  // a costs-only pipeline study has no optimizer step
  const Scenario& sc = p.scenario;
  const Layout& l = sc.layout;
  // A reduction's group: the DP group, or under expert parallelism the routed experts'
  // expert-data-parallel group (the ranks holding the same experts: dp · cp / ep, or with
  // experts whole on each TP rank, etp 1, tp · dp · cp / ep).
  struct Group {
    int size = 1;
    LinkClass link = LinkClass::IntraNode;
    int per_node = 1;
    double slow = 1;  // the group's slowest member sets the pace
    int id = -1;      // -1: the DP group; else which experts (expert slot mod ep)
  };
  auto group_of = [&](const std::vector<int>& members, int id) {
    return Group{static_cast<int>(members.size()), group_link(members, sc),
                 members_per_node(members, sc), p.link_scale(members), id};
  };
  // Of a stage's parameters, the share the expert-data-parallel group reduces and gathers: the
  // routed experts' under expert parallelism or when whole experts span the TP ranks (their
  // TP peers routed other tokens through them); none otherwise (everything goes over DP).
  auto routed_share = [&](int st) {
    const double all = p.cost.stage_params(p.model_stage(st));
    return (l.ep > 1 || l.experts_span_tp()) && all > 0
               ? p.cost.expert_params(p.model_stage(st)) / all
               : 0.0;
  };
  // Members of each collective, keyed by (pp, tp, group id, stage, phase).
  std::map<std::tuple<int, int, int, int, int>, std::vector<TaskId>> groups;
  // With two pipelines (DualPipe) each model stage has a copy on two ranks, whose gradients
  // are summed (deepseek-ai/DualPipe, examples/example_dualpipe.py): members of each pair's
  // all-reduce, keyed by (dp, tp, model stage).
  std::map<std::tuple<int, int, int>, std::vector<TaskId>> pairs;
  const Schedule& sch = p.schedule;
  // Tied embeddings over a pipeline (one chain): the first stage's embedding and the last
  // stage's copy of it as the output layer sum their gradients once the DP reduction is done,
  // before the optimizer step (Megatron-core's finalize_model_grads,
  // _allreduce_word_embedding_grads over the embedding group: the whole V/t × h gradient, in
  // the gradient buffer's precision). Multi-token prediction's copy of the table on the last
  // stage is summed the same way (_get_shared_word_embedding_weight: also where
  // mtp_num_layers). Members keyed by (dp, tp).
  const int embedding_pp = sch.stage_rank.empty() ? 0 : sch.stage_rank.front();
  const int head_pp = sch.stage_rank.empty() ? 0 : sch.stage_rank[sch.chain_stages() - 1];
  const bool tied_pair = sc.model && (sc.model->tied_embeddings || sc.model->mtp_layers > 0) &&
                         sch.chains == 1 && embedding_pp != head_pp &&
                         sc.training.lora_rank <= 0;  // a frozen table has no gradient
  std::map<std::tuple<int, int>, std::vector<TaskId>> embedding_pairs;
  const std::vector<StageContent> parts =
      sc.model ? partition_model(*sc.model, sch.chain_stages(), l.split)
               : std::vector<StageContent>{};
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const Group dp = group_of(group_members(l, rank.coord, Axis::DP), -1);
    const Group experts =
        group_of(expert_dp_members(l, rank.coord), l.expert_slot(rank.coord) % l.ep);
    // One collective per part over each group that has something to move: the dense
    // parameters' share over DP, the routed experts' over their group (all of it without EP).
    auto collective = [&](const Group& g, Collective op, double bytes, int st, int variant,
                          int phase, TaskId after) {
      if (g.size <= 1 || bytes <= 0) return kNone;
      // ZeRO-3 reduce-scatters each unit's gradients in parallelism.fsdp.reduce_bucket pieces.
      const bool unit = l.zero == 3 && op == Collective::ReduceScatter;
      const Cost c = p.bucketed(op, g.size, g.link, bytes, g.per_node,
                                unit ? l.fsdp.reduce_bucket : std::nullopt);
      const WorkId w = p.work(TaskType::DpCollective, st, p.chunk_of(st), c, variant, -1, g.slow);
      p.builder.work(w).detail = static_cast<std::uint8_t>(detail_of(op, g.id >= 0));
      const TaskId t = p.builder.add_task(p.stream(r, StreamType::DataParallel), w, -1);
      p.builder.add_dependency(after, t);
      // An expert-data-parallel group spanning TP gathers every TP coordinate's members.
      const int tp_key = g.id >= 0 && l.experts_span_tp() ? -1 : rank.coord.tp;
      groups[{rank.coord.pp, tp_key, g.id, st, phase}].push_back(t);
      return t;
    };
    // Each stage (chunk) this rank holds.
    const std::vector<int>& stages = p.stages_on(rank.coord.pp);
    double params = 0, expert_params = 0;
    std::vector<TaskId> reductions;
    // Per model stage: the stage here that runs it, and the tasks after which its gradients
    // are final on this rank (its last backward, its reductions).
    std::map<int, std::pair<int, std::vector<TaskId>>> final_of;
    // The reductions of every stage here, each after the compute task that completes its
    // gradients; they leave on the DP stream in the order those tasks run (with several chunks
    // per rank, a chunk's early micro-batches must not queue behind another chunk's last one).
    struct Reduction {
      std::size_t at;  // position of `after` on the compute stream
      int st, ms, phase;
      double all, routed;
      TaskId after;
    };
    std::vector<Reduction> pending;
    // A tied head on this rank's embedding's own rank (a V-shaped schedule, pp 1 with chunks)
    // uses the embedding's table: stage_params counted it again for the head's stage. So does
    // multi-token prediction's lookup there, also under DualPipe, whose two copies of the model
    // DeepSeek-V3 places so that the module shares the embedding on its rank (§3.2.3).
    std::vector<int> model_stages;
    for (int st : stages) model_stages.push_back(p.model_stage(st));
    // (Under LoRA the table is frozen: nothing of it is trained, reduced or stepped.)
    const double twice =
        sc.model && (sch.chains == 1 || sc.model->mtp_layers > 0) && sc.training.lora_rank <= 0
            ? static_cast<double>(tied_table_counted_twice(*sc.model, parts, model_stages, l.tp))
            : 0.0;
    params -= twice;
    for (int st : stages) {
      const int ms = p.model_stage(st);
      params += p.cost.trainable_params(ms);
      expert_params += p.cost.expert_params(ms);
      if (sch.chains > 1) {
        const auto last = std::prev(compute.gradient_parts.lower_bound({r, st + 1, -1}));
        TRAINSIM_CHECK(std::get<0>(last->first) == r && std::get<1>(last->first) == st,
                       "every stage has a backward");
        final_of[ms] = {st, {last->second.back()}};
      }
      if (l.dp_ranks() <= 1) continue;
      // The backwards whose gradients are reduced (ComputeTasks::gradient_parts), each where
      // its buckets complete.
      const auto from = compute.gradient_parts.lower_bound({r, st, -1});
      const auto to = compute.gradient_parts.lower_bound({r, st + 1, -1});
      TRAINSIM_CHECK(from != to, "every stage has a backward");
      // ZeRO-0 all-reduces each bucket, ZeRO-2 reduce-scatters it, ZeRO-3 reduce-scatters
      // each FSDP unit; ZeRO-1 reduce-scatters (or, parallelism.zero1_reduce, all-reduces)
      // once after the last backward, or by bucket with overlap_grad_reduce.
      int phase = 2;  // 0, 1: the parameter gathers'
      for (auto it = from; it != to; ++it) {
        const std::vector<TaskId>& ready = it->second;
        const int k = static_cast<int>(ready.size());
        const bool head = twice > 0 && ms == sch.chain_stages() - 1;
        const double grads =
            p.cost.gradient_bytes(ms) * (head ? 1 - twice / p.cost.trainable_params(ms) : 1.0);
        const double routed = grads * routed_share(st), dense = grads - routed;
        if (k == 1 || l.zero == 3) {
          // One reduction of each group's share once the backward is over, or ZeRO-3's of each
          // unit: the routed experts' share in equal parts, the dense rest as the units hold it.
          for (int j = 0; j < k; ++j)
            pending.push_back({0, st, ms, phase++, p.bucket_bytes(st, j, k, dense) + routed / k,
                               routed / k, ready[static_cast<std::size_t>(j)]});
          continue;
        }
        // Megatron-core's DDP keeps the dense parameters and the expert-parallel ones in
        // buffers of their own (distributed_data_parallel.py: `buffers` reduced over the DP
        // group, `expert_parallel_buffers` over the expert-data-parallel one), each cut into
        // memory.bucket_size buckets: the dense share in as many buckets as it fills, the last
        // one with the embedding's table (Program::bucket_bytes), the routed experts' in
        // equal ones. Both fill as the backward runs back through the layers: bucket j of n
        // is complete where the part j + 1 of k (the stage's buckets) is done in proportion.
        const auto at = [&](int j, int n) {
          const int part = static_cast<int>(std::ceil(static_cast<double>(j + 1) * k / n)) - 1;
          return ready[static_cast<std::size_t>(std::clamp(part, 0, k - 1))];
        };
        const int kd = p.gradient_buckets(st, dense);
        for (int j = 0; j < kd; ++j)
          pending.push_back({0, st, ms, phase++, p.bucket_bytes(st, j, kd, dense), 0, at(j, kd)});
        const int kr = routed <= 0 ? 0
                       : !p.splits_gradients(st)
                           ? 1
                           : static_cast<int>(std::ceil(routed / sc.memory.bucket_size));
        for (int j = 0; j < kr; ++j)
          pending.push_back({0, st, ms, phase++, routed / kr, routed / kr, at(j, kr)});
      }
    }
    if (!pending.empty()) {
      std::unordered_map<TaskId, std::size_t> position;
      const std::vector<TaskId>& order = p.builder.stream_order(cs);
      for (std::size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
      for (Reduction& x : pending) x.at = position.at(x.after);
      std::stable_sort(pending.begin(), pending.end(),
                       [](const Reduction& a, const Reduction& b) { return a.at < b.at; });
    }
    const Collective op = l.zero == 0 || (l.zero == 1 && l.zero1_all_reduce)
                              ? Collective::AllReduce
                              : Collective::ReduceScatter;
    for (const Reduction& x : pending)
      for (const TaskId t : {collective(dp, op, x.all - x.routed, x.st, 0, x.phase, x.after),
                             collective(experts, op, x.routed, x.st, 2, x.phase, x.after)})
        if (t != kNone) {
          reductions.push_back(t);
          if (sch.chains > 1) final_of[x.ms].second.push_back(t);
        }
    // DualPipe: each model stage's gradients (or, reduced over DP by ZeRO-1/2/3, this GPU's
    // shard of them) all-reduced with the rank holding the other copy, once this rank's are
    // final, in model-stage order on both ranks.
    for (const auto& [ms, held] : final_of) {
      const auto& [st, after] = held;
      Coord partner = rank.coord;
      partner.pp = sch.stage_rank[static_cast<std::size_t>((st + sch.chain_stages()) % sch.stages)];
      const std::vector<int> members{rank.global, l.rank_of(partner)};
      const double all = p.cost.gradient_bytes(ms), routed = all * routed_share(st);
      const double bytes =
          l.zero == 0 ? all : (all - routed) / l.dp_ranks() + routed / experts.size;
      const Cost c = p.cost.collective(Collective::AllReduce, 2, group_link(members, sc), bytes,
                                       members_per_node(members, sc));
      const WorkId w =
          p.work(TaskType::DpCollective, st, p.chunk_of(st), c, 4, -1, p.link_scale(members));
      p.builder.work(w).detail = static_cast<std::uint8_t>(DpDetail::PairAllReduce);
      const TaskId t = p.builder.add_task(p.stream(r, StreamType::DataParallel), w, -1);
      for (const TaskId u : after) p.builder.add_dependency(u, t);
      pairs[{rank.coord.dp, rank.coord.tp, ms}].push_back(t);
      reductions.push_back(t);
    }
    if (tied_pair && (rank.coord.pp == embedding_pp || rank.coord.pp == head_pp)) {
      Coord partner = rank.coord;
      partner.pp = rank.coord.pp == embedding_pp ? head_pp : embedding_pp;
      const std::vector<int> members{rank.global, l.rank_of(partner)};
      const ModelSpec& m = *sc.model;
      // The whole table's gradient (Megatron's ZeRO-1 keeps it whole); under ZeRO-2/3 only this
      // GPU's shard of it is left to sum.
      const double whole = static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / l.tp *
                           grad_reduce_bytes(sc.training);
      const double bytes = l.zero >= 2 ? whole / l.dp_ranks() : whole;
      const Cost c = p.cost.collective(Collective::AllReduce, 2, group_link(members, sc), bytes,
                                       members_per_node(members, sc));
      const int st = rank.coord.pp == embedding_pp ? 0 : sch.chain_stages() - 1;
      const WorkId w =
          p.work(TaskType::DpCollective, st, p.chunk_of(st), c, 5, -1, p.link_scale(members));
      p.builder.work(w).detail = static_cast<std::uint8_t>(DpDetail::TiedAllReduce);
      const TaskId t = p.builder.add_task(p.stream(r, StreamType::DataParallel), w, -1);
      // After this end's last backward and its DP reduction (finish_grad_sync comes first).
      const auto last = std::prev(compute.gradient_parts.lower_bound({r, st + 1, -1}));
      TRAINSIM_CHECK(std::get<0>(last->first) == r && std::get<1>(last->first) == st,
                     "every stage has a backward");
      p.builder.add_dependency(last->second.back(), t);
      for (TaskId u : reductions) p.builder.add_dependency(u, t);
      for (const TaskId tail : tails[static_cast<std::size_t>(r)])
        p.builder.add_dependency(tail, t);
      embedding_pairs[{rank.coord.dp, rank.coord.tp}].push_back(t);
      reductions.push_back(t);
    }
    // Optimizer step on this GPU's shard: everything (ZeRO-0), else the dense parameters / dp
    // and the routed experts / (dp / ep) (ZeRO-1/2/3).
    const double shard =
        l.zero >= 1 ? (params - expert_params) / l.dp_ranks() + expert_params / experts.size
                    : params;
    TaskId opt = kNone;
    auto after_backward = [&](TaskId t) {
      for (TaskId u : reductions) p.builder.add_dependency(u, t);
      for (const TaskId tail : tails[static_cast<std::size_t>(r)])
        p.builder.add_dependency(tail, t);
    };
    // training.zero_grad_buffer: the gradients this GPU holds (memory/footprint.h, as `trainsim
    // memory` counts them) written to zero once a step. Megatron does it at the step's start,
    // before the first forward; in a steady run of steps that is right after this one's
    // optimizer step on the same stream, where it is timed (in the optimizer's task). The
    // footprint is only worked out when the setting is on (it re-partitions the model).
    const bool zeroes = sc.model && sc.training.zero_grad_buffer;
    const Cost zeroing =
        p.cost.zero_grad(zeroes ? static_memory(sc, model_stages, sch.chains).gradients : 0.0);
    if (sc.training.offload == Offload::Optimizer) {
      // ZeRO-Offload: the gradient shard down the host link, Adam on the host CPU, the updated
      // 16-bit weights back up; the GPU's compute stream does no optimizer work.
      const StreamId link = p.stream(r, StreamType::HostLink);
      const int first = p.model_stage(stages.front());
      const double grads =
          shard * (p.cost.gradient_bytes(first) / std::max(1.0, p.cost.trainable_params(first)));
      // Works are shared by key: a pipeline rank's shard is its own (variant: pp, and which way).
      const int pp = rank.coord.pp;
      const TaskId down = p.builder.add_task(
          link, p.work(TaskType::HostTransfer, -1, -1, p.cost.host_transfer(grads), 2 * pp), -1);
      after_backward(down);
      const TaskId cpu = p.builder.add_task(
          p.stream(r, StreamType::Host),
          p.work(TaskType::HostOptimizer, -1, -1, p.cost.host_optimizer(shard), pp), -1);
      p.builder.add_dependency(down, cpu);
      opt = p.builder.add_task(
          link,
          p.work(TaskType::HostTransfer, -1, -1, p.cost.host_transfer(2.0 * shard), 2 * pp + 1),
          -1);
      p.builder.add_dependency(cpu, opt);
      if (zeroing.duration > 0) {  // the compute stream's only step-end work under offload
        const TaskId z =
            p.builder.add_task(cs,
                               p.work(TaskType::Optimizer, -1, -1, zeroing, rank.coord.pp, -1,
                                      p.compute_scale(r) * p.cost.compute_pace()),
                               -1);
        after_backward(z);
      }
    } else {
      Cost step = p.cost.optimizer(shard);
      step.duration += zeroing.duration;
      step.bytes += zeroing.bytes;
      const WorkId wo = p.work(TaskType::Optimizer, -1, -1, step, rank.coord.pp, -1,
                               p.compute_scale(r) * p.cost.compute_pace());
      opt = p.builder.add_task(cs, wo, -1);
      after_backward(opt);
    }
    if ((l.zero == 1 || l.zero == 2) && !l.param_gather_with_forward && l.dp_ranks() > 1) {
      // Updated bf16 parameters are gathered back from every shard (ZeRO-3 gathers before each
      // use instead; with param_gather the next forward does, add_param_gather_pass).
      for (int st : stages) {
        const double all = p.param_gather_bytes(st), routed = all * routed_share(st);
        collective(dp, Collective::AllGather, all - routed, st, 1, 1, opt);  // 1: the gather
        collective(experts, Collective::AllGather, routed, st, 3, 1, opt);
      }
    }
  }
  for (const auto& [key, members] : groups) p.builder.add_rendezvous(members);
  for (const auto& [key, members] : embedding_pairs) {
    TRAINSIM_CHECK(members.size() == 2, "both ends of a tied embedding are simulated");
    p.builder.add_rendezvous(members);
  }
  for (const auto& [key, members] : pairs) {
    TRAINSIM_CHECK(members.size() == 2, "both copies of a DualPipe stage are simulated");
    p.builder.add_rendezvous(members);
  }
}

}  // namespace trainsim
