#include "schedules/csv.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "schedules/registry.h"
#include "schedules/validate.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("csv: every built-in schedule exports and re-imports to identical action lists",
          "[csv]") {
  test::for_each_builtin_schedule(
      [](const std::string& name, int p, int v, const Schedule& s) {
        INFO(name << " p = " << p << " v = " << v);
        const Schedule back = schedule_from_csv(schedule_to_csv(s), "round-trip");
        CHECK(back.actions == s.actions);
        CHECK(back.stage_rank == s.stage_rank);
        CHECK(back.stages == s.stages);
        CHECK(back.microbatches == s.microbatches);
      },
      /*skip_chains=*/true);
  // DualPipe's two pipelines have no spelling in PyTorch's format: refused, saying so.
  CHECK_THROWS_WITH(
      schedule_to_csv(make_schedule("dualpipe", {4, 8, 1, {}, {}})),
      Catch::Contains("dualpipe runs 2 pipelines") && Catch::Contains("cannot hold it"));
}

TEST_CASE("csv: the older B / BW spelling loads as I / B", "[csv]") {
  // Old PyTorch: B = input backward, W = weight backward, BW = full backward.
  const Schedule s = schedule_from_csv("0F0,0B0,0W0,0F1,0BW1\n1F0,1B0,1W0,1F1,1BW1\n", "old.csv");
  CHECK(s.actions[0][1] == Action{0, Op::I, 0});
  CHECK(s.actions[0][4] == Action{0, Op::B, 1});
  // New spelling: B is the full backward.
  const Schedule n = schedule_from_csv("0F0,0B0\n1F0,1B0\n", "new.csv");
  CHECK(n.actions[1][1] == Action{1, Op::B, 0});
}

TEST_CASE("csv: idle cells and communication cells are skipped", "[csv]") {
  const Schedule s = schedule_from_csv("0F0,,0SEND_F0,0B0\n,1RECV_F0,1F0,1B0\n", "c.csv");
  CHECK(s.actions[0].size() == 2);
  CHECK(s.actions[1] == std::vector<Action>{{1, Op::F, 0}, {1, Op::B, 0}});
}

TEST_CASE("csv: a malformed cell names the line and cell", "[csv]") {
  CHECK_THROWS_WITH(schedule_from_csv("0F0,0B0\n1F0,1X0\n", "bad.csv"),
                    Catch::Contains("bad.csv:2: cell 2: \"1X0\" is not an action"));
  CHECK_THROWS_WITH(schedule_from_csv("0F0,1F0\n1B0\n", "bad.csv"),
                    Catch::Contains("stage 1 appears on rank 1 and rank 0") ||
                        Catch::Contains("stage 1 appears on rank 0 and rank 1"));
}

TEST_CASE("csv: a loaded schedule that deadlocks is reported with the grid", "[csv]") {
  // Rank 1 runs its backward before the forward it needs: not runnable.
  Schedule s = schedule_from_csv("0F0,0B0\n1B0,1F0\n", "dead.csv");
  CHECK_THROWS_WITH(validate_schedule(s),
                    Catch::Contains("1B0 comes before 1F0 on rank 1") && Catch::Contains(">1B0<"));
}

TEST_CASE("csv: a scenario simulates a CSV schedule like the built-in one", "[csv]") {
  // Written to a scratch file, not tests/data (other tests read that copy at the same time).
  const std::string path =
      (std::filesystem::temp_directory_path() / "trainsim_csv_test_1f1b_p4_m8.csv").string();
  { std::ofstream(path) << schedule_to_csv(make_schedule("1f1b", {4, 8, 1, {}, {}})); }
  Scenario s = test::pipeline(4, 8, 1, 2, 0.1);
  s.schedule.csv = path;
  s.schedule.name = "csv";
  CHECK(test::makespan(s) == test::makespan(test::pipeline(4, 8, 1, 2, 0.1)));
  Scenario wrong = test::pipeline(4, 16, 1, 2);
  wrong.schedule.csv = path;
  wrong.schedule.name = "csv";
  CHECK_THROWS_WITH(simulate(wrong),
                    Catch::Contains("8 micro-batches") && Catch::Contains("m = 16"));
  std::remove(path.c_str());
}

TEST_CASE("csv: DualPipeV's overlapped pairs are written and read as OVERLAP_F_B cells", "[csv]") {
  const Schedule s = make_schedule("dualpipe-v", {2, 4, 2, {}, {}});
  const std::string text = schedule_to_csv(s);
  // Rank 0 (stages 0 and 3) runs 0F0 0F1 (step 1), 0F2 3F0 (step 2), 3I0 3W0 3F1 (step 3); its
  // first step-4 pair overlaps the next chunk-0 forward with chunk 1's next backward.
  CHECK_THAT(text, Catch::StartsWith("0F0,0F1,0F2,3F0,3I0,3W0,3F1,(0F3;3B1)OVERLAP_F_B,"));
  const Schedule back = schedule_from_csv(text, "pairs.csv");
  CHECK(back.actions == s.actions);
  CHECK_THROWS_WITH(
      schedule_from_csv("(0F0;0F1)OVERLAP_F_B\n", "bad.csv"),
      Catch::Contains("bad.csv:1: cell 1") && Catch::Contains("is not an overlapped pair"));
}
