#pragma once
// A schedule is data (a pure function's output): for every pipeline rank, the ordered list of
// actions it runs, plus where each stage lives. Generators are pure functions of ScheduleParams;
// they never emit communication (lowering passes add it).
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "core/time.h"
#include "schedules/action.h"

namespace trainsim {

/// Per-stage durations for the generators that search with real costs (zb-auto). Plain numbers
/// the caller fills from its cost model, so schedules never depend on the "how long" layer.
struct StageCosts {
  std::vector<TimeNs> forward, backward_input, backward_weight;  ///< per stage
  std::vector<TimeNs> p2p;  ///< per boundary: stage s -> s + 1 and back (stages − 1 entries)
};

struct ScheduleParams {
  int pp = 1;            ///< pipeline ranks
  int microbatches = 1;  ///< m
  int vpp = 1;           ///< model chunks per rank (stages = pp · vpp)
  std::map<std::string, std::string> options;
  std::optional<StageCosts> costs;  ///< absent: cost-aware generators assume F = I = W
  /// Consecutive steps overlap (optimizer post-validation): the step period is the longest
  /// rank's span, not the makespan, and cost-aware generators minimise that instead.
  bool overlapped_steps = false;
};

struct Schedule {
  std::string name;
  int ranks = 0;
  int stages = 0;
  int microbatches = 0;
  std::vector<int> stage_rank;               ///< stage -> pipeline rank
  std::vector<std::vector<Action>> actions;  ///< per rank, in execution order
  /// With a split backward, the share of a micro-batch's activations its input gradient (I)
  /// frees; W frees the rest (Zero Bubble paper: half). Reports count in-flight memory so.
  double input_frees = 0.5;

  int chunks() const { return ranks ? stages / ranks : 0; }
  /// Which of a rank's chunks holds `stage` (0 for the first chunk on that rank). O(stages):
  /// loops over every stage should use stages_by_rank().
  int chunk_of(int stage) const;
  /// Per pipeline rank, the stages it holds in increasing order (its chunks 0, 1, …), in one
  /// O(stages) pass.
  std::vector<std::vector<int>> stages_by_rank() const;
  /// True when the backward is split into I and W actions.
  bool split_backward() const;
};

/// A schedule option as a number (`fallback` when absent); throws ScheduleError naming the
/// option when its text is not a finite number, or not an integer when `integer` is set.
double schedule_option(const ScheduleParams& p, const char* key, double fallback,
                       bool integer = false);

/// Stage s on rank s mod p (Megatron's interleaving; v = 1 gives the plain pipeline).
std::vector<int> looped_placement(int pp, int vpp);
/// Two chunks per rank in a V: stage s < p on rank s, stage s ≥ p on rank 2p − 1 − s.
std::vector<int> v_placement(int pp);

}  // namespace trainsim
