#include "run/simulate.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "cost/explicit_costs.h"
#include "engine/engine.h"
#include "graph/cycle.h"
#include "lower/lowering.h"
#include "lower/ranks.h"
#include "lower/task_types.h"
#include "schedules/csv.h"
#include "schedules/registry.h"
#include "schedules/validate.h"

namespace trainsim {
namespace {

std::string describe(const TaskGraph& g, const RankSet& ranks, TaskId t) {
  const Task& task = g.tasks[t];
  const Work& w = g.works[task.work];
  const StreamInfo& s = g.streams[task.stream];
  return fmt::format("rank {} {} {}{} (stage {}, micro-batch {})", ranks.ranks[s.owner].global,
                     stream_type_name(static_cast<StreamType>(s.type)),
                     task_type_letter(static_cast<TaskType>(w.type)),
                     task.microbatch >= 0 ? std::to_string(task.microbatch) : "", w.stage,
                     task.microbatch);
}

}  // namespace

namespace {

// `schedule: {csv: path}`: load, check it matches the scenario's layout, validate.
Schedule csv_schedule(const Scenario& sc) {
  // A file that cannot be read is the `schedule.csv` key's error (its rows' errors name the
  // file's own lines).
  Schedule s = [&sc] {
    try {
      return load_schedule_csv(sc.schedule.csv);
    } catch (const ScheduleError&) {
      throw;
    } catch (const InputError& e) {
      throw ScenarioError(sc.where("schedule.csv"), "schedule.csv", e.what());
    }
  }();
  const Layout& l = sc.layout;
  if (s.ranks != l.pp || s.stages != l.pp * l.vpp || s.microbatches != sc.microbatches())
    throw ScheduleError(fmt::format(
        "{} has {} ranks, {} stages and {} micro-batches; the scenario has pp = {}, pp × vpp = {} "
        "stages and m = {} micro-batches",
        sc.schedule.csv, s.ranks, s.stages, s.microbatches, l.pp, l.pp * l.vpp, sc.microbatches()));
  validate_schedule(s);
  return s;
}

}  // namespace

StageCosts stage_costs(const Scenario& sc, const CostModel& cost,
                       const std::vector<int>& stage_rank) {
  // Per stage, on the first pipeline's ranks (tp = dp = 0): compute and transfer times. The
  // split backward may be unknown (explicit costs with a fused backward only): left empty.
  const Layout& l = sc.layout;
  const int stages = l.pp * l.vpp;
  StageCosts c;
  bool split = true;
  TRAINSIM_CHECK(static_cast<int>(stage_rank.size()) == stages, "a rank for every stage");
  for (int st = 0; st < stages; ++st) {
    const int rank = stage_rank[static_cast<std::size_t>(st)];
    c.forward.push_back(cost.compute(Op::F, st, rank).duration);
    if (split) try {
        c.backward_input.push_back(cost.compute(Op::I, st, rank).duration);
        c.backward_weight.push_back(cost.compute(Op::W, st, rank).duration);
      } catch (const InputError&) {
        split = false;
      }
  }
  if (!split) c.backward_input.clear(), c.backward_weight.clear();
  const double bytes = cost.activation_bytes();
  for (int st = 0; st + 1 < stages; ++st) {
    Coord a{}, b{};
    a.pp = stage_rank[static_cast<std::size_t>(st)];
    b.pp = stage_rank[static_cast<std::size_t>(st + 1)];
    c.p2p.push_back(cost.p2p(group_link({l.rank_of(a), l.rank_of(b)}, sc), bytes).duration);
  }
  return c;
}

Schedule schedule_for(const Scenario& sc, const std::string& name, const CostModel* cost) {
  const std::string n = name.empty() ? sc.schedule.name : name;
  ScheduleParams params{sc.layout.pp, sc.microbatches(), sc.layout.vpp, {}, {}};
  if (name.empty() || name == sc.schedule.name) params.options = sc.schedule.options;
  params.overlapped_steps = sc.training.optimizer_post_validation;
  const ScheduleEntry* entry = nullptr;  // null: a CSV schedule, or a name not registered
  try {
    if ((name.empty() || name == sc.schedule.name) && !sc.schedule.csv.empty())
      return csv_schedule(sc);
    entry = &find_schedule(n);
    if (cost && entry->uses_costs)
      params.costs = stage_costs(sc, *cost, entry->stage_ranks(sc.layout.pp, sc.layout.vpp));
    return make_schedule(n, params);
  } catch (const ScheduleError& e) {
    // A schedule that does not take the scenario's chunks per rank: name the key that sets them.
    std::string detail = e.detail();
    if (entry && !entry->accepts_chunks(sc.layout.vpp))
      detail += fmt::format(
          " (parallelism.vpp sets the chunks per rank: --set parallelism.vpp={} "
          "runs {})",
          entry->nearest_chunks(sc.layout.vpp), n);
    if (!name.empty() && name != sc.schedule.name)  // chosen on the command line
      throw ScheduleError(fmt::format("--schedule {}: {}", name, detail));
    // At the option's own line (or --set) when the error is about one, else at `schedule`.
    const std::string option = e.option().empty() ? "" : "schedule." + e.option();
    const std::string where = !option.empty() && sc.origins.count(option) ? sc.origins.at(option)
                              : !sc.schedule.origin.empty()               ? sc.schedule.origin
                              : sc.source.empty()                         ? "scenario"
                                                                          : sc.source;
    throw ScheduleError(
        fmt::format("{}: {}: {}", where, option.empty() ? "schedule" : option, detail), e.option());
  }
}

namespace {
// The kernels each pipeline rank's GPU runs in a step: CostModel::host_launch's count for each
// of its actions, asked once per (op, model stage). Empty when the model times no kernels.
std::vector<double> kernels_per_rank(const Schedule& s, const CostModel& cost) {
  std::map<std::pair<int, int>, double> asked;
  std::vector<double> kernels;
  bool any = false;
  for (const std::vector<Action>& list : s.actions) {
    double sum = 0;
    for (const Action& a : list) {
      const std::pair<int, int> key{static_cast<int>(a.op), s.model_stage(a.stage)};
      auto it = asked.find(key);
      if (it == asked.end())
        it = asked.emplace(key, cost.host_launch(a.op, key.second).kernels).first;
      sum += it->second;
    }
    any = any || sum > 0;
    kernels.push_back(sum);
  }
  return any ? kernels : std::vector<double>{};
}

// Throws Cancelled when another thread raised `opt.cancel`.
void check_cancel(const SimulateOptions& opt) {
  if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

// Tells SimulateOptions::progress the finished tasks' share, every 1/200 of them.
class ProgressObserver : public EngineObserver {
 public:
  ProgressObserver(const SimulateOptions& opt, std::size_t tasks)
      : opt_(opt), tasks_(tasks), every_(std::max<std::size_t>(1, (tasks + 199) / 200)) {}
  void on_start(TaskId, TimeNs) override {}
  void on_end(TaskId, TimeNs) override {
    if (++done_ % every_ == 0)
      opt_.progress("simulating", static_cast<double>(done_) / static_cast<double>(tasks_));
  }

 private:
  const SimulateOptions& opt_;
  std::size_t tasks_, every_, done_ = 0;
};
}  // namespace

Timeline simulate(const Scenario& sc, const SimulateOptions& opt) {
  check_cancel(opt);
  const auto cost = make_cost_model(sc);
  Schedule schedule = schedule_for(sc, opt.schedule, cost.get());
  return simulate(sc, std::move(schedule), *cost, opt);
}

Timeline simulate(const Scenario& sc, Schedule schedule, const CostModel& cost,
                  const SimulateOptions& opt) {
  Timeline tl;
  tl.scenario = sc;
  tl.schedule = std::move(schedule);
  check_cancel(opt);
  if (opt.progress) opt.progress("building the task graph", 0);
  Lowered lowered = lower(sc, tl.schedule, cost, opt.fold);
  check_cancel(opt);
  tl.cost_sources = cost.sources();
  tl.contention = lowered.contention;
  tl.compute_pace = cost.compute_pace();
  tl.kernels_per_rank = kernels_per_rank(tl.schedule, cost);
  auto graph = std::make_shared<TaskGraph>(std::move(lowered.graph));
  tl.ranks = std::move(lowered.ranks);
  Engine engine(*graph);
  TimelineRecorder rec(graph->size());
  engine.subscribe(&rec);
  std::optional<ProgressObserver> progress;
  if (opt.progress) {
    opt.progress("simulating", 0);
    engine.subscribe(&progress.emplace(opt, graph->size()));
  }
  engine.set_stop_flag(opt.cancel);
  const EngineResult r = engine.run();
  if (r.stopped) throw Cancelled();
  if (!r.complete()) {
    const auto cycle = find_wait_cycle(*graph);
    std::string msg = fmt::format("{} with schedule {} cannot finish: ", sc.name, tl.schedule.name);
    if (!cycle.empty()) {
      msg += fmt::format("these {} tasks wait on each other in a cycle:\n", cycle.size());
      // A long cycle is shown by its first and last links (a message a person can read).
      constexpr std::size_t kShown = 8;
      for (std::size_t i = 0; i < cycle.size(); ++i) {
        if (cycle.size() > 2 * kShown && i == kShown) {
          msg += fmt::format("  … {} more tasks …\n    waits for\n", cycle.size() - 2 * kShown);
          i = cycle.size() - kShown;
        }
        msg += "  " + describe(*graph, tl.ranks, cycle[i]) + "\n    waits for\n";
      }
      msg += "  " + describe(*graph, tl.ranks, cycle.front());
      throw DeadlockError(msg);
    }
    // No cycle but stuck: our bug, with the blocked streams for the report.
    for (const auto& b : r.blocked) msg += "\n  blocked: " + describe(*graph, tl.ranks, b.task);
    TRAINSIM_CHECK(false, msg);
  }
  tl.graph = std::move(graph);
  tl.start = std::move(rec.start());
  tl.end = std::move(rec.end());
  tl.makespan = r.makespan;
  return tl;
}

}  // namespace trainsim
