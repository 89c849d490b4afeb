#include <algorithm>

#include <fmt/format.h>

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

ComputeTasks add_compute_pass(Program& p) {
  const Schedule& s = p.schedule;
  ComputeTasks out;
  out.gathered.resize(p.ranks.ranks.size());
  // Per stage, reset after each rank for the stages it touched (tables per rank would cost
  // O(ranks · stages)).
  std::vector<std::size_t> last_gradient(static_cast<std::size_t>(s.stages), 0);
  std::vector<char> forward_seen(static_cast<std::size_t>(s.stages), 0);
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const SimRank& rank = p.ranks.ranks[static_cast<std::size_t>(r)];
    const int replica = p.ranks.replica(rank);
    const int pp = rank.coord.pp;
    const auto& list = s.actions[static_cast<std::size_t>(pp)];
    const StreamId cs = p.compute_stream[static_cast<std::size_t>(r)];
    const double scale = p.compute_scale(r);  // a straggler's compute
    // Index of each stage's last gradient-producing action (B, or W when split) on this rank.
    for (const Action& a : list) {
      last_gradient[static_cast<std::size_t>(a.stage)] = list.size();
      forward_seen[static_cast<std::size_t>(a.stage)] = 0;
    }
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].op == Op::W || list[i].op == Op::B)  // (one inside an F&B pair is not split)
        last_gradient[static_cast<std::size_t>(list[i].stage)] = i;
    // Whether action i's gradients are reduced: the stage's last gradient-producing action
    // (gradients accumulate whole until then), or under ZeRO-2/3, which keep only their shard,
    // every one (PyTorch FSDP without no_sync, DeepSpeed ZeRO-2/3).
    const bool every = p.scenario.layout.zero >= 2;
    auto reduces = [&](std::size_t i) {
      const Action& x = list[i];
      return i == last_gradient[static_cast<std::size_t>(x.stage)] ||
             (every && (x.op == Op::B || x.op == Op::W));
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      const bool first_forward = a.op == Op::F && !forward_seen[static_cast<std::size_t>(a.stage)];
      if (a.op == Op::F) forward_seen[static_cast<std::size_t>(a.stage)] = 1;
      if (a.overlapped_with_next) {  // validated: an F, then the B it overlaps with
        const Action& b = list[++i];
        if (p.needs_gather(a, first_forward) || p.needs_gather(b, false))
          throw ScenarioError(p.scenario.source, "parallelism.zero",
                              fmt::format("{} with overlapped F&B pairs ({}) is not modelled: "
                                          "per-unit parameter gathers need the F and the B as "
                                          "separate tasks; use zero 0, 1 or 2",
                                          p.scenario.layout.zero, s.name));
        Cost c = p.cost.overlapped(p.model_stage(a.stage), p.model_stage(b.stage), pp);
        // A pair whose backward completes the gradients runs their NaN check (one bucket).
        if (reduces(i))
          c.duration += p.cost.grad_check(p.cost.gradient_bytes(p.model_stage(b.stage))).duration;
        const double pace =
            p.cost.overlapped_pace(p.model_stage(a.stage), p.model_stage(b.stage), pp);
        // The Work records both stages: the pair's cost depends on which two chunks overlap.
        const WorkId w = p.work(TaskType::ForwardBackward, a.stage, p.chunk_of(a.stage), c, 0,
                                b.stage, scale * pace);
        const TaskId t = p.builder.add_task(cs, w, a.microbatch);
        p.task_of(replica, a.stage, a.op, a.microbatch) = t;
        p.task_of(replica, b.stage, b.op, b.microbatch) = t;
        if (reduces(i)) out.gradient_parts[{r, b.stage, b.microbatch}] = {t};
        continue;
      }
      Cost c = p.compute_cost(a.op, a.stage, pp);
      // The job's slowest GPU sets every GPU's pace (a duration `costs:` gives keeps its own).
      const double paced = scale * p.cost.pace_of(a.op, p.model_stage(a.stage), pp);
      // Divided into parts where a DP bucket's gradients complete (a backward whose gradients
      // are reduced) and where each FSDP unit's gathered parameters are needed.
      const bool reduced = reduces(i);
      const int kb = reduced ? p.buckets(a.stage) : 1;
      const int kg = p.needs_gather(a, first_forward) ? p.gather_units(a.stage) : 0;
      TRAINSIM_CHECK(kg == 0 || kb == 1 || kg == kb, "bucket and unit boundaries coincide");
      const int k = std::max({1, kb, kg});
      // parallelism.grad_nan_check: each bucket's norm and tests on this stream, in the part
      // that completes the bucket (before its reduction, which waits for them).
      const double grads = reduced ? p.cost.gradient_bytes(p.model_stage(a.stage)) : 0.0;
      auto check = [&](int j) {
        return kb > 1 ? p.cost.grad_check(p.bucket_bytes(a.stage, j, kb, grads)).duration
                      : p.cost.grad_check(grads).duration;
      };
      if (k == 1) {
        if (reduced) c.duration += check(0);
        const WorkId w = p.work(type_of(a.op), a.stage, p.chunk_of(a.stage), c, 0, -1, paced);
        const TaskId t = p.builder.add_task(cs, w, a.microbatch);
        p.task_of(replica, a.stage, a.op, a.microbatch) = t;
        if (kg == 1) out.gathered[static_cast<std::size_t>(r)].push_back(t);
        if (reduced) out.gradient_parts[{r, a.stage, a.microbatch}] = {t};
        continue;
      }
      // k parts of equal length (the last takes the rounding): the layers are alike.
      const TimeNs piece = c.duration / k;
      std::vector<TaskId> parts;
      for (int j = 0; j < k; ++j) {
        Cost cj{j + 1 < k ? piece : c.duration - piece * (k - 1), c.flops / k, c.bytes / k};
        if (reduced && (kb > 1 || j + 1 == k)) cj.duration += check(kb > 1 ? j : 0);
        const WorkId w =
            p.work(type_of(a.op), a.stage, p.chunk_of(a.stage), cj, 0, -1, paced, j, k);
        parts.push_back(p.builder.add_task(cs, w, a.microbatch));
      }
      p.task_of(replica, a.stage, a.op, a.microbatch) = parts.front();
      // One bucket per part, or (parts made for the gathers alone) one after the last part.
      if (reduced)
        out.gradient_parts[{r, a.stage, a.microbatch}] =
            kb > 1 ? parts : std::vector<TaskId>{parts.back()};
      // One part per unit (a forward runs them first to last, a backward last to first; every
      // unit of a stage gathers the same bytes).
      if (kg > 0) out.gathered[static_cast<std::size_t>(r)].push_back(parts.front());
      p.set_parts(std::move(parts));
    }
    // Same-rank data dependencies: the backward needs its forward, W needs its I.
    for (const Action& a : s.actions[static_cast<std::size_t>(pp)]) {
      const TaskId t = p.task_of(replica, a.stage, a.op, a.microbatch);
      if (a.op == Op::B || a.op == Op::I)
        p.builder.add_dependency(p.end_of(replica, a.stage, Op::F, a.microbatch), t);
      if (a.op == Op::W)
        p.builder.add_dependency(p.end_of(replica, a.stage, Op::I, a.microbatch), t);
    }
  }
  return out;
}

}  // namespace trainsim
