#include "cost/gemm_efficiency.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace trainsim {
namespace {

// The grid of every file in cost/data/: m = 2^6 … 2^15, n and k = 2^7 … 2^14, k fastest.
constexpr int kM0 = 6, kMs = 10, kN0 = 7, kNs = 8, kK0 = 7, kKs = 8;
constexpr int kPoints = kMs * kNs * kKs;

constexpr GemmEfficiency::Point kA100[] = {
#include "cost/data/gemm_a100_sxm.inc"
};
constexpr GemmEfficiency::Point kH100[] = {
#include "cost/data/gemm_h100_sxm.inc"
};
constexpr GemmEfficiency::Point kH200[] = {
#include "cost/data/gemm_h200_sxm.inc"
};
constexpr GemmEfficiency::Point kB200[] = {
#include "cost/data/gemm_b200_sxm.inc"
};
constexpr GemmEfficiency::Point kGb200[] = {
#include "cost/data/gemm_gb200.inc"
};
constexpr GemmEfficiency::Point kGb300[] = {
#include "cost/data/gemm_gb300.inc"
};
// GB300's sustained bf16 throughput (gemm_efficiency.h): the median of the 69 bf16 GEMMs of 10 ms
// or more in the database file gemm_gb300.inc's grid comes from (none of the grid's lasts that
// long).
constexpr double kGb300Sustained = 1743.8;
constexpr GemmEfficiency::Point kB300[] = {
#include "cost/data/gemm_b300_sxm.inc"
};
// B300's (1,100 W) likewise: the median of the 91 bf16 GEMMs of 10 ms or more in the database
// file gemm_b300_sxm.inc's grid comes from (one of them on the grid); its grid's 1–3 ms GEMMs run
// at a median 1,766 TFLOP/s.
constexpr double kB300Sustained = 1437.8;
static_assert(std::size(kA100) == kPoints && std::size(kH100) == kPoints &&
              std::size(kH200) == kPoints && std::size(kB200) == kPoints &&
              std::size(kGb200) == kPoints && std::size(kGb300) == kPoints &&
              std::size(kB300) == kPoints);

// A GEMM whose one call lasts at least this long reaches the GPU's power limit when replayed
// back to back; the median of those GEMMs' throughputs is what a GPU sustains. On B200 clocks
// start to drop after about 5 ms of unbroken compute (flashinfer-ai/flashinfer PR #2899,
// GPU_POWER_THROTTLE_THRESHOLD_MS = 5.0), and the sweeps agree: the 1–3 ms GEMMs run fastest
// (on H100 those of m·n·k = 2^39 and 2^40: medians 783 and 791 TFLOP/s; on B200 2^40 and 2^41:
// 1,607 and 1,624), the 5–6 ms ones begin to drop (H100 706–786, B200 1,491–1,583) and those
// of 11 ms and more are down (H100 702–747, H200 693–710, B200 1,397; GB200, at up to 1,200 W,
// 1,731 at the 1–3 ms median and 1,423 past 10 ms, one GEMM, after 1,565 at 5.6 ms and
// 1,828–1,908 at 4.6–4.8 ms). A100 (400 W) stays flat at every length.
constexpr double kSustainedCall = 0.010;  // seconds

constexpr const char* kSource = "bf16 GEMM sweep, NVIDIA aiconfigurator database";

// Position of log2(x) on an axis of `count` powers of two from 2^first: index and fraction,
// clamped to the axis.
std::pair<int, double> locate(double x, int first, int count) {
  const double p = std::clamp(std::log2(x) - first, 0.0, static_cast<double>(count - 1));
  const int i = std::min(static_cast<int>(p), count - 2);
  return {i, p - i};
}

}  // namespace

GemmEfficiency::GemmEfficiency(const char* source, const char* measured_on, const Point* points,
                               int count, double sustained)
    : source_(source), measured_on_(measured_on), points_(points), count_(count) {
  TRAINSIM_CHECK(count == kPoints, "a GEMM sweep covers the whole grid");
  if (sustained > 0) {
    sustained_ = sustained;
    return;
  }
  std::vector<double> longest;
  for (int i = 0; i < count; ++i)
    if (2.0 * points[i].m * points[i].n * points[i].k / (points[i].tflops * 1e12) >= kSustainedCall)
      longest.push_back(points[i].tflops);
  TRAINSIM_CHECK(!longest.empty(), "the grid holds GEMMs long enough to reach the power limit");
  std::sort(longest.begin(), longest.end());
  const std::size_t mid = longest.size() / 2;
  sustained_ = longest.size() % 2 ? longest[mid] : (longest[mid - 1] + longest[mid]) / 2;
}

const GemmEfficiency* GemmEfficiency::for_preset(const std::string& preset) {
  static const GemmEfficiency a100(kSource, "a100-sxm-80gb", kA100, kPoints),
      h100(kSource, "h100-sxm", kH100, kPoints), h200(kSource, "h200", kH200, kPoints),
      b200(kSource, "b200", kB200, kPoints), gb200(kSource, "gb200", kGb200, kPoints),
      gb300(kSource, "gb300", kGb300, kPoints, kGb300Sustained),
      b300(kSource, "b300", kB300, kPoints, kB300Sustained);
  if (preset == "a100-sxm-80gb") return &a100;
  // H100 PCIe is the same Hopper GPU with fewer SMs at a lower clock: H100 SXM's sweep, its
  // compute-bound times scaled by peak (the caller scales), as the attention data does.
  if (preset == "h100-sxm" || preset == "h100-pcie") return &h100;
  if (preset == "h200") return &h200;
  if (preset == "b200") return &b200;
  if (preset == "gb200") return &gb200;
  if (preset == "gb300") return &gb300;
  if (preset == "b300") return &b300;
  return nullptr;
}

double GemmEfficiency::at(int im, int in, int ik) const {
  const Point& p = points_[(im * kNs + in) * kKs + ik];
  TRAINSIM_CHECK(p.m == 1 << (kM0 + im) && p.n == 1 << (kN0 + in) && p.k == 1 << (kK0 + ik),
                 "the GEMM sweep is ordered m, n, k on the powers-of-two grid");
  return p.tflops;
}

double GemmEfficiency::tflops(double m, double n, double k) const {
  TRAINSIM_CHECK(m > 0 && n > 0 && k > 0, "a GEMM has positive dimensions");
  const auto [im, fm] = locate(m, kM0, kMs);
  const auto [in, fn] = locate(n, kN0, kNs);
  const auto [ik, fk] = locate(k, kK0, kKs);
  double t = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c)
        t += (a ? fm : 1 - fm) * (b ? fn : 1 - fn) * (c ? fk : 1 - fk) * at(im + a, in + b, ik + c);
  // Below the grid the time stays at the edge's: throughput scales with the dimension.
  const double below =
      std::min(1.0, m / (1 << kM0)) * std::min(1.0, n / (1 << kN0)) * std::min(1.0, k / (1 << kK0));
  return std::min(t, sustained_tflops()) * below;
}

double GemmEfficiency::sustained_tflops() const {
  return sustained_;
}

double GemmEfficiency::seconds(double m, double n, double k) const {
  return 2.0 * m * n * k / (tflops(m, n, k) * 1e12);
}

}  // namespace trainsim
