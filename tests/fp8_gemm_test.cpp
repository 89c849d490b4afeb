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

TEST_CASE("fp8 GEMM: a Blackwell GPU takes the H100's ratio scaled by the database's quotient",
          "[fp8]") {
  // aiconfigurator's medians over its long shapes (fp8_gemm.h): B200 0.529, GB200 0.531, GB300
  // 0.522, H100 0.549; Hopper GPUs take the H100's own grid.
  CHECK(fp8_ratio_scale("b200") == Approx(0.529 / 0.549));
  CHECK(fp8_ratio_scale("gb200") == Approx(0.531 / 0.549));
  CHECK(fp8_ratio_scale("gb300") == Approx(0.522 / 0.549));
  CHECK(fp8_ratio_scale("b300") == Approx(0.522 / 0.549));  // B300's median 0.5217
  for (const char* hopper : {"h100-sxm", "h100-pcie", "h200", "h800", ""})
    CHECK(fp8_ratio_scale(hopper) == 1.0);
  // FP8 gains further on each Blackwell GPU than on the H100: every quotient below 1.
  for (const char* blackwell : {"b200", "gb200", "gb300", "b300"})
    CHECK(fp8_ratio_scale(blackwell) < 1.0);
}

TEST_CASE("fp8 GEMM: MXFP8 takes TE's B300 ratio over this model's per-tensor one, same GEMMs",
          "[fp8][mxfp8]") {
  // Transformer Engine's pre-quantized benchmark on a B300 (fp8_gemm.h): one layer of hidden
  // 4096, FFN 16384, 15,872 tokens, MXFP8 7.324 ms against bf16 12.835 ms. The same 12 GEMMs
  // through this model's per-tensor FP8 ratio on GB300 (the grid × 0.522 / 0.549), weighted by
  // FLOPs, must give the 0.4951 the factor divides by: the factor is derived, not tuned.
  const double n = 15872, h = 4096, f = 16384;
  struct Shape {
    double m, n, k;
  };
  const Shape forward[] = {{n, 3 * h, h}, {n, h, h}, {n, f, h}, {n, h, f}};
  double flops = 0, weighted = 0;
  for (const Shape& g : forward)
    for (const Shape& s : {g, Shape{g.m, g.k, g.n}, Shape{g.k, g.n, g.m}}) {  // F, dX, dW
      const double x = 2 * s.m * s.n * s.k;
      flops += x;
      weighted += x * fp8_gemm_time_ratio(s.m, s.n, s.k);
    }
  const double model_fp8 = weighted / flops * fp8_ratio_scale("gb300");
  CHECK(model_fp8 == Approx(0.4951).margin(5e-4));
  CHECK(mxfp8_time_scale() * model_fp8 == Approx(7.324 / 12.835).epsilon(1e-3));
  // MXFP8 is slower than per-tensor FP8 (1.153), as the database's 1×128 block-scaled kernels
  // are (1.06–1.17 times its per-tensor ones), and still well under bf16.
  CHECK(mxfp8_time_scale() == Approx(1.153).margin(1e-3));
  CHECK_FALSE(std::string(mxfp8_gemm_source()).empty());
}

TEST_CASE("fp8 GEMM: NVFP4 takes the database's NVFP4/FP8 quotient per Blackwell GPU",
          "[fp8][nvfp4]") {
  // aiconfigurator's medians over its 154 long shapes (fp8_gemm.h): NVFP4/bf16 B200 0.359,
  // GB200 0.343, GB300 0.304; FP8/bf16 0.529, 0.531, 0.522.
  CHECK(nvfp4_time_scale("b200") == Approx(0.359 / 0.529));
  CHECK(nvfp4_time_scale("gb200") == Approx(0.343 / 0.531));
  CHECK(nvfp4_time_scale("gb300") == Approx(0.304 / 0.522));
  // Blackwell Ultra's FP4 gains most (1.5 times B200's FP4 rate over the same FP8 rate).
  CHECK(nvfp4_time_scale("gb300") < nvfp4_time_scale("gb200"));
  CHECK(nvfp4_time_scale("gb200") < nvfp4_time_scale("b200"));
  // Transformer Engine's pre-quantized B300 benchmark agrees for Blackwell Ultra within 2 %:
  // 3.754 / 12.835 over this model's per-tensor 0.4951 for the same GEMMs.
  CHECK(nvfp4_time_scale("gb300") == Approx(3.754 / 12.835 / 0.4951).epsilon(0.02));
  CHECK_FALSE(std::string(nvfp4_gemm_source()).empty());
}

TEST_CASE("fp8 GEMM: B300's NVFP4 cap is what Transformer Engine ran on a B300",
          "[fp8][nvfp4][b300]") {
  // B300's database medians: NVFP4/bf16 0.274, FP8/bf16 0.522 (fp8_gemm.h).
  CHECK(nvfp4_time_scale("b300") == Approx(0.274 / 0.522));
  // Its NVFP4 GEMMs at the power limit: the sustained bf16 rate (1,437.8 TFLOP/s) over the H100's
  // sustained FP8 ratio (0.567) × the FP8 quotient × the NVFP4 factor: 5,081 TFLOP/s. Transformer
  // Engine's pre-quantized benchmark on a B300 ran one layer's 12 NVFP4 GEMMs (hidden 4096, FFN
  // 16384, 15,872 tokens: 19.17 TFLOP) in 3.754 ms, 5,107 TFLOP/s: within 1 %.
  const double cap =
      GemmEfficiency::for_preset("b300")->sustained_tflops() /
      (fp8_sustained_time_ratio() * fp8_ratio_scale("b300") * nvfp4_time_scale("b300"));
  CHECK(cap == Approx(5081).margin(2));
  const double n = 15872, h = 4096, f = 16384;
  const double layer = 3 * 2 * n * h * (3 * h + h + f + f);
  CHECK(layer / 3.754e-3 / 1e12 == Approx(cap).epsilon(0.01));
}
