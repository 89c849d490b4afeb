#include <algorithm>

#include "schedules/generators.h"

namespace trainsim {

Schedule generate_1f1b(const ScheduleParams& p) {
  Schedule s = empty_pipeline("1f1b", p);
  s.actions.resize(static_cast<std::size_t>(p.pp));
  const int m = p.microbatches;
  for (int r = 0; r < p.pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    const int warmup = std::min(p.pp - r - 1, m);
    int next_f = 0, next_b = 0;
    for (; next_f < warmup; ++next_f) list.push_back({r, Op::F, next_f});
    while (next_f < m) {  // steady state: one forward, one backward
      list.push_back({r, Op::F, next_f++});
      list.push_back({r, Op::B, next_b++});
    }
    while (next_b < m) list.push_back({r, Op::B, next_b++});  // cool-down
  }
  return s;
}

}  // namespace trainsim
