// GEMM times by shape from a profile's samples (cost/gemm_table.h).
#include "cost/gemm_table.h"

#include <cmath>

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {

// Along m at n = k = 4096: 1024 → 1 ms, 4096 → 4 ms, 16384 → 20 ms; one fp16 sample.
std::vector<GemmSample> samples() {
  return {{1024, 4096, 4096, "bf16", 1e-3, 0, "measured", ""},
          {4096, 4096, 4096, "bf16", 4e-3, 0, "measured", ""},
          {16384, 4096, 4096, "bf16", 20e-3, 0, "measured", ""},
          {4096, 8192, 4096, "bf16", 7e-3, 0, "measured", ""},
          {2048, 4096, 4096, "fp16", 9.0, 0, "measured", ""}};
}

}  // namespace

TEST_CASE("gemm table: measured shapes are exact", "[calibration][gemm]") {
  const GemmTable t(samples(), "bf16");
  REQUIRE(t.seconds(4096, 4096, 4096));
  CHECK(*t.seconds(4096, 4096, 4096) == 4e-3);
  CHECK(*t.seconds(4096, 8192, 4096) == 7e-3);
  CHECK(t.answered() == 2);
  CHECK(t.outside().empty());
}

TEST_CASE("gemm table: between two shapes on one axis, log-log interpolation",
          "[calibration][gemm]") {
  const GemmTable t(samples(), "bf16");
  // m = 2048 is halfway (in log) between 1024 and 4096: t = sqrt(1 · 4) ms = 2 ms. The fp16
  // sample of that very shape is another dtype's and is not used.
  REQUIRE(t.seconds(2048, 4096, 4096));
  CHECK(*t.seconds(2048, 4096, 4096) == Approx(2e-3));
  // m = 8192 between 4096 (4 ms) and 16384 (20 ms): 4 · 5^(1/2) ms.
  CHECK(*t.seconds(8192, 4096, 4096) == Approx(4e-3 * std::sqrt(5.0)));
  // n = 6144 between n = 4096 (4 ms) and 8192 (7 ms) at m = k = 4096: log2(1.5) of the way.
  CHECK(*t.seconds(4096, 6144, 4096) ==
        Approx(std::exp(std::log(4e-3) + std::log2(1.5) * (std::log(7e-3) - std::log(4e-3)))));
}

TEST_CASE("gemm table: never extrapolates, and remembers what it could not answer",
          "[calibration][gemm]") {
  const GemmTable t(samples(), "bf16");
  CHECK_FALSE(t.seconds(32768, 4096, 4096));  // beyond the largest m
  CHECK_FALSE(t.seconds(512, 4096, 4096));    // below the smallest
  CHECK_FALSE(t.seconds(2048, 6144, 4096));   // two dimensions differ from every line
  CHECK(t.outside().size() == 3);
  CHECK(t.answered() == 0);
  CHECK(GemmTable(samples(), "fp16").seconds(2048, 4096, 4096) == 9.0);
  CHECK(GemmTable({}, "bf16").empty());
}
