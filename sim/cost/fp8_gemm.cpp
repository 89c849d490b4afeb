#include "cost/fp8_gemm.h"

#include <array>
#include <cstddef>

#include "cost/interpolate.h"

namespace trainsim {
namespace {

constexpr std::array<double, 4> kM{2048, 4096, 8192, 16384};
constexpr std::array<double, 6> kN{1024, 4096, 8192, 16384, 28672, 57344};
constexpr std::array<double, 4> kK{1024, 4096, 8192, 16384};

// FP8 time / bf16 time, by m, then k, then n (fp8_gemm.h). The grid's first shape (2048 × 1024
// × 1024) ran its first FP8 call cold (11 TFLOP/s, set-up inside the timing): it takes the value
// of its neighbour at m = 4096, 0.958.
constexpr double kRatio[4][4][6] = {
    {/* m  2048 k  1024 */ {0.958, 1.096, 0.967, 0.732, 0.716, 0.670},
     /* m  2048 k  4096 */ {0.880, 0.688, 0.614, 0.596, 0.582, 0.552},
     /* m  2048 k  8192 */ {0.790, 0.760, 0.597, 0.567, 0.558, 0.525},
     /* m  2048 k 16384 */ {0.643, 0.568, 0.530, 0.529, 0.528, 0.530}},
    {/* m  4096 k  1024 */ {0.958, 0.751, 0.712, 0.628, 0.667, 0.643},
     /* m  4096 k  4096 */ {0.738, 0.631, 0.584, 0.558, 0.555, 0.544},
     /* m  4096 k  8192 */ {0.663, 0.612, 0.558, 0.548, 0.504, 0.491},
     /* m  4096 k 16384 */ {0.614, 0.566, 0.523, 0.531, 0.491, 0.629}},
    {/* m  8192 k  1024 */ {1.016, 0.720, 0.689, 0.659, 0.655, 0.723},
     /* m  8192 k  4096 */ {0.665, 0.580, 0.546, 0.538, 0.550, 0.522},
     /* m  8192 k  8192 */ {0.604, 0.527, 0.563, 0.505, 0.507, 0.606},
     /* m  8192 k 16384 */ {0.569, 0.531, 0.549, 0.552, 0.551, 0.563}},
    {/* m 16384 k  1024 */ {0.827, 0.646, 0.601, 0.634, 0.638, 0.634},
     /* m 16384 k  4096 */ {0.639, 0.520, 0.545, 0.549, 0.505, 0.534},
     /* m 16384 k  8192 */ {0.566, 0.512, 0.532, 0.529, 0.549, 0.566},
     /* m 16384 k 16384 */ {0.561, 0.489, 0.506, 0.584, 0.567, 0.572}},
};

}  // namespace

double fp8_gemm_time_ratio(double m, double n, double k) {
  const auto [im, fm] = locate_log2(kM, m);
  const auto [in, fn] = locate_log2(kN, n);
  const auto [ik, fk] = locate_log2(kK, k);
  double r = 0;
  for (int dm = 0; dm < 2; ++dm)
    for (int dk = 0; dk < 2; ++dk)
      for (int dn = 0; dn < 2; ++dn)
        r += (dm ? fm : 1 - fm) * (dk ? fk : 1 - fk) * (dn ? fn : 1 - fn) *
             kRatio[im + static_cast<std::size_t>(dm)][ik + static_cast<std::size_t>(dk)]
                   [in + static_cast<std::size_t>(dn)];
  return r;
}

double fp8_sustained_time_ratio() {
  // H100 SXM, calibrate/reference/h100-sxm-fp8-gemm.json: the five shapes with m·n·k ≥ 2^42.
  return 0.567;
}

namespace {

// Transformer Engine's pre-quantized GEMM benchmark on a B300 (fp8_gemm.h): one layer's 12 GEMMs
// (hidden 4096, FFN 16384, 15,872 tokens), milliseconds, all from one run.
constexpr double kTeB300Bf16 = 13.102;
constexpr double kTeB300Fp8 = 6.812;  // per-tensor (current scaling)
constexpr double kTeB300Mxfp8 = 7.161;
constexpr double kTeB300Nvfp4 = 3.764;
// pytorch/ao's matmul benchmark on a B200 (fp8_gemm.h): cuBLASLt, 8192^3, seconds, one run.
constexpr double kAoB200Bf16 = 7.74e-4;
constexpr double kAoB200Nvfp4 = 2.05e-4;

bool blackwell_ultra(std::string_view gpu) {
  return gpu == "b300" || gpu == "gb300";
}

}  // namespace

double fp8_ratio_scale(std::string_view gpu) {
  // Blackwell Ultra: TE's B300 run's per-tensor FP8/bf16 over the H100's at the power limit (the
  // long GEMMs of TE's run hold the B300 at its sustained bf16 rate, fp8_gemm.h).
  if (blackwell_ultra(gpu)) return kTeB300Fp8 / kTeB300Bf16 / fp8_sustained_time_ratio();
  // B200, GB200: NVIDIA's aiconfigurator database (commit 095f58a5), gemm_perf.parquet's fp8 rows
  // over its bf16 rows, median over the 154 shapes of m·n·k ≥ 2^42, over the H100's (fp8_gemm.h).
  constexpr double kH100Median = 0.549;
  if (gpu == "b200") return 0.529 / kH100Median;
  if (gpu == "gb200") return 0.531 / kH100Median;
  return 1.0;
}

double mxfp8_time_scale() {
  // TE's B300 run: MXFP8 over per-tensor FP8, the same 12 GEMMs (fp8_gemm.h).
  return kTeB300Mxfp8 / kTeB300Fp8;
}

const char* fp8_ratio_scale_source(std::string_view gpu) {
  if (blackwell_ultra(gpu))
    return "its FP8/bf16 ratio in Transformer Engine's pre-quantized GEMM benchmark on a B300 over "
           "the H100's";
  return "its FP8/bf16 ratio over the H100's in NVIDIA's aiconfigurator database";
}

const char* mxfp8_gemm_source() {
  return "MXFP8 at that time × the MXFP8/FP8 ratio Transformer Engine's pre-quantized GEMM "
         "benchmark measured on a B300";
}

double nvfp4_time_scale(std::string_view gpu) {
  // Blackwell Ultra: TE's B300 run, NVFP4 over per-tensor FP8. Blackwell (B200, GB200): cuBLASLt's
  // NVFP4 over bf16 on a B200 (no FP8 beside it) over this model's FP8/bf16 at the power limit
  // there, so that a long NVFP4 GEMM takes the measured share of its bf16 time (fp8_gemm.h).
  if (blackwell_ultra(gpu)) return kTeB300Nvfp4 / kTeB300Fp8;
  if (gpu == "b200" || gpu == "gb200")
    return kAoB200Nvfp4 / kAoB200Bf16 / (fp8_sustained_time_ratio() * fp8_ratio_scale(gpu));
  return 1.0;
}

const char* nvfp4_gemm_source(std::string_view gpu) {
  if (blackwell_ultra(gpu))
    return "NVFP4 at that time × the NVFP4/FP8 ratio Transformer Engine's pre-quantized GEMM "
           "benchmark measured on a B300";
  return "NVFP4 at that time × cuBLASLt's NVFP4/bf16 ratio measured on a B200 (pytorch/ao's "
         "benchmark) over this FP8/bf16 ratio";
}

const char* fp8_gemm_source() {
  return "FP8 GEMMs at the FP8/bf16 time ratio measured on an H100 SXM with cuBLASLt and "
         "per-tensor scales";
}

}  // namespace trainsim
