#pragma once
// The one place that maps schedule names to generators (only the registry knows names). To add a
// schedule: write its generator (generators.h + its .cpp), add one row to kEntries in registry.cpp,
// and a test in tests/schedules_test.cpp.
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
  /// Model chunks per rank (vpp) the generator accepts, min..max (max kAnyChunks: no bound).
  /// compare's retry rule and the layout search read it; the generator still checks.
  int min_chunks = 1, max_chunks = 1;
  /// Stage → rank of the schedules it generates (nullptr: looped_placement), so a cost-aware
  /// generator's per-stage costs are taken on the rank that will run the stage.
  std::vector<int> (*placement)(int pp, int vpp) = nullptr;
  /// Pipelines its schedules run, each over a copy of the model (Schedule::chains: DualPipe 2):
  /// a rank then holds `chains` times its share of the parameters and stages.
  int chains = 1;
  /// The fewest micro-batches its design needs (nullptr: any), and what running it with fewer
  /// does (compare prints it): ZB-H2's warm-up runs 2p − 1 forwards; with fewer it still runs,
  /// but may idle as much as ZB-H1 or more (p = 4, F = I = W: 16 ms at m = 4 against ZB-H1's 15)
  /// while holding more micro-batches.
  int (*fills_at)(int pp) = nullptr;
  const char* underfilled = "";
  std::vector<int> stage_ranks(int pp, int vpp) const {
    return placement ? placement(pp, vpp) : looped_placement(pp, vpp);
  }
  bool accepts_chunks(int vpp) const { return vpp >= min_chunks && vpp <= max_chunks; }
  /// The accepted chunk count nearest `vpp`.
  int nearest_chunks(int vpp) const {
    return vpp < min_chunks ? min_chunks : vpp > max_chunks ? max_chunks : vpp;
  }
};
inline constexpr int kAnyChunks = 1 << 30;

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
