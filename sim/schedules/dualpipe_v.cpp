#include <deque>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

// DualPipeV (DeepSeek-V3 report §3.2.1; the "cut-in-half" DualPipe of deepseek-ai/DualPipe,
// dualpipev.py): p ranks, two chunks each in a V (chunk 0 = stage r, chunk 1 = stage 2p − 1 − r),
// the forward of one chunk overlapped with the backward of the other as one F&B task. Steps
// on rank r, as in the reference implementation:
//   1. 2(p − r − 1) chunk-0 forwards          2. r + 1 pairs F0, F1
//   3. p − r − 1 of (I1, W1, F1)              4. m − 2p + r + 1 of (F0&B1, F1&B0); the last
//                                                rank runs its first F0 and B1 apart
//   5. p − r − 1 of (B1, F1&B0)               6. r + 1 of (B1, B0), the second half split
//                                                into I with W deferred
//   7. p − r − 1 of (W, I0)                   8. r + 1 deferred W
// Deferred weight gradients run first-in first-out, as the reference's WeightGradStore.
Schedule generate_dualpipe_v(const ScheduleParams& p) {
  const int pp = p.pp, m = p.microbatches;
  if (p.vpp != 2)
    throw ScheduleError(fmt::format(
        "dualpipe-v places two chunks per rank in a V: it needs vpp = 2, got vpp = {}", p.vpp));
  if (m < 2 * pp)
    throw ScheduleError(fmt::format(
        "dualpipe-v needs microbatches >= 2·pp = {} (DeepSeek's DualPipeV requires at least two "
        "micro-batches per rank and chunk); got m = {}",
        2 * pp, m));
  Schedule s{"dualpipe-v", pp, 2 * pp, m, v_placement(pp), {}};
  s.actions.resize(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    const int stage[2] = {r, 2 * pp - 1 - r};
    int f[2] = {0, 0}, b[2] = {0, 0};
    std::deque<Action> deferred;  // weight gradients waiting for a W slot
    auto F = [&](int c) { list.push_back({stage[c], Op::F, f[c]++}); };
    auto B = [&](int c, bool split) {
      if (!split) {
        list.push_back({stage[c], Op::B, b[c]++});
        return;
      }
      list.push_back({stage[c], Op::I, b[c]});
      deferred.push_back({stage[c], Op::W, b[c]++});
    };
    auto W = [&] {
      list.push_back(deferred.front());
      deferred.pop_front();
    };
    auto FB = [&](int cf, int cb) {  // F on chunk cf overlapped with B on chunk cb
      F(cf);
      list.back().overlapped_with_next = true;
      B(cb, false);
    };
    for (int k = 0; k < 2 * (pp - r - 1); ++k) F(0);
    for (int k = 0; k < r + 1; ++k) {
      F(0);
      F(1);
    }
    for (int k = 0; k < pp - r - 1; ++k) {
      B(1, true);
      W();
      F(1);
    }
    for (int k = 0; k < m - 2 * pp + r + 1; ++k) {
      if (k == 0 && r == pp - 1) {
        F(0);
        B(1, false);
      } else {
        FB(0, 1);
      }
      FB(1, 0);
    }
    for (int k = 0; k < pp - r - 1; ++k) {
      B(1, false);
      FB(1, 0);
    }
    bool split = false;
    const int step6 = r + 1;
    for (int k = 0; k < step6; ++k) {
      if (k == step6 / 2 && r % 2 == 1) split = true;
      B(1, split);
      if (k == step6 / 2 && r % 2 == 0) split = true;
      B(0, split);
    }
    for (int k = 0; k < pp - r - 1; ++k) {
      W();
      B(0, true);
    }
    while (!deferred.empty()) W();
  }
  return s;
}

}  // namespace trainsim
