#include "cost/gemm_efficiency.h"

#include <cmath>

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("GEMM sweep: grid points are the measurements, in between log-linear", "[gemm][sweep]") {
  const GemmEfficiency* h100 = GemmEfficiency::for_preset("h100-sxm");
  REQUIRE(h100);
  CHECK_FALSE(GemmEfficiency::for_preset("h100-pcie"));  // no published sweep
  // On the grid: the measurement itself (cost/data/gemm_h100_sxm.inc: 4096³ at 788.6 TFLOP/s,
  // and 8192 × 4096 × 4096 at 800.0, rounded to 0.01 there).
  const double a = h100->tflops(4096, 4096, 4096), b = h100->tflops(8192, 4096, 4096);
  CHECK(a == Approx(788.6).margin(0.1));
  CHECK(b == Approx(800.0).margin(0.1));
  // Halfway in log2 (m = 4096·√2): the mean of the two neighbours.
  CHECK(h100->tflops(4096 * std::sqrt(2.0), 4096, 4096) == Approx((a + b) / 2));
  // Time is 2·m·n·k over the throughput.
  CHECK(h100->seconds(4096, 4096, 4096) == Approx(2.0 * 4096 * 4096 * 4096 / (a * 1e12)));
}

TEST_CASE("GEMM sweep: off the grid, edge throughput above and edge time below", "[gemm][sweep]") {
  const GemmEfficiency* a100 = GemmEfficiency::for_preset("a100-sxm-80gb");
  REQUIRE(a100);
  // Above the largest m (32768) the throughput stays the edge's.
  CHECK(a100->tflops(65536, 4096, 4096) == Approx(a100->tflops(32768, 4096, 4096)));
  // Below the smallest m (64) the time stays the edge's: a 16-row GEMM takes as long as a
  // 64-row one, so its throughput is a quarter.
  CHECK(a100->seconds(16, 4096, 4096) == Approx(a100->seconds(64, 4096, 4096)));
  CHECK(a100->tflops(16, 4096, 4096) == Approx(a100->tflops(64, 4096, 4096) / 4));
  // Small GEMMs run far below large ones (the point of a sweep): 128³ vs 8192³.
  CHECK(a100->tflops(128, 128, 128) < 0.1 * a100->tflops(8192, 8192, 8192));
}
