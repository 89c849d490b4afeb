#include "cost/bandwidth_table.h"

#include <algorithm>

#include "cost/interpolate.h"

namespace trainsim {

BandwidthTable::BandwidthTable(const std::vector<MemoryKernelSample>& samples) {
  for (const MemoryKernelSample& s : samples)
    if (s.kernel == "copy") points_.push_back({s.bytes, s.time_s});
  std::sort(points_.begin(), points_.end());
  // One time per size: a repeated size keeps its first (smallest) time.
  points_.erase(std::unique(points_.begin(), points_.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                points_.end());
}

std::optional<double> BandwidthTable::seconds(double bytes) const {
  auto t = loglog_within(points_, bytes);
  (t ? answered_ : outside_).insert(bytes);
  return t;
}

}  // namespace trainsim
