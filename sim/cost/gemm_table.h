#pragma once
// GEMM times measured by shape (a calibration profile's `gemm` samples), looked up by (m, n, k,
// dtype): an exact shape, or log–log interpolation along one dimension between two measured
// shapes that agree on the other two (the sweep `trainsim-calibrate gemm` runs around each
// shape a scenario needs). Anything else is outside the table: no answer, and the caller falls
// back to the analytic model; the table remembers which shapes it answered and which it could
// not, for the report. Never extrapolates.
#include <cstdint>   // std::int64_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <set>       // std::set
#include <string>    // std::string
#include <tuple>     // std::tuple
#include <vector>    // std::vector

#include "cost/calibration_profile.h"

namespace trainsim {

class GemmTable {
 public:
  GemmTable(const std::vector<GemmSample>& samples, std::string dtype);

  /// Seconds for C[m×n] = A[m×k]·B[k×n], or nothing when the shape is outside the table.
  std::optional<double> seconds(double m, double n, double k) const;

  bool empty() const { return times_.empty(); }
  /// Distinct shapes answered from samples (exact or interpolated) and not answered.
  std::size_t answered() const { return answered_.size(); }
  const std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>>& outside() const {
    return outside_;
  }

 private:
  using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::optional<double> along(int axis, const Shape& q) const;
  std::string dtype_;
  std::map<Shape, double> times_;
  mutable std::set<Shape> answered_, outside_;
};

}  // namespace trainsim
