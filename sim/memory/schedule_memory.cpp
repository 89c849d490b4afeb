#include "memory/schedule_memory.h"

#include <algorithm>

#include "core/error.h"
#include "memory/footprint.h"

namespace trainsim {

std::vector<double> schedule_memory_peaks(const Scenario& s, const Schedule& sch) {
  TRAINSIM_CHECK(static_cast<int>(sch.actions.size()) == sch.ranks, "actions for every rank");
  std::vector<double> act(static_cast<std::size_t>(sch.stages));
  for (int st = 0; st < sch.stages; ++st)
    act[static_cast<std::size_t>(st)] = stage_activation_bytes(s, st);
  const double alpha = sch.input_frees;
  const auto held = sch.stages_by_rank();
  std::vector<double> peaks;
  peaks.reserve(static_cast<std::size_t>(sch.ranks));
  for (int r = 0; r < sch.ranks; ++r) {
    double now = 0, most = 0;
    for (const Action& a : sch.actions[static_cast<std::size_t>(r)]) {
      const double bytes = act[static_cast<std::size_t>(a.stage)];
      switch (a.op) {
        case Op::F:
          now += bytes;
          most = std::max(most, now);
          break;
        case Op::B:
          now -= bytes;
          break;
        case Op::I:
          now -= alpha * bytes;
          break;
        case Op::W:
          now -= (1 - alpha) * bytes;
          break;
      }
    }
    const StaticMemory fixed = static_memory(s, held[static_cast<std::size_t>(r)]);
    peaks.push_back(fixed.total() - (s.model ? 0 : fixed.buffers) + most);
  }
  return peaks;
}

}  // namespace trainsim
