#include "core/intervals.h"

#include <algorithm>

namespace trainsim {

std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

TimeNs union_length(std::vector<Interval> v) {
  TimeNs total = 0;
  for (const auto& [b, e] : merged(std::move(v))) total += e - b;
  return total;
}

TimeNs uncovered(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  const auto x = merged(a), y = merged(b);
  TimeNs total = 0, covered = 0;
  std::size_t j = 0;
  for (const auto& [s, e] : x) {
    total += e - s;
    while (j < y.size() && y[j].second <= s) ++j;
    for (std::size_t k = j; k < y.size() && y[k].first < e; ++k)
      covered += std::min(e, y[k].second) - std::max(s, y[k].first);
  }
  return total - covered;
}

}  // namespace trainsim
