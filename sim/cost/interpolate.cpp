#include "cost/interpolate.h"

#include <algorithm>
#include <cmath>

namespace trainsim {

double loglog(double x0, double y0, double x1, double y1, double x) {
  const double f = (std::log(x) - std::log(x0)) / (std::log(x1) - std::log(x0));
  return std::exp(std::log(y0) + f * (std::log(y1) - std::log(y0)));
}

std::optional<double> loglog_within(const std::vector<std::pair<double, double>>& sorted,
                                    double x) {
  if (sorted.empty() || !(x >= sorted.front().first) || !(x <= sorted.back().first))
    return std::nullopt;
  const auto hi = std::lower_bound(sorted.begin(), sorted.end(), x,
                                   [](const auto& p, double v) { return p.first < v; });
  if (hi->first == x) return hi->second;
  const auto lo = hi - 1;
  return loglog(lo->first, lo->second, hi->first, hi->second, x);
}

}  // namespace trainsim
