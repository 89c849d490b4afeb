#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

// With `overlap_f_b`, Megatron-core's combined 1F1B (`--overlap-moe-expert-parallel-comm`,
// schedules.py: combined_1f1b_schedule_for_no_pipelining at pp 1): one forward more in the
// warm-up, so that each steady-state forward and backward belong to different micro-batches
// and run as one overlapped pair, each one's expert all-to-alls beside the other's compute.
Schedule generate_1f1b(const ScheduleParams& p) {
  Schedule s = empty_pipeline("1f1b", p);
  s.actions.resize(static_cast<std::size_t>(p.pp));
  const int m = p.microbatches;
  const bool pairs = schedule_flag(p, "overlap_f_b");
  // Over several ranks each pair's forward would wait for the previous rank's pair, which waits
  // for this rank's backward: the pipeline runs one pair at a time. Megatron-core requires
  // virtual stages there (transformer_config.py), whose chunks give the pairs their slack.
  if (pairs && p.pp > 1)
    throw ScheduleError(fmt::format("1f1b's overlap_f_b needs pp = 1, got pp = {}: with a pipeline "
                                    "each pair would wait for the previous rank's; use "
                                    "interleaved-1f1b (vpp >= 2), as Megatron-core requires",
                                    p.pp),
                        "overlap_f_b");
  for (int r = 0; r < p.pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    const int warmup = std::min(p.pp - r - 1 + (pairs ? 1 : 0), m);
    int next_f = 0, next_b = 0;
    for (; next_f < warmup; ++next_f) list.push_back({r, Op::F, next_f});
    while (next_f < m) {  // steady state: one forward, one backward
      list.push_back({r, Op::F, next_f++, pairs});
      list.push_back({r, Op::B, next_b++});
    }
    while (next_b < m) list.push_back({r, Op::B, next_b++});  // cool-down
  }
  return s;
}

}  // namespace trainsim
