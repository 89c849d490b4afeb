// trainsim-calibrate's GPU side on a real device (tagged [gpu]). Built only with CUDA; on a
// machine without a GPU every case prints "SKIPPED: no CUDA device" and CTest reports it
// skipped.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "device_info.h"
#include "gemm_bench.h"
#include "gpu.h"

using namespace trainsim;

namespace {

bool have_gpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) return true;
  WARN("SKIPPED: no CUDA device");
  return false;
}

}  // namespace

TEST_CASE("gpu: GEMM times scale with FLOPs", "[gpu]") {
  if (!have_gpu()) return;
  GemmBench bench(0, false, {8192 * 4096, 4096 * 4096, 8192 * 4096});
  // 8192×4096×4096 does twice the FLOPs of 4096³ with the same tiles per wave: between 1.6×
  // and 2.5× the time (a timer measuring launches, or nothing, would not be).
  const Timing small = bench.time(4096, 4096, 4096, 10);
  const Timing big = bench.time(8192, 4096, 4096, 10);
  CHECK(big.median / small.median > 1.6);
  CHECK(big.median / small.median < 2.5);
  // And the rate is a GPU's: 2·4096³ / t between 50 and 2000 TFLOP/s (H100 bf16 peak 989).
  const double tflops = 2.0 * 4096.0 * 4096 * 4096 / small.median / 1e12;
  CHECK(tflops > 50);
  CHECK(tflops < 2000);
  CHECK(small.spread >= 0);
}

TEST_CASE("gpu: copy time grows linearly with bytes at large sizes", "[gpu]") {
  if (!have_gpu()) return;
  GemmBench bench(0, false, {std::size_t{1} << 30, 1, std::size_t{1} << 30});
  // 1 GiB and 2 GiB moved: bandwidth-bound, so 1.7× to 2.3× the time.
  const Timing a = bench.time_copy(double(std::size_t{1} << 30), 10);
  const Timing b = bench.time_copy(double(std::size_t{2} << 30), 10);
  CHECK(b.median / a.median > 1.7);
  CHECK(b.median / a.median < 2.3);
}

TEST_CASE("gpu: the device description names the GPU and its SMs", "[gpu]") {
  if (!have_gpu()) return;
  const auto j = describe_devices();
  REQUIRE(j["devices"].size() >= 1);
  CHECK(j["devices"][0]["sms"].get<int>() > 0);
  CHECK_FALSE(provenance_of(0).device.empty());
}

TEST_CASE("gpu: collectives on one GPU are refused in one line", "[gpu]") {
  if (!have_gpu()) return;
  int n = 0;
  cudaGetDeviceCount(&n);
  if (n > 1) return;  // the two-GPU path is the collectives command's own run
  CHECK_THROWS_AS(gpu::require_devices(2, "collectives need two or more GPUs"), InputError);
}
