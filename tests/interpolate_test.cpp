// Log–log interpolation (cost/interpolate.h).
#include "cost/interpolate.h"

#include <cmath>

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("interpolate: a power law through two points", "[calibration]") {
  // Through (1, 1) and (4, 16): y = x², so y(2) = 4; through (10, 3) and (1000, 3): flat.
  CHECK(loglog(1, 1, 4, 16, 2) == Approx(4));
  CHECK(loglog(10, 3, 1000, 3, 100) == Approx(3));
  // Linear in size (bandwidth-bound): (1e6, 1e-3) to (4e6, 4e-3) gives 2e-3 at 2e6.
  CHECK(loglog(1e6, 1e-3, 4e6, 4e-3, 2e6) == Approx(2e-3));
}

TEST_CASE("interpolate: within sorted points, exact at samples and nothing outside",
          "[calibration]") {
  const std::vector<std::pair<double, double>> v{{1, 10}, {100, 20}, {10000, 80}};
  CHECK(*loglog_within(v, 1) == 10);
  CHECK(*loglog_within(v, 10000) == 80);
  // x = 10 is halfway (in log) between 1 and 100: √(10·20) = 14.142.
  CHECK(*loglog_within(v, 10) == Approx(std::sqrt(200.0)));
  // x = 1000 halfway between 100 and 10000: √(20·80) = 40.
  CHECK(*loglog_within(v, 1000) == Approx(40));
  CHECK_FALSE(loglog_within(v, 0.5));
  CHECK_FALSE(loglog_within(v, 20000));
  CHECK_FALSE(loglog_within({}, 1));
  CHECK_FALSE(loglog_within(v, std::nan("")));
}
