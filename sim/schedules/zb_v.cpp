#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

// The handcrafted ZB-V schedule (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §6
// and figure 8; the same construction as torch.distributed.pipelining's ScheduleZBVZeroBubble).
// Rank r holds chunk 0 = stage r and chunk 1 = stage 2p − 1 − r, so a micro-batch goes down
// the ranks on chunk 0 and back up on chunk 1, and the loss is on rank 0. Phases on rank r:
//   1. 2(p − r) − 1 chunk-0 forwards;
//   2. r pairs (chunk-1 forward, chunk-0 forward);
//   3. p − r triples (chunk-1 F, I, W): the first chunk-1 backwards start;
//   4. steady state: F0, I0, W0, F1, I1, W1 per micro-batch (F0 while any is left);
//   5. r pairs (I0, I1), then p − r pairs (I0, W0), then the deferred W1s and W0s.
// In-flight activations peak at 2p chunks on rank 0 (phase 1 plus one chunk-1 micro-batch),
// i.e. p micro-batches of a whole rank: 1F1B's memory.
Schedule generate_zb_v(const ScheduleParams& p) {
  const int pp = p.pp, m = p.microbatches;
  if (p.vpp != 2)
    throw ScheduleError(fmt::format(
        "zb-v places two chunks per rank in a V: it needs vpp = 2, got vpp = {}", p.vpp));
  if (m < 2 * pp - 1)
    throw ScheduleError(
        fmt::format("zb-v needs microbatches >= 2·pp − 1 = {} (rank 0 warms up with 2p − 1 chunk-0 "
                    "forwards); got m = {}",
                    2 * pp - 1, m));
  Schedule s{"zb-v", pp, 2 * pp, m, v_placement(pp), {}};
  s.actions.resize(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& list = s.actions[static_cast<std::size_t>(r)];
    const int c0 = r, c1 = 2 * pp - 1 - r;
    int f0 = 0, f1 = 0, i0 = 0, i1 = 0, w0 = 0, w1 = 0;
    auto F = [&](int stage, int& n) { list.push_back({stage, Op::F, n++}); };
    auto I = [&](int stage, int& n) { list.push_back({stage, Op::I, n++}); };
    auto W = [&](int stage, int& n) { list.push_back({stage, Op::W, n++}); };
    for (int k = 0; k < 2 * (pp - r) - 1; ++k) F(c0, f0);
    for (int k = 0; k < r; ++k) {
      F(c1, f1);
      F(c0, f0);
    }
    for (int k = 0; k < pp - r; ++k) {
      F(c1, f1);
      I(c1, i1);
      W(c1, w1);
    }
    while (f1 < m) {
      if (f0 < m) F(c0, f0);
      I(c0, i0);
      W(c0, w0);
      F(c1, f1);
      I(c1, i1);
      W(c1, w1);
    }
    for (int k = 0; k < r; ++k) {
      I(c0, i0);
      I(c1, i1);
    }
    while (i0 < m) {
      I(c0, i0);
      W(c0, w0);
    }
    while (w1 < m) W(c1, w1);
    while (w0 < m) W(c0, w0);
  }
  return s;
}

}  // namespace trainsim
