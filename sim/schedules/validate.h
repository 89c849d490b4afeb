#pragma once
// Checks a schedule before anything simulates it (validate at every boundary): every action is on
// the rank that owns its stage, every (stage, micro-batch) runs F once and its backward once (B, or
// I and W), and the ranks can make progress together. Failures draw the step × rank grid with the
// offending action marked.
#include <string>  // std::string
#include <vector>  // std::vector

#include "schedules/schedule.h"

namespace trainsim {

/// Unit-time execution of a schedule: every action takes one step and starts as soon as its
/// data dependencies (F after the previous stage's F, backward after the next stage's backward
/// and its own F, W after I) and its rank's previous action are done. steps[r][i] is the step of
/// rank r's i-th action, or -1 if it never ran (a deadlock).
struct UnitRun {
  std::vector<std::vector<int>> steps;
  int makespan = 0;
  bool complete = true;
};
UnitRun run_unit_steps(const Schedule& s);

/// Text grid: one row per rank, one column per unit step, `.` for idle (the Playbook's figures).
/// `mark_rank`/`mark_index` (if >= 0) highlight one action as `>2F0<`.
std::string format_grid(const Schedule& s, const UnitRun& run, int mark_rank = -1,
                        int mark_index = -1);

/// The most (stage, micro-batch) pairs a schedule may have: 2^22, i.e. about 10 million
/// actions and a task graph of a few GB. Bigger pipelines are past what a step simulation of
/// every micro-batch can answer in reasonable time and memory.
inline constexpr long long kMaxScheduleCells = 1LL << 22;
/// Throws ScheduleError naming `name` when stages × microbatches is past kMaxScheduleCells.
void check_schedule_size(const std::string& name, long long stages, long long microbatches);

/// Throws ScheduleError with the grid if `s` is malformed or deadlocks (or is too large).
void validate_schedule(const Schedule& s);

}  // namespace trainsim
