// `trainsim-calibrate validate`: the kernels of one pipeline stage, run for real on one GPU for
// the scenario's micro-batches in schedule order, timed, and set beside trainsim's prediction
// from the same profile (with --gpus N > 1: validate_pipeline.cpp).
//
// What runs: for each compute task of the chosen stage's rank (in the simulated order), the
// kernels the cost model sums for it (replay.h). What is compared: the sum of the stage's
// compute durations trainsim predicts (before any slowdown from overlapping communication,
// which one GPU cannot reproduce) against the measured time from the first task's start to the
// last one's end on the GPU.
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "device_info.h"
#include "gemm_bench.h"
#include "lower/task_types.h"
#include "progress.h"
#include "replay.h"
#include "run/simulate.h"

namespace trainsim {
namespace {

struct Replay {
  TaskType type;
  int stage, stage2, microbatch;
  double predicted = 0;  // seconds, the task's pieces summed
};

std::vector<std::pair<Op, int>> ops_of(const Replay& r) {
  switch (r.type) {
    case TaskType::Forward:
      return {{Op::F, r.stage}};
    case TaskType::Backward:
      return {{Op::B, r.stage}};
    case TaskType::BackwardInput:
      return {{Op::I, r.stage}};
    case TaskType::BackwardWeight:
      return {{Op::W, r.stage}};
    case TaskType::ForwardBackward:
      return {{Op::F, r.stage}, {Op::B, r.stage2}};
    default:
      return {};
  }
}

}  // namespace

int cmd_validate(const ValidateArgs& a) {
  if (a.gpus > 1) return validate_pipeline(a);
  if (a.gpus < 1) throw InputError(fmt::format("--gpus {}: expected at least 1", a.gpus));
  Scenario s = load_validate_scenario(a);
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
      // The cost model knows model stages (DualPipe's second pipeline runs copies).
      if (w.part == 0 || tasks.empty())
        tasks.push_back({type, tl.schedule.model_stage(w.stage),
                         w.stage2 >= 0 ? tl.schedule.model_stage(w.stage2) : -1,
                         g.tasks[t].microbatch, 0.0});
      tasks.back().predicted += to_seconds(w.duration);
    }
  }

  // The kernels of each task, from the model the prediction used; the fastest algorithm of
  // each GEMM shape chosen first.
  const AnalyticCostModel model(s);
  std::vector<std::vector<Kernel>> kernels;
  for (const Replay& r : tasks) kernels.push_back(kernels_of(model, ops_of(r)));
  const ReplayNeeds needs = replay_needs(kernels);
  GemmBench bench(a.device, gemm_dtype(s) == "fp16", needs.pools);
  std::cerr << fmt::format(
      "validate: {} tasks of stage {} on {}; choosing algorithms for {} "
      "GEMM shapes\n",
      tasks.size(), a.stage, provenance_of(a.device).device, needs.shapes.size());
  for (const PlannedGemm& sh : needs.shapes) bench.time(sh.m, sh.n, sh.k, 3);

  auto run_task = [&](std::size_t t) { run_kernels(bench, kernels[t]); };
  // Warm-up: the first task once; then every task in order between events.
  if (!tasks.empty()) run_task(0);
  TRAINSIM_GPU(cudaStreamSynchronize(bench.stream()));
  std::vector<gpu::Event> marks(tasks.size() + 1);
  marks[0].record(bench.stream());
  Progress progress(tasks.size(), stderr);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    progress.step(t, fmt::format("{}{}", task_type_letter(tasks[t].type), tasks[t].microbatch));
    run_task(t);
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
  auto error = [](const Sum& x) { return percent_error(x.predicted, x.measured); };
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
