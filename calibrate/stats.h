#pragma once
// Summaries of repeated timings: what a profile records for each measurement.
#include <vector>  // std::vector

namespace trainsim {

/// Median and max − min of repeated timings, seconds.
struct Timing {
  double median = 0, spread = 0;
};
Timing summarize(std::vector<double> seconds);

}  // namespace trainsim
