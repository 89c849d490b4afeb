#pragma once
// Replaying the cost model's kernels on a GPU, shared by `validate`'s one-stage and pipeline
// runs: the kernels one pipeline compute runs, the GEMM shapes and operand pools a replay needs,
// and one compute's kernels issued on a GemmBench in the model's order.
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "commands.h"
#include "cost/analytic.h"
#include "gemm_bench.h"
#include "gemm_plan.h"
#include "scenario/scenario.h"

namespace trainsim {

/// The scenario `validate` replays: `a.scenario` with `a.overrides` and the profile as its
/// `calibration`; throws InputError when it has no model or cluster, or explicit `costs:`.
Scenario load_validate_scenario(const ValidateArgs& a);

/// The kernels of one compute: (op, stage) pairs, an F&B task being two.
std::vector<Kernel> kernels_of(const AnalyticCostModel& model,
                               const std::vector<std::pair<Op, int>>& ops);

/// What replaying these computes needs: their GEMM shapes (each once, for choosing
/// algorithms) and operand pools for them and the largest copy.
struct ReplayNeeds {
  std::vector<PlannedGemm> shapes;
  OperandPools pools;
};
ReplayNeeds replay_needs(const std::vector<std::vector<Kernel>>& computes);

/// Issues `kernels` on `bench`'s stream: GEMMs with the chosen algorithm, memory-bound kernels
/// as copies of the same bytes, the attention core as dense GEMMs with its FLOPs (QKᵀ and PV,
/// heads stacked along m, the causal half skipped; not FlashAttention). A stage's layer
/// kernels (count > 1) run layer by layer, the others once, in the model's order.
void run_kernels(GemmBench& bench, const std::vector<Kernel>& kernels);

/// The prediction's error against the measurement, in percent (positive: predicted too long).
inline double percent_error(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

}  // namespace trainsim
