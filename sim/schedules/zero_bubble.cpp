#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {
namespace {

// The handcrafted Zero Bubble shape (Qi et al., ICLR 2024, figure 3): rank i runs `warmup(i)`
// forwards, then for every micro-batch k its input gradient I_k, the weight gradient W lagging
// `lag(i)` micro-batches behind, and the next forward while any is left; the remaining W's
// close the step. Deferring W shortens the gradient chain between ranks (each hop costs I, not
// I + W) and the deferred W's fill what would be cool-down bubbles.
template <typename Warmup, typename Lag>
Schedule zero_bubble(const char* name, const ScheduleParams& p, Warmup warmup, Lag lag) {
  Schedule s = empty_pipeline(name, p);
  s.actions.resize(static_cast<std::size_t>(p.pp));
  const int m = p.microbatches;
  for (int i = 0; i < p.pp; ++i) {
    auto& list = s.actions[static_cast<std::size_t>(i)];
    int next_f = 0, next_w = 0;
    for (; next_f < std::min(warmup(i), m); ++next_f) list.push_back({i, Op::F, next_f});
    for (int k = 0; k < m; ++k) {
      list.push_back({i, Op::I, k});
      if (k >= lag(i)) list.push_back({i, Op::W, next_w++});
      if (next_f < m) list.push_back({i, Op::F, next_f++});
    }
    while (next_w < m) list.push_back({i, Op::W, next_w++});
  }
  return s;
}

}  // namespace

Schedule generate_zb_h1(const ScheduleParams& p) {
  // Rank i: p − i warm-up forwards, W lagging i micro-batches: at most p micro-batches of
  // activations on every rank, the peak of 1F1B.
  return zero_bubble(
      "zb-h1", p, [&](int i) { return p.pp - i; }, [](int i) { return i; });
}

Schedule generate_zb_h2(const ScheduleParams& p) {
  // Rank i: 2(p − i) − 1 warm-up forwards, W lagging 2i: at most 2p − 1 micro-batches.
  return zero_bubble(
      "zb-h2", p, [&](int i) { return 2 * (p.pp - i) - 1; }, [](int i) { return 2 * i; });
}

}  // namespace trainsim
