#include "core/time.h"

#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

TEST_CASE("time: seconds round to the nearest nanosecond", "[time]") {
  CHECK(seconds_to_ns(1.5e-9) == 2);  // 1.5 ns rounds half away from zero
  CHECK(seconds_to_ns(1.4e-9) == 1);
  CHECK(seconds_to_ns(0.0) == 0);
  CHECK(seconds_to_ns(2.0) == 2 * kNsPerS);
  // One year (3.15576e7 s) fits: 3.15576e16 ns < 9.22e18.
  CHECK(seconds_to_ns(3.15576e7) == 31'557'600'000'000'000LL);
}

TEST_CASE("time: durations past int64 nanoseconds are RangeErrors, not wrapped", "[time]") {
  // int64 holds 9.22e18 ns = 9.22e9 s (292 years); 1e10 s is past it.
  CHECK_THROWS_AS(seconds_to_ns(1e10), RangeError);
  CHECK_THROWS_AS(seconds_to_ns(std::numeric_limits<double>::infinity()), RangeError);
  CHECK_THROWS_WITH(seconds_to_ns(2e300), Catch::Contains("beyond the simulator's range"));
  // A RangeError is an input error (exit 2), not a bug.
  CHECK_THROWS_AS(seconds_to_ns(1e10), InputError);
}

TEST_CASE("time: sums are checked, ceil_ns rounds up", "[time]") {
  constexpr TimeNs max = std::numeric_limits<TimeNs>::max();
  CHECK(add_time(3, 4) == 7);
  CHECK(add_time(max - 1, 1) == max);
  // Two durations of 5e9 s each fit alone (5e18 ns) but not together (1e19 > 9.22e18).
  const TimeNs half = seconds_to_ns(5e9);
  CHECK_THROWS_AS(add_time(half, half), RangeError);
  CHECK(ceil_ns(1.2) == 2);
  CHECK(ceil_ns(3.0) == 3);
  CHECK(ceil_ns(-4.0) == 0);  // at least 0
  CHECK_THROWS_AS(ceil_ns(1e19), RangeError);
}
