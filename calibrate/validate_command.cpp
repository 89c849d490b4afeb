// `trainsim-calibrate validate`: the kernels of one pipeline stage, run for real on one GPU for
// the scenario's micro-batches in schedule order, timed, and set beside trainsim's prediction
// from the same profile.
//
// What runs: for each compute task of the chosen stage's rank (in the simulated order), the
// kernels the cost model sums for it (AnalyticCostModel::kernels): GEMMs with cuBLASLt (the
// fastest algorithm, as `gemm` measures), memory-bound kernels as copies moving the same
// bytes, and the attention core as a stand-in of dense GEMMs with its FLOPs (QKᵀ and PV with
// the heads stacked along m and the causal half skipped; not FlashAttention itself). What is
// compared: the sum of the stage's compute durations trainsim predicts (before any slowdown
// from overlapping communication, which one GPU cannot reproduce) against the measured time
// from the first task's start to the last one's end on the GPU.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "cost/analytic.h"
#include "cost/constants.h"
#include "device_info.h"
#include "gemm_bench.h"
#include "gemm_plan.h"
#include "lower/task_types.h"
#include "progress.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"

namespace trainsim {
namespace {

using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

// The GEMMs that stand for one attention kernel run: QKᵀ {heads·s, s/2, d} and PV
// {heads·s, d, s/2} (forward; the backward's twice the FLOPs run them twice).
std::vector<Shape> attention_gemms(const Kernel& k) {
  const auto rows = std::llround(k.batch * k.gemm.m);
  const auto half = std::max<std::int64_t>(1, std::llround(k.gemm.n * constants::kCausalFraction));
  const auto d = std::llround(k.gemm.k);
  std::vector<Shape> g{{rows, half, d}, {rows, d, half}};
  const double fwd = 2.0 * 2.0 * static_cast<double>(rows) * static_cast<double>(half) * d;
  if (k.flops > 1.5 * fwd) g.insert(g.end(), {{rows, half, d}, {rows, d, half}});
  return g;
}

struct Replay {
  TaskType type;
  int stage, stage2, microbatch;
  double predicted = 0;  // seconds, the task's pieces summed
};

}  // namespace

int cmd_validate(const ValidateArgs& a) {
  std::vector<std::string> overrides = a.overrides;
  overrides.push_back("calibration=" + std::filesystem::absolute(a.profile).string());
  Scenario s = load_scenario(a.scenario, overrides);
  if (!s.model || !s.has_cluster || s.costs)
    throw InputError(fmt::format(
        "{}: validate needs a scenario with a model and a cluster and no explicit `costs:` "
        "(it runs the kernels the cost model times)",
        a.scenario));
  if (a.stage < 0 || a.stage >= s.layout.pp)
    throw InputError(
        fmt::format("--stage {}: expected 0 to {} (parallelism.pp)", a.stage, s.layout.pp - 1));
  const int count = gpu::require_devices();
  if (a.device < 0 || a.device >= count)
    throw InputError(
        fmt::format("--device {}: this machine has GPUs 0 to {}", a.device, count - 1));

  // trainsim's prediction, from the same profile.
  const Timeline tl = simulate(s);
  const TaskGraph& g = *tl.graph;
  int rank = -1;
  for (std::size_t r = 0; r < tl.ranks.ranks.size(); ++r)
    if (tl.ranks.ranks[r].coord.pp == a.stage && tl.ranks.replica(tl.ranks.ranks[r]) == 0) {
      rank = static_cast<int>(r);
      break;
    }
  TRAINSIM_CHECK(rank >= 0, "every stage has a simulated rank in replica 0");
  std::vector<Replay> tasks;
  for (StreamId sid = 0; sid < g.streams.size(); ++sid) {
    const StreamInfo& info = g.streams[sid];
    if (static_cast<int>(info.owner) != rank ||
        static_cast<StreamType>(info.type) != StreamType::Compute)
      continue;
    for (TaskId t : g.stream(sid)) {
      const Work& w = g.work(t);
      const auto type = static_cast<TaskType>(w.type);
      if (!is_pipeline_compute(type)) continue;
      // A divided task's pieces follow each other on the stream: one replay, their sum.
      if (w.part == 0 || tasks.empty())
        tasks.push_back({type, w.stage, w.stage2, g.tasks[t].microbatch, 0.0});
      tasks.back().predicted += to_seconds(w.duration);
    }
  }

  // The kernels of each task, from the model the prediction used.
  const AnalyticCostModel model(s);
  auto kernels_of = [&](const Replay& r) {
    std::vector<Kernel> k;
    auto add = [&](Op op, int stage) {
      auto more = model.kernels(op, stage);
      k.insert(k.end(), more.begin(), more.end());
    };
    switch (r.type) {
      case TaskType::Forward:
        add(Op::F, r.stage);
        break;
      case TaskType::Backward:
        add(Op::B, r.stage);
        break;
      case TaskType::BackwardInput:
        add(Op::I, r.stage);
        break;
      case TaskType::BackwardWeight:
        add(Op::W, r.stage);
        break;
      case TaskType::ForwardBackward:
        add(Op::F, r.stage);
        add(Op::B, r.stage2);
        break;
      default:
        break;
    }
    return k;
  };
  // Pools for every GEMM the replay runs; the fastest algorithm of each shape chosen first.
  std::vector<PlannedGemm> shapes;
  std::set<Shape> seen;
  double max_copy = 0;
  auto add_shape = [&](const Shape& sh) {
    if (seen.insert(sh).second)
      shapes.push_back({std::get<0>(sh), std::get<1>(sh), std::get<2>(sh), "", true});
  };
  for (const Replay& r : tasks)
    for (const Kernel& k : kernels_of(r)) {
      if (k.kind == Kernel::Kind::Gemm)
        add_shape({std::llround(k.gemm.m), std::llround(k.gemm.n), std::llround(k.gemm.k)});
      if (k.kind == Kernel::Kind::Attention)
        for (const Shape& sh : attention_gemms(k)) add_shape(sh);
      if (k.kind == Kernel::Kind::Memory) max_copy = std::max(max_copy, k.bytes);
    }
  GemmBench bench(a.device, gemm_dtype(s) == "fp16", operand_pools(shapes, max_copy));
  std::cerr << fmt::format(
      "validate: {} tasks of stage {} on {}; choosing algorithms for {} "
      "GEMM shapes\n",
      tasks.size(), a.stage, provenance_of(a.device).device, shapes.size());
  for (const PlannedGemm& g : shapes) bench.time(g.m, g.n, g.k, 3);

  auto run_task = [&](const Replay& r) {
    const std::vector<Kernel> ks = kernels_of(r);
    // A stage's layers run one after another: replay the layer kernels (count > 1) layer by
    // layer, the others (embedding, head) once, in the model's order.
    std::size_t i = 0;
    while (i < ks.size()) {
      std::size_t j = i + 1;
      while (j < ks.size() && ks[j].count == ks[i].count && ks[i].count > 1) ++j;
      for (int rep = 0; rep < ks[i].count; ++rep)
        for (std::size_t x = i; x < j; ++x) {
          const Kernel& k = ks[x];
          if (k.kind == Kernel::Kind::Gemm)
            bench.run(std::llround(k.gemm.m), std::llround(k.gemm.n), std::llround(k.gemm.k));
          else if (k.kind == Kernel::Kind::Attention)
            for (const auto& [m, n, kk] : attention_gemms(k)) bench.run(m, n, kk);
          else
            bench.copy(k.bytes);
        }
      i = j;
    }
  };
  // Warm-up: the first task once; then every task in order between events.
  if (!tasks.empty()) run_task(tasks.front());
  TRAINSIM_GPU(cudaStreamSynchronize(bench.stream()));
  std::vector<gpu::Event> marks(tasks.size() + 1);
  marks[0].record(bench.stream());
  Progress progress(tasks.size(), stderr);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    progress.step(t, fmt::format("{}{}", task_type_letter(tasks[t].type), tasks[t].microbatch));
    run_task(tasks[t]);
    marks[t + 1].record(bench.stream());
  }
  progress.finish();

  // Per kind of task and in total: measured beside predicted.
  struct Sum {
    int n = 0;
    double measured = 0, predicted = 0;
  };
  std::map<std::string, Sum> by_type;
  Sum total;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const double m = marks[t + 1].since(marks[t]);
    Sum& b = by_type[task_type_letter(tasks[t].type)];
    ++b.n;
    b.measured += m;
    b.predicted += tasks[t].predicted;
    total.predicted += tasks[t].predicted;
  }
  total.n = static_cast<int>(tasks.size());
  total.measured = tasks.empty() ? 0 : marks.back().since(marks.front());
  auto error = [](const Sum& x) { return 100.0 * (x.predicted - x.measured) / x.measured; };
  std::cout << fmt::format("stage {} of {} ({}, {} micro-batches), profile {}\n", a.stage,
                           s.layout.pp, tl.schedule.name, s.microbatches(), a.profile);
  std::cout << fmt::format("  {:<6} {:>5} {:>14} {:>14} {:>8}\n", "task", "count", "measured",
                           "predicted", "error");
  for (const auto& [type, x] : by_type)
    std::cout << fmt::format("  {:<6} {:>5} {:>11.3f} ms {:>11.3f} ms {:>+7.1f}%\n", type, x.n,
                             x.measured / x.n * 1e3, x.predicted / x.n * 1e3, error(x));
  std::cout << fmt::format("  {:<6} {:>5} {:>11.3f} ms {:>11.3f} ms {:>+7.1f}%\n", "total", total.n,
                           total.measured * 1e3, total.predicted * 1e3, error(total));
  std::cout << fmt::format("durations: {}\n", tl.cost_sources);
  return 0;
}

}  // namespace trainsim
