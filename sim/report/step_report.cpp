#include "report/step_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "core/intervals.h"
#include "cost/analytic.h"
#include "cost/gpu_spread.h"
#include "lower/ranks.h"
#include "lower/task_types.h"
#include "report/memory_report.h"
#include "report/representative.h"
#include "scenario/partition.h"
#include "scenario/scenario_schema.h"
#include "schedules/zb_auto.h"

namespace trainsim {

namespace {

// The same costs with every stage given the mean over stages.
StageCosts balanced(StageCosts c) {
  for (auto* v : {&c.forward, &c.backward_input, &c.backward_weight}) {
    double total = 0;
    for (TimeNs x : *v) total += static_cast<double>(x);
    const auto m = static_cast<TimeNs>(total / static_cast<double>(v->size()));
    std::fill(v->begin(), v->end(), m);
  }
  return c;
}

}  // namespace

std::optional<StageCosts> simulated_stage_costs(const Timeline& tl) {
  const TaskGraph& g = *tl.graph;
  const auto S = static_cast<std::size_t>(tl.schedule.stages);
  enum { F, B, I, W, kOps };
  std::vector<std::array<double, kOps>> sum(S, {0, 0, 0, 0});
  std::vector<std::array<double, kOps>> count(S, {0, 0, 0, 0});
  // Overlapped pairs by (forward stage, backward stage): total duration, and how many.
  std::map<std::pair<std::size_t, std::size_t>, std::array<double, 2>> pairs;
  const std::vector<int> representative = stage_representatives(tl);
  for (TaskId t = 0; t < g.size(); ++t) {
    const Work& w = g.work(t);
    if (!represents(representative, tl, g.streams[g.tasks[t].stream].owner) || w.stage < 0)
      continue;
    if (static_cast<std::size_t>(w.stage) >= S) continue;
    const auto st = static_cast<std::size_t>(w.stage);
    const auto d = static_cast<double>(tl.end[t] - tl.start[t]);
    int op = -1;
    switch (static_cast<TaskType>(w.type)) {
      case TaskType::Forward:
        op = F;
        break;
      case TaskType::Backward:
        op = B;
        break;
      case TaskType::BackwardInput:
        op = I;
        break;
      case TaskType::BackwardWeight:
        op = W;
        break;
      case TaskType::ForwardBackward: {
        if (w.stage2 < 0 || static_cast<std::size_t>(w.stage2) >= S) break;
        auto& p = pairs[{st, static_cast<std::size_t>(w.stage2)}];
        p[0] += d;
        if (w.part == 0) p[1] += 1;
        break;
      }
      default:
        break;
    }
    if (op < 0) continue;
    sum[st][static_cast<std::size_t>(op)] += d;
    if (w.part == 0) count[st][static_cast<std::size_t>(op)] += 1;
  }
  auto mean = [&](std::size_t st, int op) {
    const auto o = static_cast<std::size_t>(op);
    return count[st][o] > 0 ? sum[st][o] / count[st][o] : -1.0;
  };
  // Each stage's lone costs: F, and the backward, its fused B and its I + W runs together,
  // split between I and W as the I and W runs split (all I without them).
  struct Lone {
    double f = -1, i = -1, w = -1, backwards = 0;
  };
  std::vector<Lone> lone(S);
  for (std::size_t st = 0; st < S; ++st) {
    const double f = mean(st, F), i = mean(st, I), w = mean(st, W);
    const double runs = count[st][B] + (i >= 0 && w >= 0 ? count[st][I] : 0);
    if (f < 0 || runs <= 0) return std::nullopt;
    const double whole = (sum[st][B] + (i >= 0 && w >= 0 ? sum[st][I] + sum[st][W] : 0)) / runs;
    const double input_share = i >= 0 && w >= 0 && i + w > 0 ? i / (i + w) : 1.0;
    lone[st] = {f, whole * input_share, whole * (1 - input_share), runs};
  }
  // The pairs' shares, added to the lone runs: a pair of mean duration d over lone costs
  // f_a + (i_b + w_b) = e gives stage a's F f_a · d / e and stage b's I and W likewise.
  // Per stage: the pairs' F, I and W time, and how many pairs gave its F and its backward.
  std::vector<std::array<double, 3>> extra(S, {0, 0, 0});
  std::vector<std::array<double, 2>> paired(S, {0, 0});
  for (const auto& [stages, p] : pairs) {
    if (p[1] <= 0) continue;
    const auto [a, b] = stages;
    const double e = lone[a].f + lone[b].i + lone[b].w;
    if (e <= 0) continue;
    const double k = p[0] / p[1] / e;
    extra[a][0] += p[1] * k * lone[a].f, paired[a][0] += p[1];
    extra[b][1] += p[1] * k * lone[b].i, extra[b][2] += p[1] * k * lone[b].w;
    paired[b][1] += p[1];
  }
  StageCosts c;
  auto blend = [](double lone_mean, double lone_n, double more, double more_n) {
    return static_cast<TimeNs>(std::llround((lone_mean * lone_n + more) / (lone_n + more_n)));
  };
  for (std::size_t st = 0; st < S; ++st) {
    const Lone& l = lone[st];
    c.forward.push_back(blend(l.f, count[st][F], extra[st][0], paired[st][0]));
    c.backward_input.push_back(blend(l.i, l.backwards, extra[st][1], paired[st][1]));
    c.backward_weight.push_back(blend(l.w, l.backwards, extra[st][2], paired[st][1]));
  }
  c.p2p.assign(S > 0 ? S - 1 : 0, 0);
  return c;
}

StepReport make_report(const Timeline& tl) {
  const Scenario& sc = tl.scenario;
  const TaskGraph& g = *tl.graph;
  StepReport r;
  r.scenario = sc.source.empty() ? sc.name : sc.source;
  r.scenario_name = sc.name;
  r.model = sc.model;
  // (A whole model swapped for a preset names itself: only keys under it.)
  r.model_edits = sc.command_line_edits("model.");
  r.schedule = tl.schedule.name;
  r.gpus = sc.layout.world();
  r.dp = sc.layout.dp;
  r.tp = sc.layout.tp;
  r.pp = sc.layout.pp;
  r.vpp = sc.layout.vpp;
  r.ep = sc.layout.ep;
  r.etp = sc.model && sc.model->is_moe() ? sc.layout.expert_tp() : sc.layout.tp;
  r.cp = sc.layout.cp;
  // The key's own value name (the schema's choices), as a scenario file writes it.
  if (const SchemaKey* k = find_key("parallelism.cp_comm"))
    if (auto v = show_value(*k, sc)) r.cp_comm = *v;
  r.split = sc.layout.split;
  if (sc.model && sc.layout.split.layers.empty()) {
    std::vector<int> layers;
    for (const StageContent& part :
         partition_model(*sc.model, sc.layout.pp * sc.layout.vpp, sc.layout.split))
      layers.push_back(part.layers - part.mtp);  // the model's own: they sum to model.layers
    if (std::adjacent_find(layers.begin(), layers.end(), std::not_equal_to<>()) != layers.end())
      r.uneven_layers = std::move(layers);
  }
  r.zero = sc.layout.zero;
  r.grad_reduce_with_backward = sc.layout.grad_reduce_with_backward;
  if (const SchemaKey* k = find_key("parallelism.grad_nan_check"))
    if (auto v = show_value(*k, sc)) r.grad_nan_check = *v;
  if (const SchemaKey* k = find_key("parallelism.grad_buckets"))
    if (auto v = show_value(*k, sc)) r.grad_buckets = *v;
  r.zero1_all_reduce = sc.layout.zero1_all_reduce;
  r.sequence_parallel = sc.layout.sequence_parallel;
  r.tp_overlap = sc.layout.tp_overlap;
  r.tp_async_allreduce = sc.layout.tp_async_allreduce;
  r.fsdp = sc.layout.fsdp;
  r.microbatches = sc.microbatches();
  if (sc.has_cluster) r.gpu = sc.cluster.gpu.name;
  if (sc.model) r.training = sc.training;
  if (sc.has_cluster) r.cluster = sc.cluster;
  r.step_time_s = to_seconds(tl.makespan);
  r.tasks = g.size();
  r.simulated_ranks = static_cast<int>(tl.ranks.ranks.size());
  r.folded = tl.ranks.folded;

  // Per pipeline stage: the representative simulated rank (stage_representatives).
  const int pp = sc.layout.pp;
  const std::vector<int> representative = stage_representatives(tl);
  auto representing = [&](StreamId stream) {
    return represents(representative, tl, g.streams[stream].owner);
  };
  std::vector<TimeNs> busy(static_cast<std::size_t>(pp), 0), opt(busy.size(), 0);
  std::vector<TimeNs> first(busy.size(), std::numeric_limits<TimeNs>::max()), last(busy.size(), 0);
  // Every task of the stage's representative GPU (gathers, reductions, optimizer included).
  std::vector<TimeNs> rank_first(first), rank_last(last);
  std::vector<TimeNs> launch(busy.size(), 0), launch_wait(busy.size(), 0),
      launch_wait_pipe(busy.size(), 0);
  // Intervals per stage (representative GPU) of compute and of each communication kind.
  using Intervals = std::vector<Interval>;
  std::vector<Intervals> compute_iv(static_cast<std::size_t>(pp)), tp_iv(compute_iv.size()),
      dp_iv(compute_iv.size()), pp_iv(compute_iv.size()), gather_iv(compute_iv.size()),
      ep_iv(compute_iv.size()), cp_iv(compute_iv.size()), host_iv(compute_iv.size());
  std::vector<CommVolume> vol(compute_iv.size());
  for (TaskId t = 0; t < g.size(); ++t) {
    const Work& w = g.work(t);
    const auto type = static_cast<TaskType>(w.type);
    const SimRank& rank = tl.ranks.ranks[g.streams[g.tasks[t].stream].owner];
    const bool rep = representing(g.tasks[t].stream);
    if (rep && tl.end[t] > tl.start[t]) {
      const auto s = static_cast<std::size_t>(rank.coord.pp);
      const std::pair<TimeNs, TimeNs> iv{tl.start[t], tl.end[t]};
      if (is_compute(type)) compute_iv[s].push_back(iv);
      if (type == TaskType::TpCollective) tp_iv[s].push_back(iv), vol[s].tp_bytes += w.bytes;
      if (type == TaskType::EpCollective) ep_iv[s].push_back(iv), vol[s].ep_bytes += w.bytes;
      if (type == TaskType::CpCollective) cp_iv[s].push_back(iv), vol[s].cp_bytes += w.bytes;
      if (type == TaskType::ActivationOffload || type == TaskType::ActivationReload)
        host_iv[s].push_back(iv), vol[s].host_bytes += w.bytes;
      if (type == TaskType::DpCollective) dp_iv[s].push_back(iv), vol[s].dp_bytes += w.bytes;
      if (type == TaskType::ParamGather) gather_iv[s].push_back(iv), vol[s].dp_bytes += w.bytes;
      if (is_p2p(type)) pp_iv[s].push_back(iv);
      if (type == TaskType::SendActivation || type == TaskType::SendGradient)
        vol[s].pp_bytes += w.bytes;
    }
    if (is_pipeline_compute(type)) r.model_flops += w.flops * rank.multiplicity;
    if (type == TaskType::SendActivation || type == TaskType::SendGradient)
      r.p2p_bytes += w.bytes * rank.multiplicity;
    if (!rep) continue;
    const auto s = static_cast<std::size_t>(rank.coord.pp);
    if (type == TaskType::Launch) {  // the CPU's, not the GPU's (below)
      launch[s] += tl.end[t] - tl.start[t];
      continue;
    }
    rank_first[s] = std::min(rank_first[s], tl.start[t]);
    rank_last[s] = std::max(rank_last[s], tl.end[t]);
    if (is_pipeline_compute(type)) {
      busy[s] += tl.end[t] - tl.start[t];
      first[s] = std::min(first[s], tl.start[t]);
      last[s] = std::max(last[s], tl.end[t]);
    } else if (type == TaskType::Optimizer || type == TaskType::HostOptimizer ||
               type == TaskType::HostTransfer) {  // ZeRO-Offload's step: down, CPU, up
      opt[s] += tl.end[t] - tl.start[t];
    }
  }
  const auto events = activation_events(tl);
  const TimeNs begin = *std::min_element(first.begin(), first.end());
  const TimeNs finish = *std::max_element(last.begin(), last.end());
  TimeNs pipeline = finish - begin;
  // Waiting for the CPU: a compute task whose kernels' issue (its launch predecessors) ended
  // after everything else it waits for (its other predecessors, the task before it on its
  // stream) waited that much longer. Counted from the first forward on (what a trace of the
  // step shows), and apart within the pipeline phase (the idle split below).
  if (std::any_of(launch.begin(), launch.end(), [](TimeNs x) { return x > 0; })) {
    std::vector<TimeNs> ready(g.size(), 0), issued(g.size(), -1);
    for (TaskId u = 0; u < g.size(); ++u) {
      const bool cpu = static_cast<TaskType>(g.work(u).type) == TaskType::Launch;
      for (auto v : g.successors(u)) {
        TimeNs& x = cpu ? issued[v] : ready[v];
        x = std::max(x, tl.end[u]);
      }
    }
    for (StreamId st = 0; st < g.streams.size(); ++st) {
      const auto order = g.stream(st);
      for (std::size_t i = 1; i < order.size(); ++i)
        ready[order[i]] = std::max(ready[order[i]], tl.end[order[i - 1]]);
    }
    auto overlap = [](TimeNs a0, TimeNs a1, TimeNs b0, TimeNs b1) {
      return std::max<TimeNs>(0, std::min(a1, b1) - std::max(a0, b0));
    };
    for (TaskId t = 0; t < g.size(); ++t) {
      if (issued[t] <= ready[t] || !is_compute(static_cast<TaskType>(g.work(t).type))) continue;
      if (!representing(g.tasks[t].stream)) continue;
      const SimRank& rank = tl.ranks.ranks[g.streams[g.tasks[t].stream].owner];
      const auto s = static_cast<std::size_t>(rank.coord.pp);
      launch_wait[s] += overlap(ready[t], issued[t], begin, tl.makespan);
      launch_wait_pipe[s] += overlap(ready[t], issued[t], begin, finish);
    }
  }
  r.one_step_s = r.step_time_s;
  r.overlapped_steps = sc.training.optimizer_post_validation;
  if (r.overlapped_steps) {
    // Steps overlap: each stage repeats with the period of the longest stage span, so that is
    // the step time, and the pipeline phase is the longest span of pipeline compute.
    TimeNs period = 0, compute_span = 0;
    for (std::size_t s = 0; s < first.size(); ++s) {
      if (rank_first[s] <= rank_last[s]) period = std::max(period, rank_last[s] - rank_first[s]);
      period = std::max(period, launch[s]);  // its CPU issues a step's kernels in each period
      if (first[s] <= last[s]) compute_span = std::max(compute_span, last[s] - first[s]);
    }
    pipeline = compute_span;
    r.step_time_s = to_seconds(period);
    r.after_pipeline_s = std::max(0.0, to_seconds(period - compute_span));
  } else {
    r.after_pipeline_s = to_seconds(tl.makespan - finish);
    r.before_pipeline_s = to_seconds(begin);
  }
  r.pipeline_time_s = to_seconds(pipeline);
  double idle_sum = 0, busy_sum = 0;
  for (int s = 0; s < pp; ++s) {
    const auto i = static_cast<std::size_t>(s);
    StageStats st;
    st.stage = s;
    st.compute_busy_s = to_seconds(busy[i]);
    st.first_compute_start_s = to_seconds(first[i]);
    st.last_compute_end_s = to_seconds(last[i]);
    st.idle_s = to_seconds(pipeline - busy[i]);
    st.optimizer_s = to_seconds(opt[i]);
    double held = 0, held_bytes = 0;
    for (const ActivationEvent& e : events[i]) {
      st.peak_in_flight = std::max(st.peak_in_flight, held += e.microbatches);
      held_bytes += e.bytes;
      st.peak_activation_bytes = std::max(st.peak_activation_bytes, held_bytes + e.transient);
    }
    // Exposed: not under compute, and each moment counted once, for the first kind in the
    // order those on or gating the compute stream (TP, CP, EP), then pipeline sends, ZeRO
    // gathers, the data-parallel reduction, host copies; so the kinds add up to the stage's
    // communication time outside compute.
    std::vector<Interval> cover = compute_iv[i];
    auto expose = [&](const std::vector<Interval>& kind) {
      const double s = to_seconds(uncovered(kind, cover));
      cover.insert(cover.end(), kind.begin(), kind.end());
      return s;
    };
    st.exposed_tp_s = expose(tp_iv[i]);
    st.exposed_cp_s = expose(cp_iv[i]);
    st.exposed_ep_s = expose(ep_iv[i]);
    st.exposed_pp_s = expose(pp_iv[i]);
    st.exposed_gather_s = expose(gather_iv[i]);
    st.exposed_dp_s = expose(dp_iv[i]);
    st.exposed_host_s = expose(host_iv[i]);
    st.comm_ep_s = to_seconds(union_length(ep_iv[i]));
    st.comm_cp_s = to_seconds(union_length(cp_iv[i]));
    st.comm_host_s = to_seconds(union_length(host_iv[i]));
    st.comm_tp_s = to_seconds(union_length(tp_iv[i]));
    st.comm_dp_s = to_seconds(union_length(dp_iv[i]));
    st.comm_pp_s = to_seconds(union_length(pp_iv[i]));
    st.comm_gather_s = to_seconds(union_length(gather_iv[i]));
    st.launch_s = to_seconds(launch[i]);
    st.launch_wait_s = to_seconds(launch_wait[i]);
    if (i < tl.kernels_per_rank.size()) st.kernels = tl.kernels_per_rank[i];
    r.idle.launch_s += to_seconds(launch_wait_pipe[i]) / pp;
    r.volume.tp_bytes = std::max(r.volume.tp_bytes, vol[i].tp_bytes);
    r.volume.dp_bytes = std::max(r.volume.dp_bytes, vol[i].dp_bytes);
    r.volume.pp_bytes = std::max(r.volume.pp_bytes, vol[i].pp_bytes);
    r.volume.ep_bytes = std::max(r.volume.ep_bytes, vol[i].ep_bytes);
    r.volume.cp_bytes = std::max(r.volume.cp_bytes, vol[i].cp_bytes);
    r.volume.host_bytes = std::max(r.volume.host_bytes, vol[i].host_bytes);
    idle_sum += st.idle_s;
    busy_sum += st.compute_busy_s;
    r.stages.push_back(st);
  }
  // Idle by cause (see step_report.h): the schedule replayed on the simulated stage costs.
  const double mean_busy = busy_sum / pp;
  r.idle.total_s = idle_sum / pp;
  const auto costs = simulated_stage_costs(tl);
  if (costs && pipeline > 0) {
    const auto replay = r.overlapped_steps ? estimate_period : estimate_makespan;
    const double m_u = to_seconds(replay(tl.schedule, balanced(*costs)));
    const double m_a = to_seconds(replay(tl.schedule, *costs));
    // The replay's costs are each stage's mean task time in whole nanoseconds, under 1 ns off
    // per action: a bubble within that of none is none (a pp-1 step had shown "7 ns").
    std::size_t actions = 0;
    for (const auto& rank : tl.schedule.actions) actions += rank.size();
    const double bubble = m_u - mean_busy;
    r.idle.pipeline_bubble_s =
        bubble <= 1e-9 * static_cast<double>(actions) ? 0.0 : std::min(bubble, r.idle.total_s);
    r.idle.imbalance_s = std::clamp(m_a - m_u, 0.0, r.idle.total_s - r.idle.pipeline_bubble_s);
    // Within the pipeline phase the compute stream's waits for the CPU are idle time; what the
    // bubble and imbalance already explain is not counted twice.
    r.idle.launch_s =
        std::min(r.idle.launch_s, r.idle.total_s - r.idle.pipeline_bubble_s - r.idle.imbalance_s);
    r.idle.communication_s = std::max(
        0.0, r.idle.total_s - r.idle.pipeline_bubble_s - r.idle.imbalance_s - r.idle.launch_s);
    if (m_u > 0) r.bubble_fraction_of_step = r.idle.pipeline_bubble_s / m_u;
    if (mean_busy > 0) r.bubble_over_ideal = r.idle.pipeline_bubble_s / mean_busy;
  } else {
    // No costs to replay (a stage ran no lone F or backward to apportion by): all idle is
    // reported as bubble, as measured.
    r.idle.pipeline_bubble_s = r.idle.total_s;
    r.idle.launch_s = 0;
    if (pipeline > 0) r.bubble_fraction_of_step = idle_sum / pp / r.pipeline_time_s;
    if (busy_sum > 0) r.bubble_over_ideal = idle_sum / busy_sum;
  }

  if (sc.model) r.tokens_per_step = sc.tokens_per_step();
  if (r.step_time_s > 0) {
    r.tokens_per_s = r.tokens_per_step / r.step_time_s;
    r.tflops_per_gpu = r.model_flops / r.step_time_s / r.gpus / 1e12;
    if (sc.has_cluster) r.mfu = r.tflops_per_gpu * 1e12 / sc.cluster.gpu.peak_flops;
  }
  r.critical = critical_path(tl);
  r.cost_sources = tl.cost_sources;
  // The CPU's time per kernel and per collective, where the step simulates its CPU at all.
  if (std::any_of(launch.begin(), launch.end(), [](TimeNs x) { return x > 0; })) {
    r.host_per_kernel_s = host_per_kernel_seconds(sc);
    r.host_per_collective_s = host_per_collective_seconds(sc);
    r.eager_host_per_kernel_s = eager_host_per_kernel_seconds(sc);
  } else {
    for (const StageStats& st : r.stages)
      if (st.kernels > 0 && st.compute_busy_s > 0 &&
          (r.cpu_headroom_s == 0 || st.compute_busy_s / st.kernels < r.cpu_headroom_s)) {
        r.cpu_headroom_s = st.compute_busy_s / st.kernels;
        r.cpu_headroom_stage = st.stage;
      }
    if (r.cpu_headroom_s > 0) r.eager_host_per_kernel_s = eager_host_per_kernel_seconds(sc);
  }
  r.contention = tl.contention;
  r.compute_pace = tl.compute_pace;
  // TP groups placed across nodes (a report line: their collectives cross the network).
  if (sc.has_cluster && sc.layout.tp > 1) {
    r.gpus_per_node = sc.cluster.gpus_per_node;
    for (int q = 0; q < sc.layout.pp; ++q)
      for (int d = 0; d < sc.layout.dp_ranks(); ++d) {
        ++r.tp_groups;
        if (group_link(group_members(sc.layout, {d, 0, q}, Axis::TP), sc) == LinkClass::InterNode)
          ++r.tp_groups_across_nodes;
      }
  }
  if (sc.has_cluster) r.gpu_speed_spread = gpu_speed_spread(sc);
  r.price_per_gpu_hour = sc.price_per_gpu_hour;
  r.measured = sc.measured;
  if (sc.price_per_gpu_hour && r.tokens_per_step > 0)
    r.cost_per_million_tokens =
        *sc.price_per_gpu_hour * r.gpus * (r.step_time_s / 3600.0) / r.tokens_per_step * 1e6;
  return r;
}

}  // namespace trainsim
