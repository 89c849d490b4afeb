#include "report/ascii_gantt.h"

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace trainsim;

TEST_CASE("gantt: 1F1B p = 2, m = 2 drawn two columns per millisecond", "[gantt]") {
  // F = 1, B = 2 ms. Rank 0: F0 0–1, F1 1–2, B0 4–6 (after rank 1's B0 2–4), B1 7–9.
  // Rank 1: F0 1–2, B0 2–4, F1 4–5, B1 5–7. Step (m+p−1)(F+B) = 9 ms in 18 columns.
  const std::string g = format_gantt(simulate(test::pipeline(2, 2, 1, 2)), 18);
  CHECK_THAT(g, Catch::Contains("rank   0 |F0F1....B0--..B1--|"));
  CHECK_THAT(g, Catch::Contains("rank   1 |..F0B0--F1B1--....|"));
  CHECK_THAT(g, Catch::StartsWith("1f1b — step 9.000 ms"));
}

TEST_CASE("gantt: odd chunks are lower case", "[gantt]") {
  Scenario s = test::pipeline(2, 2, 4, 8);
  s.layout.vpp = 2;
  const std::string g = format_gantt(simulate(s, {"interleaved-1f1b", true}), 60);
  CHECK_THAT(g, Catch::Contains("f0"));
  CHECK_THAT(g, Catch::Contains("F0"));
}
