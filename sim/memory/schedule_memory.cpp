#include "memory/schedule_memory.h"

#include <algorithm>

#include "core/error.h"
#include "memory/footprint.h"

namespace trainsim {

std::vector<double> schedule_memory_peaks(const Scenario& s, const Schedule& sch) {
  TRAINSIM_CHECK(static_cast<int>(sch.actions.size()) == sch.ranks, "actions for every rank");
  // Activation offload keeps `off` of a micro-batch's bytes on the host between its forward and
  // its backward: on the GPU while the forward runs and again from the reload before the
  // backward (`act` counts what stays).
  // `replay`: the layer a recomputing backward runs again, beside the rest while it does.
  std::vector<double> act(static_cast<std::size_t>(sch.stages)), off(act.size()), spike(act.size()),
      replay(act.size());
  for (int st = 0; st < sch.stages; ++st) {
    spike[static_cast<std::size_t>(st)] = loss_transient_bytes(s, sch.model_stage(st));
    replay[static_cast<std::size_t>(st)] = recompute_transient_bytes(s, sch.model_stage(st));
    off[static_cast<std::size_t>(st)] = offloaded_activation_bytes(s, sch.model_stage(st));
    act[static_cast<std::size_t>(st)] =
        stage_activation_bytes(s, sch.model_stage(st)) - off[static_cast<std::size_t>(st)];
  }
  const double alpha = sch.input_frees;
  const auto held = sch.model_stages_by_rank();
  std::vector<double> peaks;
  peaks.reserve(static_cast<std::size_t>(sch.ranks));
  for (int r = 0; r < sch.ranks; ++r) {
    double now = 0, most = 0;
    for (const Action& a : sch.actions[static_cast<std::size_t>(r)]) {
      const double bytes = act[static_cast<std::size_t>(a.stage)];
      const double away = off[static_cast<std::size_t>(a.stage)];
      switch (a.op) {
        case Op::F:
          now += bytes;
          most = std::max(most, now + away + spike[static_cast<std::size_t>(a.stage)]);
          break;
        case Op::B:
          most = std::max(most, now + away + replay[static_cast<std::size_t>(a.stage)]);
          now -= bytes;
          break;
        case Op::I:
          most = std::max(most, now + away + replay[static_cast<std::size_t>(a.stage)]);
          now -= alpha * bytes;
          break;
        case Op::W:
          now -= (1 - alpha) * bytes;
          break;
      }
    }
    const StaticMemory fixed = static_memory(s, held[static_cast<std::size_t>(r)], sch.chains);
    peaks.push_back(fixed.total() - (s.model ? 0 : fixed.buffers) + most);
  }
  return peaks;
}

}  // namespace trainsim
