#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

// Breadth-first looping (Lamy-Poirier, "Breadth-First Pipeline Parallelism", 2023; PyTorch
// ScheduleLoopedBFS): each rank runs all micro-batches through its first chunk, then its second,
// …, then the backwards chunk by chunk in reverse.
Schedule generate_looped_bfs(const ScheduleParams& p) {
  const int pp = p.pp, m = p.microbatches, v = p.vpp;
  // With one chunk there is no loop: all forwards, then all backwards, which is AFAB.
  if (v < 2)
    throw ScheduleError(fmt::format(
        "looped-bfs needs vpp >= 2 model chunks per rank to loop over, got vpp = {}; with one "
        "chunk it is afab",
        v));
  Schedule s{"looped-bfs", pp, pp * v, m, looped_placement(pp, v), {}};
  s.actions.resize(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    for (int c = 0; c < v; ++c)
      for (int mb = 0; mb < m; ++mb) list.push_back({c * pp + r, Op::F, mb});
    for (int c = v - 1; c >= 0; --c)
      for (int mb = 0; mb < m; ++mb) list.push_back({c * pp + r, Op::B, mb});
  }
  return s;
}

}  // namespace trainsim
