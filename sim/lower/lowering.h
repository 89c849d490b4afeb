#pragma once
// Lowering: schedule action lists -> task graph, as a chain of small passes (program.h):
// compute, p2p, tensor-parallel collectives, data-parallel reduction + optimizer. The graph is
// built last and checked for waiting cycles.
#include <string>  // std::string

#include "cost/cost_model.h"
#include "graph/task_graph.h"
#include "lower/ranks.h"
#include "scenario/scenario.h"
#include "schedules/schedule.h"

namespace trainsim {

struct Lowered {
  TaskGraph graph;
  RankSet ranks;
  std::string contention;  ///< what slows overlapping work, for the report ("" when nothing)
};

/// Throws InputError for layouts the passes cannot model.
Lowered lower(const Scenario& sc, const Schedule& sch, const CostModel& cost, bool fold);

}  // namespace trainsim
