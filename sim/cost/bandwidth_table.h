#pragma once
// Memory-bound kernel times measured by size (a calibration profile's `memory` samples: a
// device-to-device copy timed from 256 KiB to 4 GiB), looked up by the bytes a kernel moves:
// exact, or log–log between the neighbouring sizes. Outside the measured sizes: no answer, and
// the analytic model keeps bytes / (HBM bandwidth · efficiency); the table counts both, for the
// report. Never extrapolates.
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <set>       // std::set
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "cost/calibration_profile.h"

namespace trainsim {

class BandwidthTable {
 public:
  explicit BandwidthTable(const std::vector<MemoryKernelSample>& samples);

  /// Seconds for a streaming kernel that reads and writes `bytes` in all, or nothing when
  /// `bytes` is outside the measured sizes.
  std::optional<double> seconds(double bytes) const;

  bool empty() const { return points_.empty(); }
  /// Distinct sizes answered from samples, and sizes outside them.
  std::size_t answered() const { return answered_.size(); }
  std::size_t outside() const { return outside_.size(); }

 private:
  std::vector<std::pair<double, double>> points_;  // sorted (bytes, seconds)
  mutable std::set<double> answered_, outside_;
};

}  // namespace trainsim
