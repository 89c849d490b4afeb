#include "core/intervals.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("intervals: union, its length, and what another set leaves uncovered") {
  // [0,10) ∪ [5,15) ∪ [15,20) ∪ [30,40) = [0,20) ∪ [30,40): length 20 + 10 = 30.
  const std::vector<Interval> a{{30, 40}, {5, 15}, {0, 10}, {15, 20}};
  CHECK(merged(a) == std::vector<Interval>{{0, 20}, {30, 40}});
  CHECK(union_length(a) == 30);
  CHECK(union_length({}) == 0);
  // Covered by [8,12) ∪ [18,35): 4 + 2 + 5 = 11 of the 30; 19 uncovered.
  CHECK(uncovered(a, {{18, 35}, {8, 12}}) == 19);
  CHECK(uncovered(a, {}) == 30);
  CHECK(uncovered({}, a) == 0);
}
