#pragma once
// One call from a validated Scenario to a Timeline: schedule generator (via the registry) ->
// lowering passes with the cost model -> engine. This is the sim library's front door (the CLI
// and the GUI call it).
#include <atomic>      // std::atomic
#include <functional>  // std::function
#include <string>      // std::string

#include "cost/cost_model.h"
#include "run/timeline.h"
#include "scenario/scenario.h"
#include "schedules/schedule.h"

namespace trainsim {

struct SimulateOptions {
  std::string schedule;  ///< empty: the scenario's schedule
  bool fold = true;      ///< simulate identical TP/DP peers once when exact
  /// Raised by another thread to abandon the run (a newer edit in the GUI): simulate() then
  /// throws Cancelled between phases or within a few thousand engine events.
  const std::atomic<bool>* cancel = nullptr;
  /// Told what simulate() is doing, for a long run's progress line: `phase` ("building the task
  /// graph", then "simulating") and the share of it done, 0 to 1 (the finished tasks' share
  /// while simulating; 0 at a phase's start). Called from the calling thread, at most about
  /// 200 times a run.
  std::function<void(const char* phase, double done)> progress = nullptr;
};

/// The schedule the scenario (or `name`) asks for, generated and validated. A cost-aware
/// schedule (zb-auto) gets its per-stage durations from `cost` (unit costs when null). Throws
/// ScheduleError, naming the scenario's `schedule` key.
Schedule schedule_for(const Scenario& sc, const std::string& name = "",
                      const CostModel* cost = nullptr);

/// Simulates one training step. Throws InputError (ScenarioError, ScheduleError,
/// DeadlockError with the waiting cycle), or Cancelled when `opt.cancel` was raised, and never
/// returns a partial timeline.
Timeline simulate(const Scenario& sc, const SimulateOptions& opt = {});

/// The same with the schedule and cost model already made (`schedule_for(sc, opt.schedule,
/// &cost)`, `make_cost_model(sc)`), for a caller that looks at the schedule first (the layout
/// search checks its memory before simulating).
Timeline simulate(const Scenario& sc, Schedule schedule, const CostModel& cost,
                  const SimulateOptions& opt = {});

}  // namespace trainsim
