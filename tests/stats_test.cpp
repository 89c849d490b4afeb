// Timing summaries (calibrate/stats.h).
#include "stats.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("stats: median and spread of repeated timings", "[calibration]") {
  // Odd count: the middle of 1, 3, 9 (given unsorted) is 3; spread 9 − 1 = 8.
  const Timing a = summarize({9, 1, 3});
  CHECK(a.median == 3);
  CHECK(a.spread == 8);
  // Even count: the mean of the middle two of 1, 2, 4, 10 = 3; one outlier barely moves it.
  CHECK(summarize({10, 1, 4, 2}).median == 3);
  CHECK(summarize({}).median == 0);
}
