#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

Schedule generate_afab(const ScheduleParams& p) {
  if (p.vpp != 1)
    throw ScheduleError("afab runs one chunk per rank (vpp = 1), got vpp = " +
                        std::to_string(p.vpp) + "; for chunks use interleaved-1f1b");
  Schedule s{"afab", p.pp, p.pp, p.microbatches, looped_placement(p.pp, 1), {}};
  s.actions.resize(static_cast<std::size_t>(p.pp));
  for (int r = 0; r < p.pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    for (int mb = 0; mb < p.microbatches; ++mb) list.push_back({r, Op::F, mb});
    for (int mb = 0; mb < p.microbatches; ++mb) list.push_back({r, Op::B, mb});
  }
  return s;
}

}  // namespace trainsim
