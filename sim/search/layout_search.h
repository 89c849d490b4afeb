#pragma once
// "Which parallel layout is fastest for this model on this cluster, and does it fit?": every
// (tp, pp, dp, vpp, micro-batch size, schedule) that uses the scenario's GPUs and keeps its
// global batch, each re-validated by the scenario loader and simulated, then ranked.
// A candidate is the base scenario plus `--set` overrides, so every rule the loader and the
// schedules enforce (heads divisible by tp, layers per stage, m ≥ p, ...) applies unchanged;
// what they reject is reported with their message, not guessed here.
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include <nlohmann/json_fwd.hpp>

#include "report/step_report.h"
#include "scenario/scenario.h"

namespace trainsim {

/// What to try. An empty list means the default written beside it.
struct SearchSpace {
  std::vector<int> tp;                 ///< powers of two up to the GPUs of one node
  std::vector<int> pp;                 ///< every divisor of GPUs / tp
  std::vector<int> vpp;                ///< the scenario's
  std::vector<int> micro_batch_sizes;  ///< the scenario's
  std::vector<std::string> schedules;  ///< the scenario's
};

struct LayoutCandidate {
  int dp = 1, tp = 1, pp = 1, vpp = 1, micro_batch_size = 1;
  std::string schedule;
  /// The `--set` overrides that turn the base scenario into this candidate.
  std::vector<std::string> overrides() const;
};

struct SearchResult {
  LayoutCandidate layout;
  std::string error;  ///< why it cannot run (the loader's or the schedule's message); "" if ran
  StepReport report;  ///< when it ran
  double peak_memory = 0;      ///< bytes: the largest stage peak on one GPU (0 without a model)
  bool out_of_memory = false;  ///< some stage's peak exceeds the device
  bool ran() const { return error.empty(); }
};

/// Every candidate of `space` for `base`, tp-major then pp, vpp, micro-batch size, schedule.
/// dp is GPUs / (tp · pp); left out are the tp · pp that do not divide the GPUs and the dp · b
/// that do not divide the global batch (which the search keeps). Throws
/// InputError when `base` has no model (costs-only studies do not change with the layout) or no
/// cluster (no GPU count to lay out), when a list holds a value < 1 or an unknown schedule, and
/// when no candidate is left.
std::vector<LayoutCandidate> layout_candidates(const Scenario& base, const SearchSpace& space);

/// Simulates every candidate (folded) and returns them ranked: those that fit by step time,
/// then those out of memory by step time, then those that cannot run, each group in candidate
/// order on ties. `progress(done, total)` is called after each candidate.
std::vector<SearchResult> search_layouts(
    const Scenario& base, const SearchSpace& space,
    const std::function<void(std::size_t, std::size_t)>& progress = {});

/// The ranked table (the first `top` that fit), then a line each for the layouts out of
/// memory and those that cannot run, with the fastest or first of each.
std::string format_search(const Scenario& base, const std::vector<SearchResult>& results,
                          std::size_t top);
/// `{"scenario", "gpus", "results": [{"layout", "ran", "error", "out_of_memory",
/// "peak_memory_bytes", "report"}, ...]}`, in rank order.
nlohmann::json search_to_json(const Scenario& base, const std::vector<SearchResult>& results);

}  // namespace trainsim
