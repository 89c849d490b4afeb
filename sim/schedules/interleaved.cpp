#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

// Megatron-LM's forward_backward_pipelining_with_interleaving. Virtual micro-batch k (of m·v)
// runs chunk (k mod g·v) / g forward and v − 1 − that chunk backward, on micro-batch
// (k / g·v)·g + k mod g. Rank r warms up with 2(p − r − 1) + (v − 1)·g forwards (all of them
// when m = p), then alternates one forward and one backward, then drains the backwards.
// With `overlap_f_b`, Megatron-core's combined 1F1B (`--overlap-moe-expert-parallel-comm`,
// schedules.py: get_pp_rank_microbatches): one forward more in the warm-up, and each
// steady-state forward runs with the backward after it as one overlapped pair (different
// micro-batches, so independent), each one's expert all-to-alls beside the other's compute.
Schedule generate_interleaved_1f1b(const ScheduleParams& p) {
  const int pp = p.pp, m = p.microbatches, v = p.vpp;
  if (v < 2)
    throw ScheduleError(fmt::format(
        "interleaved-1f1b needs vpp >= 2 model chunks per rank, got vpp = {}; with one chunk use "
        "1f1b",
        v));
  const int g = static_cast<int>(schedule_option(p, "group_size", pp, true));
  if (g < pp || g > m)
    throw ScheduleError(fmt::format("interleaved-1f1b needs pp <= group_size <= microbatches; got "
                                    "group_size = {} with pp = "
                                    "{}, m = {}",
                                    g, pp, m),
                        "group_size");
  if (m % g != 0)
    throw ScheduleError(fmt::format("interleaved-1f1b needs microbatches to be a multiple of "
                                    "group_size (default pp): m = {}, "
                                    "group_size = {}; try m = {} or {}",
                                    m, g, m / g * g, (m / g + 1) * g),
                        "group_size");
  Schedule s{"interleaved-1f1b", pp, pp * v, m, looped_placement(pp, v), {}};
  s.actions.resize(static_cast<std::size_t>(pp));
  const int total = m * v;
  auto chunk_of = [&](int k, bool forward) {
    const int c = (k % (g * v)) / g;
    return forward ? c : v - 1 - c;
  };
  auto microbatch_of = [&](int k) { return (k / (g * v)) * g + k % g; };
  const bool pairs = schedule_flag(p, "overlap_f_b");
  for (int r = 0; r < pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    const int warmup =
        m == pp ? total : std::min(total, 2 * (pp - r - 1) + (v - 1) * g + (pairs ? 1 : 0));
    auto fwd = [&](int k, bool paired = false) {
      list.push_back({chunk_of(k, true) * pp + r, Op::F, microbatch_of(k), paired});
    };
    auto bwd = [&](int k) {
      list.push_back({chunk_of(k, false) * pp + r, Op::B, microbatch_of(k)});
    };
    for (int k = 0; k < warmup; ++k) fwd(k);
    for (int i = 0; i < total - warmup; ++i) {
      fwd(warmup + i, pairs);
      bwd(i);
    }
    for (int k = total - warmup; k < total; ++k) bwd(k);
  }
  return s;
}

}  // namespace trainsim
