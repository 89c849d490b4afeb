#include "cost/fp8_gemm.h"
#include "cost/gemm_efficiency.h"

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

TEST_CASE("fp8 GEMM: a Blackwell GPU takes the H100's ratio scaled by its own FP8/bf16", "[fp8]") {
  // aiconfigurator's medians over its long shapes (fp8_gemm.h): B200 0.529, GB200 0.531, H100
  // 0.549. Blackwell Ultra: Transformer Engine's pre-quantized B300 benchmark, per-tensor FP8
  // 6.812 ms against bf16 13.102 ms, over the H100's 0.567 at the power limit: 0.917. Hopper GPUs
  // take the H100's own grid.
  CHECK(fp8_ratio_scale("b200") == Approx(0.529 / 0.549));
  CHECK(fp8_ratio_scale("gb200") == Approx(0.531 / 0.549));
  CHECK(fp8_ratio_scale("b300") == Approx(6.812 / 13.102 / 0.567));
  CHECK(fp8_ratio_scale("gb300") == fp8_ratio_scale("b300"));  // the same die
  CHECK(fp8_ratio_scale("b300") == Approx(0.917).margin(5e-4));
  for (const char* hopper : {"h100-sxm", "h100-pcie", "h200", "h800", ""})
    CHECK(fp8_ratio_scale(hopper) == 1.0);
  // FP8 gains further on each Blackwell GPU than on the H100: every quotient below 1.
  for (const char* blackwell : {"b200", "gb200", "gb300", "b300"})
    CHECK(fp8_ratio_scale(blackwell) < 1.0);
  CHECK_THAT(fp8_ratio_scale_source("gb300"), Catch::Contains("Transformer Engine"));
  CHECK_THAT(fp8_ratio_scale_source("b200"), Catch::Contains("aiconfigurator"));
}

TEST_CASE("fp8 GEMM: MXFP8 takes its time over per-tensor FP8 in TE's B300 run", "[fp8][mxfp8]") {
  // Transformer Engine's pre-quantized benchmark on a B300 (fp8_gemm.h): one layer of hidden
  // 4096, FFN 16384, 15,872 tokens, MXFP8 7.161 ms against per-tensor FP8 6.812 ms, one run.
  CHECK(mxfp8_time_scale() == Approx(7.161 / 6.812));
  CHECK(mxfp8_time_scale() == Approx(1.051).margin(5e-4));
  // Slower than per-tensor FP8 (a scale per 32 values, applied in the MMA), well under bf16.
  CHECK(mxfp8_time_scale() > 1.0);
  CHECK(mxfp8_time_scale() * 6.812 / 13.102 < 0.6);
  CHECK_FALSE(std::string(mxfp8_gemm_source()).empty());
}

TEST_CASE("fp8 GEMM: NVFP4 takes its measured time over per-tensor FP8 (or over bf16)",
          "[fp8][nvfp4]") {
  // Blackwell Ultra: TE's B300 run, NVFP4 3.764 ms against per-tensor FP8 6.812 ms: 0.553.
  CHECK(nvfp4_time_scale("b300") == Approx(3.764 / 6.812));
  CHECK(nvfp4_time_scale("gb300") == nvfp4_time_scale("b300"));
  // Blackwell: cuBLASLt's NVFP4 beside bf16 on a B200 (pytorch/ao PR #2427, 8192³): 2.05e-4 s
  // against 7.74e-4 s, 0.265, over the model's FP8/bf16 at the power limit there:
  // 0.265 / (0.567 · 0.529 / 0.549) = 0.485 on B200, 0.265 / (0.567 · 0.531 / 0.549) = 0.483
  // on GB200. So a long NVFP4 GEMM, capped at the power limit, takes 0.265 of its bf16 time.
  CHECK(nvfp4_time_scale("b200") == Approx(0.485).margin(5e-4));
  CHECK(nvfp4_time_scale("gb200") == Approx(0.483).margin(5e-4));
  for (const char* blackwell : {"b200", "gb200"})
    CHECK(fp8_sustained_time_ratio() * fp8_ratio_scale(blackwell) * nvfp4_time_scale(blackwell) ==
          Approx(2.05e-4 / 7.74e-4));
  // And on Blackwell Ultra, through its FP8 quotient, TE's NVFP4/bf16: 3.764 / 13.102 = 0.287.
  CHECK(fp8_sustained_time_ratio() * fp8_ratio_scale("b300") * nvfp4_time_scale("b300") ==
        Approx(3.764 / 13.102));
  CHECK(nvfp4_time_scale("h100-sxm") == 1.0);
  CHECK_THAT(nvfp4_gemm_source("gb300"), Catch::Contains("B300"));
  CHECK_THAT(nvfp4_gemm_source("b200"), Catch::Contains("pytorch/ao"));
}

TEST_CASE("fp8 GEMM: B300's caps are TE's B300 run at the B300's sustained bf16 rate",
          "[fp8][nvfp4][b300]") {
  // The long GEMMs' caps: the sustained bf16 rate (1,437.8 TFLOP/s) over each precision's
  // time ratio to bf16 at the power limit. TE's run (one layer's 12 GEMMs, 19.17 TFLOP) ran bf16
  // at 19.17 / 13.102 ms = 1,463 TFLOP/s, FP8 at 2,815, NVFP4 at 5,094: the caps are those rates
  // scaled by 1,437.8 / 1,463 (2,765 and 5,005 TFLOP/s).
  const double n = 15872, h = 4096, f = 16384;
  const double layer = 3 * 2 * n * h * (3 * h + h + f + f);
  CHECK(layer == Approx(19.17e12).epsilon(1e-3));
  const double sustained = GemmEfficiency::for_preset("b300")->sustained_tflops();
  CHECK(sustained == Approx(1437.8).margin(0.1));
  const double scale = sustained / (layer / 13.102e-3 / 1e12);
  const double fp8_cap = sustained / (fp8_sustained_time_ratio() * fp8_ratio_scale("b300"));
  const double nvfp4_cap = fp8_cap / nvfp4_time_scale("b300");
  CHECK(fp8_cap == Approx(layer / 6.812e-3 / 1e12 * scale));
  CHECK(nvfp4_cap == Approx(layer / 3.764e-3 / 1e12 * scale));
  CHECK(fp8_cap == Approx(2765).margin(1));
  CHECK(nvfp4_cap == Approx(5005).margin(1));
}
