#include "schedules/generators.h"

namespace trainsim {

Schedule generate_afab(const ScheduleParams& p) {
  Schedule s = empty_pipeline("afab", p);
  s.actions.resize(static_cast<std::size_t>(p.pp));
  for (int r = 0; r < p.pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    for (int mb = 0; mb < p.microbatches; ++mb) list.push_back({r, Op::F, mb});
    for (int mb = 0; mb < p.microbatches; ++mb) list.push_back({r, Op::B, mb});
  }
  return s;
}

}  // namespace trainsim
