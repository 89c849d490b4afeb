#include "cost/fp8_gemm.h"

#include <cmath>
#include <string>

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("fp8 GEMM: the measured time ratio at, between and beyond the grid's shapes", "[fp8]") {
  // Grid points (cost/fp8_gemm.cpp, measured on an H100): m 4096, k 4096, n 28672: 0.555;
  // n 16384: 0.558; m 16384, k 16384, n 4096: 0.489.
  CHECK(fp8_gemm_time_ratio(4096, 28672, 4096) == Approx(0.555));
  CHECK(fp8_gemm_time_ratio(4096, 16384, 4096) == Approx(0.558));
  CHECK(fp8_gemm_time_ratio(16384, 4096, 16384) == Approx(0.489));
  // Halfway in log2 between n 16384 and 28672: the mean of the two, 0.5565.
  CHECK(fp8_gemm_time_ratio(4096, std::sqrt(16384.0 * 28672.0), 4096) == Approx(0.5565));
  // Beyond the grid the edge holds: n 10^5 reads n 57344 (0.544); m, n, k 512 read the corner
  // (m 2048, n 1024, k 1024: 0.958, its neighbour's value at m 4096).
  CHECK(fp8_gemm_time_ratio(4096, 1e5, 4096) == Approx(0.544));
  CHECK(fp8_gemm_time_ratio(512, 512, 512) == Approx(0.958));
  CHECK_FALSE(std::string(fp8_gemm_source()).empty());
}
