#pragma once
// Simulated time: integer nanoseconds, never floating point (style.md habit 1).
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

/// Rounds a duration in seconds to the nearest nanosecond (cost models produce doubles).
TimeNs seconds_to_ns(double seconds);

}  // namespace trainsim
