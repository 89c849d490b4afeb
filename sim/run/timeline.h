#pragma once
// The Timeline value: everything one simulated step produced — the scenario and schedule it
// came from, the simulated ranks, the task graph and every task's start and end. Reports,
// traces and the GUI read it; none of them recompute anything.
#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include "core/time.h"
#include "graph/task_graph.h"
#include "lower/ranks.h"
#include "scenario/scenario.h"
#include "schedules/schedule.h"

namespace trainsim {

struct Timeline {
  Scenario scenario;
  Schedule schedule;
  RankSet ranks;
  std::shared_ptr<const TaskGraph> graph;
  std::vector<TimeNs> start;  ///< per task
  std::vector<TimeNs> end;    ///< per task
  TimeNs makespan = 0;
  std::string cost_sources;   ///< where the durations came from (CostModel::sources())
  std::string contention;     ///< what slowed overlapping work ("" when nothing did)
  double compute_pace = 1.0;  ///< every GPU's compute × this (CostModel::compute_pace)
  /// Per pipeline rank: the kernels its GPU runs in a step, a pass's TP, CP and EP collectives
  /// counted as kernels (CostModel::host_launch's count over the rank's actions); empty when
  /// the cost model times no kernels (explicit costs).
  std::vector<double> kernels_per_rank;
};

}  // namespace trainsim
