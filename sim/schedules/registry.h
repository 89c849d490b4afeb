#pragma once
// The one place that maps schedule names to generators (style.md habit 2). To add a schedule:
// write its generator (generators.h + its .cpp), add one row to kEntries in registry.cpp, and a
// test in tests/schedules_test.cpp.
#include <span>    // std::span
#include <string>  // std::string
#include <vector>  // std::vector

#include "schedules/schedule.h"

namespace trainsim {

struct ScheduleEntry {
  const char* name;
  std::vector<std::string> aliases;
  const char* summary;
  Schedule (*generate)(const ScheduleParams&);
  std::vector<std::string> options;  ///< option keys the generator reads
  bool uses_costs = false;           ///< wants ScheduleParams::costs (a cost-aware search)
};

/// Every registered schedule, in display order.
std::span<const ScheduleEntry> schedule_entries();
/// Canonical names of every registered schedule.
std::vector<std::string> schedule_names();
/// The entry for `name` or an alias; throws ScheduleError listing the valid names.
const ScheduleEntry& find_schedule(const std::string& name);
/// Generates and validates; throws ScheduleError (unknown name or option, impossible p/m/v,
/// or a generator bug caught by the validator).
Schedule make_schedule(const std::string& name, const ScheduleParams& params);

}  // namespace trainsim
