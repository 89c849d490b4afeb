#include <deque>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {
namespace {

// The eight steps of one rank of DeepSeek's DualPipe, which DualPipeV ("cut in half") runs
// unchanged (deepseek-ai/DualPipe, dualpipe.py and dualpipev.py, DualPipe.step): `half` ranks on
// each side of the middle, this rank `h` from its end (0 = first or last rank), `chunks`
// micro-batches per phase. Phase 0 and 1 are the rank's two stages; phase c's micro-batches are
// first[c], first[c] + 1, …
//   1. 2(half − h − 1) phase-0 forwards       2. h + 1 pairs F0, F1
//   3. half − h − 1 of (I1, W1, F1)           4. chunks − 2·half + h + 1 of (F0&B1, F1&B0);
//                                                the middle rank runs its first F0 and B1 apart
//   5. half − h − 1 of (B1, F1&B0)            6. h + 1 of (B1, B0), the second half split
//                                                into I with W deferred
//   7. half − h − 1 of (W, I0)                8. h + 1 deferred W
// Deferred weight gradients run first-in first-out, as the reference's WeightGradStore.
std::vector<Action> dualpipe_rank(int half, int h, int chunks, const int stage[2],
                                  const int first[2]) {
  std::vector<Action> list;
  int f[2] = {first[0], first[1]}, b[2] = {first[0], first[1]};
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
  auto FB = [&](int cf, int cb) {  // F on phase cf overlapped with B on phase cb
    F(cf);
    list.back().overlapped_with_next = true;
    B(cb, false);
  };
  for (int k = 0; k < 2 * (half - h - 1); ++k) F(0);
  for (int k = 0; k < h + 1; ++k) {
    F(0);
    F(1);
  }
  for (int k = 0; k < half - h - 1; ++k) {
    B(1, true);
    W();
    F(1);
  }
  for (int k = 0; k < chunks - 2 * half + h + 1; ++k) {
    if (k == 0 && h == half - 1) {
      F(0);
      B(1, false);
    } else {
      FB(0, 1);
    }
    FB(1, 0);
  }
  for (int k = 0; k < half - h - 1; ++k) {
    B(1, false);
    FB(1, 0);
  }
  bool split = false;
  for (int k = 0; k < h + 1; ++k) {
    if (k == (h + 1) / 2 && h % 2 == 1) split = true;
    B(1, split);
    if (k == (h + 1) / 2 && h % 2 == 0) split = true;
    B(0, split);
  }
  for (int k = 0; k < half - h - 1; ++k) {
    W();
    B(0, true);
  }
  while (!deferred.empty()) W();
  return list;
}

}  // namespace

// DualPipeV (DeepSeek-V3 report §3.2.1; dualpipev.py): p ranks, two chunks each in a V (chunk
// 0 = stage r, chunk 1 = stage 2p − 1 − r), the forward of one chunk overlapped with the
// backward of the other as one F&B task; every micro-batch goes down the V and back.
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
    const int stage[2] = {r, 2 * pp - 1 - r}, first[2] = {0, 0};
    s.actions[static_cast<std::size_t>(r)] = dualpipe_rank(pp, r, m, stage, first);
  }
  return s;
}

// DualPipe (DeepSeek-V3 report §3.2.1, Figure 5; dualpipe.py): two pipelines over the same p
// ranks in opposite directions, each through the whole model in p stages. Rank r holds model
// stage r of the forward-direction pipeline and model stage p − 1 − r of the reverse one (two
// copies of the parameters per rank); half the micro-batches enter at rank 0, half at rank
// p − 1. Stages 0 … p − 1 are the first pipeline (stage r on rank r), p … 2p − 1 the second
// (stage p + j, model stage j, on rank p − 1 − j); micro-batches 0 … m/2 − 1 go through the
// first, m/2 … m − 1 through the second. Each rank's phase 0 is the pipeline that enters on
// its side (the forward direction for the first half of the ranks), as in the reference.
Schedule generate_dualpipe(const ScheduleParams& p) {
  const int pp = p.pp, m = p.microbatches;
  if (p.vpp != 1)
    throw ScheduleError(fmt::format(
        "dualpipe runs one model stage per rank and pipeline (its second pipeline is a copy "
        "of the model in the other direction): it needs vpp = 1, got vpp = {}; for two chunks "
        "in a V use dualpipe-v",
        p.vpp));
  if (pp < 2 || pp % 2 != 0)
    throw ScheduleError(fmt::format(
        "dualpipe pairs rank r with rank pp − 1 − r: it needs an even pp >= 2, got pp = {}", pp));
  if (m % 2 != 0 || m < 2 * pp)
    throw ScheduleError(fmt::format(
        "dualpipe sends half the micro-batches each way and needs an even microbatches >= 2·pp "
        "= {} (deepseek-ai/DualPipe asserts it); got m = {}",
        2 * pp, m));
  Schedule s{"dualpipe", pp, 2 * pp, m, dualpipe_placement(pp), {}};
  s.chains = 2;
  s.actions.resize(static_cast<std::size_t>(pp));
  const int half = pp / 2, chunks = m / 2;
  for (int r = 0; r < pp; ++r) {
    const int forward_stage = r, reverse_stage = pp + (pp - 1 - r);
    const bool second_half = r >= half;
    const int stage[2] = {second_half ? reverse_stage : forward_stage,
                          second_half ? forward_stage : reverse_stage};
    const int first[2] = {second_half ? chunks : 0, second_half ? 0 : chunks};
    s.actions[static_cast<std::size_t>(r)] =
        dualpipe_rank(half, std::min(r, pp - 1 - r), chunks, stage, first);
  }
  return s;
}

}  // namespace trainsim
