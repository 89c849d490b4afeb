#include "report/representative.h"

#include <algorithm>

#include "lower/task_types.h"

namespace trainsim {

std::vector<int> stage_representatives(const Timeline& tl) {
  const TaskGraph& g = *tl.graph;
  const auto& ranks = tl.ranks.ranks;
  std::vector<TimeNs> end(ranks.size(), -1);
  for (TaskId t = 0; t < g.size(); ++t)
    if (is_pipeline_compute(static_cast<TaskType>(g.work(t).type))) {
      TimeNs& e = end[static_cast<std::size_t>(g.streams[g.tasks[t].stream].owner)];
      e = std::max(e, tl.end[t]);
    }
  std::vector<int> out(static_cast<std::size_t>(tl.schedule.stages), -1);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto stage = static_cast<std::size_t>(ranks[i].coord.pp);
    if (stage >= out.size()) out.resize(stage + 1, -1);
    int& r = out[stage];
    const bool origin = ranks[i].coord.tp == 0 && ranks[i].coord.dp == 0;
    if (r < 0 || end[i] > end[static_cast<std::size_t>(r)] ||
        (end[i] == end[static_cast<std::size_t>(r)] && origin))
      r = static_cast<int>(i);
  }
  return out;
}

}  // namespace trainsim
