// The multi-GPU replay plan of `trainsim-calibrate validate --gpus N` (calibrate/pipeline_plan.h).
#include "pipeline_plan.h"

#include <catch2/catch.hpp>

#include "core/error.h"
#include "schedules/registry.h"
#include "test_util.h"

using namespace trainsim;

namespace {

const Channel& channel(const PipelineReplay& r, int from, int to) {
  for (const Channel& c : r.channels)
    if (c.from == from && c.to == to) return c;
  FAIL("no channel " << from << " -> " << to);
  throw;
}

int index_of(const PipelineReplay& r, int from, int to) {
  return static_cast<int>(&channel(r, from, to) - r.channels.data());
}

}  // namespace

TEST_CASE("pipeline replay: 1F1B p=4 m=8 channels, messages and waits", "[pipeline_plan]") {
  const Schedule s = make_schedule("1f1b", {4, 8, 1, {}, {}});
  const PipelineReplay r = plan_pipeline_replay(s);
  REQUIRE(r.ranks.size() == 4);
  // 3 stage boundaries, each a channel forward (activations) and one backward (gradients),
  // each carrying the 8 micro-batches in the sender's order.
  REQUIRE(r.channels.size() == 6);
  for (const Channel& c : r.channels) CHECK(c.messages.size() == 8);
  // Stage 2 runs 2F0 (its p − 1 − 2 = 1 warm-up forward), 2F1, then 2B0: 2B0 waits for the
  // gradient 3B0 from rank 3 and sends its own gradient 2B0 to rank 1, the first message there.
  const ReplayStep& b0 = r.ranks[2][2];
  REQUIRE(b0.compute == std::vector<Action>{{2, Op::B, 0}});
  CHECK(b0.receives == std::vector<MessageRef>{{index_of(r, 3, 2), 0}});
  CHECK(b0.sends == std::vector<MessageRef>{{index_of(r, 2, 1), 0}});
  CHECK(channel(r, 3, 2).messages[0] == Message{true, 3, 0});
  CHECK(channel(r, 2, 1).messages[0] == Message{true, 2, 0});
  // The first stage receives no activation and sends no gradient; the last the reverse.
  for (const ReplayStep& step : r.ranks[0])
    for (const MessageRef& m : step.receives)
      CHECK(r.channels[static_cast<std::size_t>(m.channel)]
                .messages[static_cast<std::size_t>(m.index)]
                .gradient);
  CHECK(r.ranks[3][0].receives == std::vector<MessageRef>{{index_of(r, 2, 3), 0}});
  CHECK(r.ranks[3][0].sends.empty());  // 3F0 feeds its own 3B0
  CHECK(find_replay_deadlock(r) == "");
}

TEST_CASE("pipeline replay: the V placement exchanges nothing at its turn", "[pipeline_plan]") {
  // ZB-V p=2: stages 0,3 on rank 0 and 1,2 on rank 1; 1 -> 2 stays on rank 1. Channels:
  // 0 -> 1 carries stage 0's activations and stage 3's gradients, 1 -> 0 stage 2's activations
  // and stage 1's gradients: 2 × 4 micro-batches each.
  const PipelineReplay r = plan_pipeline_replay(make_schedule("zb-v", {2, 4, 2, {}, {}}));
  REQUIRE(r.channels.size() == 2);
  CHECK(channel(r, 0, 1).messages.size() == 8);
  CHECK(channel(r, 1, 0).messages.size() == 8);
  CHECK(find_replay_deadlock(r) == "");
}

TEST_CASE("pipeline replay: every built-in schedule's replay finishes", "[pipeline_plan]") {
  test::for_each_builtin_schedule([](const std::string& name, int p, int v, const Schedule& s) {
    INFO(name << " p = " << p << " v = " << v);
    const PipelineReplay r = plan_pipeline_replay(s);
    std::size_t computes = 0, actions = 0;
    for (const auto& steps : r.ranks)
      for (const ReplayStep& step : steps) computes += step.compute.size();
    for (const auto& list : s.actions) actions += list.size();
    CHECK(computes == actions);  // every action replayed once
    CHECK(find_replay_deadlock(r) == "");
  });
}

TEST_CASE("pipeline replay: a cyclic order is reported as a deadlock", "[pipeline_plan]") {
  // Rank 0 runs 0B0 before 0F0: 0B0 needs 1B0's gradient, 1B0 runs after 1F0, which needs 0F0's
  // activation — behind 0B0.
  Schedule s = make_schedule("1f1b", {2, 1, 1, {}, {}});
  s.actions[0] = {{0, Op::B, 0}, {0, Op::F, 0}};
  CHECK(find_replay_deadlock(plan_pipeline_replay(s)) ==
        "deadlock: rank 0 waits before 0B0 for gradient 1B0 from rank 1; rank 1 waits before 1F0 "
        "for activation 0F0 from rank 0");
}

TEST_CASE("pipeline replay: the prediction it is compared with", "[pipeline_plan]") {
  // 1F1B, p=4, m=8, F=1 ms, B=2 ms, no transfer time: rank 0 ends the step at
  // (m+p-1)(F+B) = 33 ms; each later rank's last B ends one B earlier than its predecessor's
  // (3 · 2 = 6 ms before for rank 3: 27 ms); every rank computes m(F+B) = 24 ms; rank r's
  // first F starts at r·F.
  const Timeline tl = simulate(test::pipeline(4, 8, 1, 2));
  const std::vector<RankTimes> p = predict_pipeline(tl);
  REQUIRE(p.size() == 4);
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    CHECK(p[static_cast<std::size_t>(r)].first_start == Approx(r * 1e-3));
    CHECK(p[static_cast<std::size_t>(r)].last_end == Approx((33 - 2 * r) * 1e-3));
    CHECK(p[static_cast<std::size_t>(r)].compute == Approx(24e-3));
  }
}
