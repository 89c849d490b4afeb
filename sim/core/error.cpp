#include "core/error.h"

#include <utility>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/time.h"

namespace trainsim {

ScenarioError::ScenarioError(const std::string& where, const std::string& key,
                             const std::string& message)
    : ScenarioError(Whole{}, where, (key.empty() ? "" : key + ": ") + message, key) {}

ScenarioError::ScenarioError(Whole, const std::string& where, const std::string& rest,
                             const std::string& key)
    : InputError("ScenarioError: " + where + ": " + rest), where_(where), rest_(rest), key_(key) {}

ScenarioError ScenarioError::with_note(const std::string& note) const {
  return ScenarioError(Whole{}, where_, rest_ + note, key_);
}

ScenarioError ScenarioError::relocated(const std::string& where) const {
  return ScenarioError(Whole{}, where, rest_, key_);
}

ScheduleError::ScheduleError(const std::string& message, std::string option)
    : InputError("ScheduleError: " + message), detail_(message), option_(std::move(option)) {}

DeadlockError::DeadlockError(const std::string& message)
    : InputError("DeadlockError: " + message) {}

RangeError::RangeError(const std::string& message) : InputError("RangeError: " + message) {}

void fail_check(const char* expr, const char* file, int line, const std::string& msg) {
  throw InternalError(std::string("internal error (a trainsim bug): ") + file + ":" +
                      std::to_string(line) + ": check `" + expr + "` failed: " + msg);
}

namespace {
// int64 nanoseconds hold 9.22e9 s; a little below, so rounding cannot overflow.
constexpr double kMaxSeconds = 9.2e9;
}  // namespace

TimeNs seconds_to_ns(double seconds) {
  TRAINSIM_CHECK(!std::isnan(seconds) && seconds >= 0, "duration must be a number >= 0");
  if (!(seconds < kMaxSeconds))
    throw RangeError(fmt::format(
        "a duration of {:.4g} s is beyond the simulator's range (292 years of nanoseconds): an "
        "input is far out of scale (a rate near zero, a duration in years, a huge model)",
        seconds));
  return static_cast<TimeNs>(std::llround(seconds * 1e9));
}

TimeNs add_time(TimeNs a, TimeNs b) {
  TRAINSIM_CHECK(a >= 0 && b >= 0, "times are never negative");
  TimeNs sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    throw RangeError(
        "the simulated step runs past 292 years (int64 nanoseconds): the inputs' durations are "
        "far out of scale");
  return sum;
}

TimeNs ceil_ns(double ns) {
  TRAINSIM_CHECK(!std::isnan(ns), "a duration must be a number");
  if (!(ns < kMaxSeconds * 1e9))
    throw RangeError(
        "a duration is beyond the simulator's range (292 years of nanoseconds): the inputs are "
        "far out of scale");
  return static_cast<TimeNs>(std::max(0.0, std::ceil(ns)));
}

}  // namespace trainsim
