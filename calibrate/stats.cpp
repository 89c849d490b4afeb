#include "stats.h"

#include <algorithm>

namespace trainsim {

Timing summarize(std::vector<double> s) {
  if (s.empty()) return {};
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {median, s.back() - s.front()};
}

}  // namespace trainsim
