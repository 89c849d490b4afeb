#pragma once
// A schedule is data (a pure function's output): for every pipeline rank, the ordered list of
// actions it runs, plus where each stage lives. Generators are pure functions of ScheduleParams;
// they never emit communication (lowering passes add it).
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
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
  /// Independent pipelines over the ranks, each the whole model (DualPipe: two, in opposite
  /// directions). The stages form `chains` runs of stages / chains: stage s is model stage
  /// s mod (stages / chains) of chain s / (stages / chains); micro-batch mb goes through chain
  /// mb / (microbatches / chains) alone. One chain: every micro-batch through every stage.
  int chains = 1;
  /// With a split backward, the share of a micro-batch's activations its input gradient (I)
  /// frees; W frees the rest (Zero Bubble paper: half). Reports count in-flight memory so.
  double input_frees = 0.5;

  /// Stages per rank (with several chains, each chain's copy counts).
  int chunks() const { return ranks ? stages / ranks : 0; }
  /// Model chunks per rank of one chain: the layout's vpp (chunks() / chains).
  int vpp() const { return ranks ? stages / chains / ranks : 0; }
  /// Stages of one chain: the model's stages (pp · vpp).
  int chain_stages() const { return stages / chains; }
  /// The model stage (its layers) that `stage` runs: itself with one chain.
  int model_stage(int stage) const { return stage % chain_stages(); }
  /// The chain `stage` belongs to, and the chain micro-batch `mb` goes through.
  int chain_of_stage(int stage) const { return stage / chain_stages(); }
  int chain_of_microbatch(int mb) const { return mb / (microbatches / chains); }
  /// True when micro-batch `mb` passes through `stage`.
  bool runs(int stage, int mb) const { return chain_of_stage(stage) == chain_of_microbatch(mb); }
  /// First and last stage of the chain `stage` is in (a micro-batch's first F, its loss).
  bool chain_first(int stage) const { return model_stage(stage) == 0; }
  bool chain_last(int stage) const { return model_stage(stage) == chain_stages() - 1; }
  /// Which of a rank's chunks holds `stage` (0 for the first chunk on that rank). O(stages):
  /// loops over every stage should use stages_by_rank().
  int chunk_of(int stage) const;
  /// Per pipeline rank, the stages it holds in increasing order (its chunks 0, 1, …), in one
  /// O(stages) pass.
  std::vector<std::vector<int>> stages_by_rank() const;
  /// The same, each as its model stage (DualPipe's rank r: model stages r and p − 1 − r).
  std::vector<std::vector<int>> model_stages_by_rank() const;
  /// True when the backward is split into I and W actions.
  bool split_backward() const;
  /// DualPipe's overlapped pairs: for each F flagged `overlapped_with_next`, the B it runs with,
  /// keyed by the F's (stage, micro-batch). Empty for a schedule without pairs. O(actions).
  std::map<std::pair<int, int>, Action> overlapped_backwards() const;
};

/// A schedule option as a number (`fallback` when absent); throws ScheduleError naming the
/// option when its text is not a finite number, or not an integer when `integer` is set.
double schedule_option(const ScheduleParams& p, const char* key, double fallback,
                       bool integer = false);
/// A yes/no schedule option (`true`/`false`, `1`/`0`; false when absent); throws ScheduleError
/// naming the option for any other text.
bool schedule_flag(const ScheduleParams& p, const char* key);

/// Stage s on rank s mod p (Megatron's interleaving; v = 1 gives the plain pipeline).
std::vector<int> looped_placement(int pp, int vpp);
/// Two chunks per rank in a V: stage s < p on rank s, stage s ≥ p on rank 2p − 1 − s.
std::vector<int> v_placement(int pp);
/// DualPipe's two pipelines (chains): stage j on rank j, stage p + j (model stage j of the
/// reverse pipeline) on rank p − 1 − j.
std::vector<int> dualpipe_placement(int pp);

}  // namespace trainsim
