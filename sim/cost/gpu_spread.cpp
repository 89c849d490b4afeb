#include "cost/gpu_spread.h"

#include <cmath>
#include <numbers>

#include "core/error.h"
#include "cost/constants.h"
#include "scenario/scenario.h"

namespace trainsim {

double expected_max_standard_normal(int n) {
  TRAINSIM_CHECK(n >= 1, "at least one GPU");
  if (n == 1) return 0;
  // E[max] = ∫ x · n φ(x) Φ(x)^(n−1) dx, composite Simpson over [−10, 12]: the integrand is
  // below 1e-20 outside it for every n up to 2^31 (the maximum of 2^31 draws lies near 6.2).
  constexpr int kIntervals = 1100;  // even; a step of 0.02 (machine precision up to n = 2^31)
  constexpr double kLo = -10, kHi = 12;
  constexpr double h = (kHi - kLo) / kIntervals;
  const double inv_sqrt_2pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  auto f = [&](double x) {
    // log Φ(x): through the upper tail Q(x) = erfc(x/√2)/2 where Φ is near 1, directly below.
    const double q = 0.5 * std::erfc(x / std::numbers::sqrt2);
    const double log_cdf =
        q < 0.5 ? std::log1p(-q) : std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));
    return x * n * inv_sqrt_2pi * std::exp(-0.5 * x * x + (n - 1) * log_cdf);
  };
  double sum = f(kLo) + f(kHi);
  for (int i = 1; i < kIntervals; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(kLo + i * h);
  return sum * h / 3.0;
}

double slowest_gpu_factor(double spread, int gpus) {
  TRAINSIM_CHECK(spread >= 0, "a spread is not negative");
  if (spread == 0 || gpus <= 1) return 1.0;
  return 1.0 + spread * expected_max_standard_normal(gpus);
}

double gpu_speed_spread(const Scenario& s) {
  return s.cluster.gpu_speed_spread.value_or(constants::kGpuSpeedSpread);
}

}  // namespace trainsim
