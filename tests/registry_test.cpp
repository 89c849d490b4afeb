#include "schedules/registry.h"

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

TEST_CASE("registry: names and aliases resolve to one entry", "[registry]") {
  CHECK(std::string(find_schedule("gpipe").name) == "afab");
  CHECK(std::string(find_schedule("1f1b").name) == "1f1b");
  const auto names = schedule_names();
  CHECK(std::find(names.begin(), names.end(), "afab") != names.end());
}

TEST_CASE("registry: an unknown name lists the registered schedules", "[registry]") {
  CHECK_THROWS_WITH(find_schedule("2f2b"), Catch::Contains("unknown schedule \"2f2b\"") &&
                                               Catch::Contains("afab") && Catch::Contains("1f1b"));
  // A slip names the schedule meant: case ("1F1B"), a separator ("dualpipe_v"), an alias's
  // slip ("ZBV", zb-v's alias zbv in capitals); "2f2b" is two edits of four, too far to guess.
  CHECK_THROWS_WITH(find_schedule("1F1B"), Catch::Contains("\"1F1B\" (did you mean 1f1b?)"));
  CHECK_THROWS_WITH(find_schedule("dualpipe_v"), Catch::Contains("(did you mean dualpipe-v?)"));
  CHECK_THROWS_WITH(find_schedule("ZBV"), Catch::Contains("(did you mean zb-v?)"));
  CHECK_THROWS_WITH(find_schedule("2f2b"), !Catch::Contains("did you mean"));
}

TEST_CASE("registry: an unknown option is rejected with the schedule's options", "[registry]") {
  CHECK_THROWS_WITH(make_schedule("1f1b", {4, 8, 1, {{"group_size", "4"}}, {}}),
                    Catch::Contains("no option \"group_size\""));
}

TEST_CASE("registry: impossible sizes are rejected", "[registry]") {
  CHECK_THROWS_WITH(make_schedule("1f1b", {4, 0, 1, {}, {}}), Catch::Contains("microbatches >= 1"));
}

TEST_CASE("registry: each entry's chunk range is what its generator accepts", "[registry]") {
  // p = 4, m = 8 suits every generator; vpp 1..4 covers one-chunk, V (exactly 2) and any-chunk.
  for (const auto& e : schedule_entries())
    for (int v = 1; v <= 4; ++v) {
      bool made = true;
      try {
        make_schedule(e.name, {4, 8, v, {}, {}});
      } catch (const ScheduleError&) {
        made = false;
      }
      INFO(e.name << " at vpp " << v);
      CHECK(made == e.accepts_chunks(v));
    }
  CHECK(find_schedule("zb-v").nearest_chunks(1) == 2);
  CHECK(find_schedule("1f1b").nearest_chunks(2) == 1);
  CHECK(find_schedule("looped-bfs").nearest_chunks(3) == 3);
  CHECK(find_schedule("looped-bfs").nearest_chunks(1) == 2);  // at 1 it is AFAB: refused
}

TEST_CASE("registry: each entry's placement is the one its schedules use", "[registry]") {
  // The placement feeds cost-aware generators their per-stage costs before generation, so it
  // must agree with what the generator then writes into Schedule::stage_rank.
  for (const auto& e : schedule_entries())
    for (int v = e.min_chunks; v <= std::min(e.max_chunks, 3); ++v) {
      INFO(e.name << " vpp = " << v);
      const Schedule s = make_schedule(e.name, {4, 8, v, {}, {}});
      CHECK(e.stage_ranks(4, v) == s.stage_rank);
      CHECK(e.chains == s.chains);
    }
}
