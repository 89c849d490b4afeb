#pragma once
// Log–log interpolation between measured points, the one rule every calibrated lookup uses
// (GEMMs along a dimension, memory bandwidth and collectives by size): exact at the samples, a
// power law between neighbours, nothing outside (callers decide what to fall back to).
#include <optional>  // std::optional
#include <utility>   // std::pair
#include <vector>    // std::vector

namespace trainsim {

/// y at x on the power law through (x0, y0) and (x1, y1); all positive, x0 ≠ x1.
double loglog(double x0, double y0, double x1, double y1, double x);

/// y at x from points sorted by x (positive, distinct): exact at a point, log–log between
/// its neighbours, nothing when x lies outside [front, back].
std::optional<double> loglog_within(const std::vector<std::pair<double, double>>& sorted, double x);

}  // namespace trainsim
