#include "core/error.h"

#include <cmath>

#include "core/time.h"

namespace trainsim {

ScenarioError::ScenarioError(const std::string& where, const std::string& key,
                             const std::string& message)
    : InputError("ScenarioError: " + where + ": " + (key.empty() ? "" : key + ": ") + message),
      key_(key) {}

ScheduleError::ScheduleError(const std::string& message)
    : InputError("ScheduleError: " + message), detail_(message) {}

DeadlockError::DeadlockError(const std::string& message)
    : InputError("DeadlockError: " + message) {}

void fail_check(const char* expr, const char* file, int line, const std::string& msg) {
  throw InternalError(std::string("internal error (a trainsim bug): ") + file + ":" +
                      std::to_string(line) + ": check `" + expr + "` failed: " + msg);
}

TimeNs seconds_to_ns(double seconds) {
  TRAINSIM_CHECK(std::isfinite(seconds) && seconds >= 0, "duration must be finite and >= 0");
  TRAINSIM_CHECK(seconds < 9.2e9, "duration overflows int64 nanoseconds");
  return static_cast<TimeNs>(std::llround(seconds * 1e9));
}

}  // namespace trainsim
