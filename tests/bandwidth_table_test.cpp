// Memory-bound kernel times by size from a profile's samples (cost/bandwidth_table.h).
#include "cost/bandwidth_table.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("bandwidth table: exact at measured sizes, log-log between, nothing outside",
          "[calibration]") {
  // Copies moving 1 MiB in 5 µs (latency-bound) and 1 GiB in 400 µs (2.68 TB/s); one
  // sample of another kernel that must be ignored.
  const double mib = 1 << 20, gib = 1 << 30;
  const BandwidthTable t({{"copy", mib, 5e-6, 0, "measured", ""},
                          {"copy", gib, 400e-6, 0, "measured", ""},
                          {"triad", 32 * mib, 1.0, 0, "measured", ""}});
  CHECK(*t.seconds(mib) == 5e-6);
  CHECK(*t.seconds(gib) == 400e-6);
  // 32 MiB is log2(32)/log2(1024) = 1/2 of the way: √(5 · 400) µs = 44.72 µs (not the
  // triad sample's 1 s).
  CHECK(*t.seconds(32 * mib) == Approx(44.72136e-6));
  CHECK_FALSE(t.seconds(1024));
  CHECK_FALSE(t.seconds(2 * gib));
  CHECK(t.answered() == 3);
  CHECK(t.outside() == 2);
  CHECK(BandwidthTable({}).empty());
}
