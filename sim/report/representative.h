#pragma once
// A pipeline stage's representative rank: the simulated rank whose figures the report, the
// memory report, the trace's memory counters and the GUI's collapsed view show for the stage.
// Folded (lower/ranks.h), a stage has one simulated rank, tp = 0, dp = 0. Expanded because
// peers differ (a TP group straddling two nodes), the stage's rank whose pipeline compute ends
// last: the slowest sets the step, so the phases (before, pipeline, after) are those of the step
// and not of a quicker peer. A tie keeps tp = 0, dp = 0.
#include <vector>  // std::vector

#include "run/timeline.h"

namespace trainsim {

/// Per pipeline stage (rank coordinate pp), the index into tl.ranks.ranks of its representative.
std::vector<int> stage_representatives(const Timeline& tl);

/// Whether simulated rank `rank` (an index into tl.ranks.ranks) represents its stage.
inline bool represents(const std::vector<int>& representatives, const Timeline& tl, int rank) {
  const auto& r = tl.ranks.ranks[static_cast<std::size_t>(rank)];
  return representatives[static_cast<std::size_t>(r.coord.pp)] == rank;
}

}  // namespace trainsim
