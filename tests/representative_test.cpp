#include "report/representative.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include "lower/task_types.h"
#include "run/simulate.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("representative: folded, each stage's tp = 0, dp = 0 rank", "[report][representative]") {
  // A costs-only 4-stage pipeline, folded: one simulated rank per stage, its own.
  const Timeline tl = simulate(test::pipeline(4, 8, 1, 2));
  const std::vector<int> rep = stage_representatives(tl);
  REQUIRE(rep.size() == 4);
  for (int s = 0; s < 4; ++s) {
    const SimRank& r = tl.ranks.ranks[static_cast<std::size_t>(rep[static_cast<std::size_t>(s)])];
    CHECK(r.coord.pp == s);
    CHECK(r.coord.tp == 0);
    CHECK(r.coord.dp == 0);
    CHECK(represents(rep, tl, rep[static_cast<std::size_t>(s)]));
  }
}

TEST_CASE("representative: expanded, the stage's rank that finishes its pipeline last",
          "[report][representative]") {
  // The TP group of global ranks 4–7 (dp 1) straddles the two nodes (test::straddling_tp), so it
  // finishes last and represents the stage.
  const Scenario s = test::straddling_tp();
  const Timeline tl = simulate(s);
  REQUIRE_FALSE(tl.ranks.folded);
  const std::vector<int> rep = stage_representatives(tl);
  REQUIRE(rep.size() == 1);
  const TaskGraph& g = *tl.graph;
  std::vector<TimeNs> last(tl.ranks.ranks.size(), 0);
  for (TaskId t = 0; t < g.size(); ++t)
    if (is_pipeline_compute(static_cast<TaskType>(g.work(t).type))) {
      TimeNs& e = last[static_cast<std::size_t>(g.streams[g.tasks[t].stream].owner)];
      e = std::max(e, tl.end[t]);
    }
  CHECK(last[static_cast<std::size_t>(rep[0])] == *std::max_element(last.begin(), last.end()));
  CHECK(tl.ranks.ranks[static_cast<std::size_t>(rep[0])].coord.dp == 1);
  CHECK_FALSE(represents(rep, tl, tl.ranks.find({0, 0, 0}, s.layout)));
}
