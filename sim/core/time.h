#pragma once
// Simulated time: integer nanoseconds, never floating point.
#include <cstdint>  // std::int64_t

namespace trainsim {

/// A point or span of simulated time in nanoseconds.
using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;

/// Seconds as a double, for reports only (never for simulation arithmetic).
constexpr double to_seconds(TimeNs t) {
  return static_cast<double>(t) / 1e9;
}

/// Rounds a duration in seconds to the nearest nanosecond (cost models produce doubles);
/// RangeError (an input error) when it does not fit int64 nanoseconds.
TimeNs seconds_to_ns(double seconds);

/// a + b for times >= 0; RangeError when the sum passes int64 nanoseconds (292 years).
TimeNs add_time(TimeNs a, TimeNs b);

/// Whole nanoseconds from a double count, rounded up, at least 0; RangeError past int64.
TimeNs ceil_ns(double ns);

}  // namespace trainsim
