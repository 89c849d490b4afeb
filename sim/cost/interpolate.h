#pragma once
// Log–log interpolation between measured points, the one rule every calibrated lookup uses
// (GEMMs along a dimension, memory bandwidth and collectives by size): exact at the samples, a
// power law between neighbours, nothing outside (callers decide what to fall back to).
#include <algorithm>  // std::clamp
#include <array>      // std::array
#include <cmath>      // std::log2
#include <cstddef>    // std::size_t
#include <optional>   // std::optional
#include <utility>    // std::pair
#include <vector>     // std::vector

namespace trainsim {

/// y at x on the power law through (x0, y0) and (x1, y1); all positive, x0 ≠ x1.
double loglog(double x0, double y0, double x1, double y1, double x);

/// y at x from points sorted by x (positive, distinct): exact at a point, log–log between
/// its neighbours, nothing when x lies outside [front, back].
std::optional<double> loglog_within(const std::vector<std::pair<double, double>>& sorted, double x);

/// For x on an axis of ascending positive points (the constants' tables): the index of the
/// point below and the weight of the one above, linear in log₂ x, held at the ends.
template <std::size_t N>
std::pair<std::size_t, double> locate_log2(const std::array<double, N>& axis, double x) {
  static_assert(N >= 2, "an axis has two points at least");
  const double l = std::log2(std::clamp(x, axis.front(), axis.back()));
  std::size_t i = 0;
  while (i + 2 < N && l > std::log2(axis[i + 1])) ++i;
  const double lo = std::log2(axis[i]), hi = std::log2(axis[i + 1]);
  return {i, (l - lo) / (hi - lo)};
}

}  // namespace trainsim
