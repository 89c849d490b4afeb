#include "schedules/validate.h"

#include <catch2/catch.hpp>

#include "core/error.h"
#include "schedules/generators.h"
#include "schedules/registry.h"

using namespace trainsim;

namespace {
Schedule two_stage(std::vector<std::vector<Action>> actions) {
  return Schedule{"hand", 2, 2, 2, looped_placement(2, 1), std::move(actions)};
}
}  // namespace

TEST_CASE("validator: 1F1B grid matches the Playbook figure for p = 4, m = 8", "[validate]") {
  const Schedule s = generate_1f1b({4, 8, 1, {}, {}});
  const UnitRun run = run_unit_steps(s);
  // Unit F and B: (m + p − 1) · 2 = 22 steps.
  CHECK(run.makespan == 22);
  const std::string grid = format_grid(s, run);
  CHECK_THAT(grid, Catch::StartsWith("rank  0 | F0 F1 F2 F3 .  .  .  B0 F4 B1"));
  CHECK_THAT(grid, Catch::Contains("rank  3 | .  .  .  F0 B0 F1 B1"));
}

TEST_CASE("validator: an action on the wrong rank is marked in the grid", "[validate]") {
  // Stage 1 lives on rank 1, but rank 0 lists 1F0.
  Schedule s =
      two_stage({{{0, Op::F, 0}, {1, Op::F, 0}, {0, Op::F, 1}, {0, Op::B, 0}, {0, Op::B, 1}},
                 {{1, Op::F, 1}, {1, Op::B, 0}, {1, Op::B, 1}}});
  try {
    validate_schedule(s);
    FAIL("expected ScheduleError");
  } catch (const ScheduleError& e) {
    CHECK_THAT(e.what(), Catch::Contains("1F0 is on rank 0 but stage 1 lives on rank 1"));
    CHECK_THAT(e.what(), Catch::Contains(">1F0<"));
  }
}

TEST_CASE("validator: a missing backward names the stage and micro-batch", "[validate]") {
  Schedule s = two_stage({{{0, Op::F, 0}, {0, Op::F, 1}, {0, Op::B, 0}, {0, Op::B, 1}},
                          {{1, Op::F, 0}, {1, Op::B, 0}, {1, Op::F, 1}}});
  CHECK_THROWS_WITH(
      validate_schedule(s),
      Catch::Contains("stage 1 micro-batch 1 must run F once") && Catch::Contains("B×0"));
}

TEST_CASE("validator: a duplicated action is rejected", "[validate]") {
  Schedule s =
      two_stage({{{0, Op::F, 0}, {0, Op::F, 0}, {0, Op::F, 1}, {0, Op::B, 0}, {0, Op::B, 1}},
                 {{1, Op::F, 0}, {1, Op::B, 0}, {1, Op::F, 1}, {1, Op::B, 1}}});
  CHECK_THROWS_WITH(validate_schedule(s), Catch::Contains("0F0 appears twice"));
}

TEST_CASE("validator: a schedule whose ranks wait on each other is a deadlock", "[validate]") {
  // Rank 1 starts with F1, which needs 0F1; rank 0 runs 0B0 before 0F1, and 0B0 needs 1B0,
  // which is behind 1F1 on rank 1: neither can move after 0F0.
  Schedule s = two_stage({{{0, Op::F, 0}, {0, Op::B, 0}, {0, Op::F, 1}, {0, Op::B, 1}},
                          {{1, Op::F, 1}, {1, Op::F, 0}, {1, Op::B, 0}, {1, Op::B, 1}}});
  CHECK_THROWS_WITH(validate_schedule(s), Catch::Contains("deadlock") &&
                                              Catch::Contains("rank 0 waits at 0B0") &&
                                              Catch::Contains(">0B0<"));
}

TEST_CASE("validator: a backward before its own forward is named", "[validate]") {
  Schedule s = two_stage({{{0, Op::F, 0}, {0, Op::B, 0}, {0, Op::B, 1}, {0, Op::F, 1}},
                          {{1, Op::F, 0}, {1, Op::B, 0}, {1, Op::F, 1}, {1, Op::B, 1}}});
  CHECK_THROWS_WITH(validate_schedule(s), Catch::Contains("0B1 comes before 0F1 on rank 0"));
}

TEST_CASE("validator: an overlapped pair must be a forward then a fused backward", "[validate]") {
  Schedule s = generate_dualpipe_v({2, 4, 2, {}, {}});
  // Find a pair and break it: mark the B (not an F) as overlapped.
  auto& list = s.actions[0];
  std::size_t i = 0;
  while (!list[i].overlapped_with_next) ++i;
  list[i].overlapped_with_next = false;
  list[i + 1].overlapped_with_next = true;
  try {
    validate_schedule(s);
    FAIL("expected a ScheduleError");
  } catch (const ScheduleError& e) {
    CHECK_THAT(e.what(), Catch::Contains("overlapped pair is a forward followed by a fused "
                                         "backward"));
    CHECK_THAT(e.what(), Catch::Contains(">"));  // the grid marks the action
  }
}

TEST_CASE("validator: with two pipelines a micro-batch stays on its own", "[validate]") {
  // DualPipe, p = 2, m = 4: micro-batches 0, 1 go through stages 0, 1 (ranks 0 → 1), 2, 3
  // through stages 2, 3 (ranks 1 → 0). Moving micro-batch 2 onto stage 0 is named.
  Schedule s = generate_dualpipe({2, 4, 1, {}, {}});
  validate_schedule(s);
  CHECK(s.runs(0, 1));
  CHECK_FALSE(s.runs(0, 2));
  CHECK(s.runs(3, 2));
  for (Action& a : s.actions[0])
    if (a.stage == 0 && a.microbatch == 1) a.microbatch = 2;
  CHECK_THROWS_WITH(validate_schedule(s),
                    Catch::Contains("0F2: micro-batch 2 goes through pipeline 1 of 2, stage 0 "
                                    "belongs to pipeline 0"));
}

TEST_CASE("validator: schedules past 2^22 (stage, micro-batch) pairs are refused up front",
          "[validate]") {
  // 2048 stages × 2048 micro-batches = 2^22 is the limit itself; one more micro-batch is over.
  CHECK_NOTHROW(check_schedule_size("1f1b", 2048, 2048));
  CHECK_THROWS_WITH(check_schedule_size("1f1b", 2048, 2049),
                    Catch::Contains("1f1b: 2048 stages × 2049 micro-batches = 4196352") &&
                        Catch::Contains("past the limit of 4194304 (2^22)"));
  // make_schedule checks before generating (20,000² = 4e8 pairs would need ~10 GB).
  CHECK_THROWS_AS(make_schedule("1f1b", {20000, 20000, 1, {}, {}}), ScheduleError);
  // pp · vpp in 64 bits: 65,536 × 65,536 stages does not wrap to 0.
  CHECK_THROWS_AS(make_schedule("interleaved-1f1b", {65536, 1, 65536, {}, {}}), ScheduleError);
}

TEST_CASE("validator: a long pipeline validates in linear time", "[validate]") {
  // 16,384 ranks × 8 micro-batches: 262,144 actions. The per-rank tables this once built cost
  // O(ranks² · m) = 2^31 steps (seconds); now it is O(actions).
  const Schedule s = make_schedule("1f1b", {16384, 8, 1, {}, {}});
  const UnitRun run = run_unit_steps(s);
  REQUIRE(run.complete);
  // 1F1B in unit steps: 2(m + p − 1) = 2 · (8 + 16383) = 32,782.
  CHECK(run.makespan == 2 * (8 + 16384 - 1));
}
