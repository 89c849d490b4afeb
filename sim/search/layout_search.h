#pragma once
// "Which parallel layout is fastest for this model on this cluster, and does it fit?": every
// (tp, pp, dp, vpp, micro-batch size, schedule, ZeRO stage, sequence parallelism, recompute, TP
// overlap) that uses the scenario's GPUs and keeps its global batch, each set on a copy of the
// scenario and re-validated (validate()), ruled out when its static memory alone, or with the
// activations its schedule keeps in flight, exceeds the device, else simulated (on a pool of
// threads; the result does not depend on their number), then ranked. Every rule validate() and the
// schedules enforce (heads divisible by tp, layers per stage, m ≥ p, ...) applies unchanged; what
// they reject is reported with their message, not guessed here.
#include <algorithm>   // std::max
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <optional>    // std::optional
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
  std::vector<int> zero;               ///< 0, 1, 2, 3 (only the first at dp 1: all the same)
  std::vector<int> sequence_parallel;  ///< 0 and 1 (off and on; only off at tp 1)
  std::vector<Recompute> recompute;    ///< none, selective, full (when neither list is given)
  /// Full recompute of only the first N layers of each stage, each N one more choice (N at or
  /// past a stage's layers is full recompute, and left out).
  std::vector<int> recompute_layers;
  std::vector<int> tp_overlap;  ///< the scenario's (only off at tp 1)
  /// Expert-parallel degrees: the scenario's; those not dividing dp and the experts are left
  /// out, and so is ep > 1 with ZeRO-3 (not modelled).
  std::vector<int> ep;
  /// Expert tensor parallelism of a mixture of experts: 0 splits each expert over the TP ranks
  /// (parallelism.etp follows tp), 1 keeps it whole on each; the scenario's. Only the first at
  /// tp 1 or for a dense model (all alike there).
  std::vector<int> etp;
  /// Context-parallel degrees: the scenario's; dp is what the other axes leave, and a degree
  /// whose 2 × cp does not divide the sequence (or that meets ep > 1) is left out.
  std::vector<int> cp;
  /// Training precisions: the scenario's (fp8 on a GPU without FP8 is left out by validate()).
  std::vector<Precision> precision;
  /// Optimizer offload: the scenario's (offload at ZeRO-0 is left out, as validate() refuses it).
  std::vector<Offload> offload;
  /// Activation offload, layers per stage: the scenario's (values at or past the fullest
  /// stage's layers all mean "every layer": the first such one is kept).
  std::vector<int> offload_activations;
};

/// How to search.
struct SearchOptions {
  /// Memory kept free: a layout fits when its peak is at most (1 − headroom) × device memory.
  double headroom = 0;
  /// Threads simulating candidates; 0 = the machine's hardware threads.
  int jobs = 0;
};

struct LayoutCandidate {
  int dp = 1, tp = 1, pp = 1, vpp = 1, micro_batch_size = 1;
  std::string schedule;
  int zero = 0;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
  int recompute_layers = 0;  ///< with full: the first N layers of each stage (0: all)
  bool tp_overlap = false;
  int ep = 1;   ///< expert-parallel degree
  int etp = 0;  ///< parallelism.etp: 1 keeps experts whole on each TP rank, 0 follows tp
  int cp = 1;   ///< context-parallel degree
  Precision precision = Precision::BF16;
  Offload offload = Offload::None;
  int offload_activations = 0;  ///< layers per stage whose activations go to host memory
  /// The scenario's layers per stage (parallelism.pipeline_split.layers) were given for its own
  /// pp and vpp, not this layout's: it splits its layers evenly (the same count of stages placed
  /// otherwise is another pipeline).
  bool drop_split_layers = false;
  /// "none", "selective", "full" or "N layers" (full recompute of N layers per stage).
  std::string recompute_text() const;
  /// The `--set` overrides that turn the base scenario into this candidate.
  std::vector<std::string> overrides() const;
  /// Sets these values in `s` (naming the search as their origin); validate() checks them.
  void apply(Scenario& s) const;
  /// In words: "dp 8 · tp 1 · pp 1 · b 1 · ZeRO-2 · full recompute · 1f1b" (what differs from
  /// the defaults; the schedule when the candidate names one). With `say_unsharded`, a layout
  /// of dp > 1 without ZeRO says "· no ZeRO" where the stage would be, and one of tp > 1
  /// without sequence parallelism "· no SP" (named alone, apart from a table whose column shows
  /// it).
  std::string words(bool say_unsharded = false) const;
};

struct SearchResult {
  LayoutCandidate layout;
  std::string error;  ///< why it cannot run (the loader's or the schedule's message); "" if ran
  StepReport report;  ///< when it ran
  double peak_memory = 0;      ///< bytes: the largest stage peak on one GPU (0 without a model)
  bool out_of_memory = false;  ///< some stage's peak exceeds the memory limit
  /// Fits, but its peak passes the GPU's usable memory (its memory less the caching allocator's
  /// fragmentation, usable_limit): it may run out, or slow down flushing its cache.
  bool tight = false;
  /// Not simulated: its memory exceeds the limit before any duration is known, either by the
  /// weights, gradients and optimizer states of an average pipeline rank (a lower bound of the
  /// fullest; `static_memory`), or, past that, by the fullest rank's static memory plus the
  /// activations its schedule's action order keeps in flight (schedule_memory_peaks; the
  /// simulated peak less ZeRO-3's gathered parameters; `memory_bound`, 0 when not reached).
  bool ruled_out = false;
  double static_memory = 0;
  double memory_bound = 0;
  /// The most memory known to be needed: the simulated peak when it ran, else the larger bound.
  double known_memory() const {
    return ran() ? peak_memory : std::max(static_memory, memory_bound);
  }
  /// Ran and fits, and no other fitting layout is both faster and needs less memory.
  bool pareto = false;
  bool ran() const { return error.empty() && !ruled_out; }
};

/// Every candidate of `space` for `base`, tp-major then pp, vpp, micro-batch size, schedule,
/// ZeRO, sequence parallelism, recompute, TP overlap, expert parallelism.
/// dp is GPUs / (tp · pp); left out are the tp · pp that do not divide the GPUs and the dp · b
/// that do not divide the global batch (which the search keeps). Throws
/// InputError when `base` has no model (costs-only studies do not change with the layout) or no
/// cluster (no GPU count to lay out), when a list holds a value < 1 or an unknown schedule, and
/// when no candidate is left, and when a list holds a value outside its range (ZeRO 0–3).
std::vector<LayoutCandidate> layout_candidates(const Scenario& base, const SearchSpace& space);

/// The search tries every layout of the scenario's GPUs, so a file's layout sized for another
/// GPU count (`--set cluster.nodes=2`) need not stop it: its dp becomes the one that fills the
/// GPUs (dp_filling_gpus), or where that does not divide the global batch, the largest dp that
/// does with pp taking the rest; named as the search's in errors. Pass to load_scenario.
void fill_gpus_with_dp(Scenario& s);

/// The peak a layout must stay under to fit: the GPU's memory less the headroom kept free.
double memory_limit(const Scenario& base, const SearchOptions& options);

/// The peak past which a layout that fits is tight: the GPU's usable memory (its memory less the
/// caching allocator's fragmentation, scenario.h usable_memory), at most memory_limit (a headroom
/// as large as the fragmentation leaves no tight band).
double usable_limit(const Scenario& base, const SearchOptions& options);

/// The fastest layout that ran and fits with room to spare (neither out of memory nor tight),
/// of results ranked as search_layouts returns them; nullptr when none does.
const SearchResult* fastest_with_room(const std::vector<SearchResult>& results);

/// Simulates every candidate (folded) and returns them ranked: those that fit by step time,
/// then those out of memory by step time, then those ruled out on memory before simulating, then
/// those that cannot run, each group in candidate order on ties. `progress(done, total)` is
/// called after each candidate, from one thread at a time (any of the pool's). Throws
/// InputError for a headroom outside [0, 0.9] or jobs < 0.
std::vector<SearchResult> search_layouts(
    const Scenario& base, const SearchSpace& space, const SearchOptions& options = {},
    const std::function<void(std::size_t, std::size_t)>& progress = {});

/// search_layouts' two halves, for a search split over processes (distributed_search.h):
/// simulates the candidates at `indices` (results in that order; `progress(done,
/// indices.size())`), then ranks a whole set of results and marks its Pareto front.
/// evaluate_candidates throws as search_layouts does for bad options.
std::vector<SearchResult> evaluate_candidates(
    const Scenario& base, const std::vector<LayoutCandidate>& candidates,
    const std::vector<std::size_t>& indices, const SearchOptions& options = {},
    const std::function<void(std::size_t, std::size_t)>& progress = {});
void rank_search_results(std::vector<SearchResult>& results);

/// Whether the layout's GPU has less compute per kernel than eager PyTorch's CPU takes to issue
/// one on the scenario's host (StepReport::cpu_headroom_s against eager_host_per_kernel_s; only
/// where the CPU was not simulated): without CUDA graphs its CPU would set the pace.
bool paced_by_eager_cpu(const SearchResult& r);

/// The scenario's own layout against its `measured:` figure (a step time or a throughput): how
/// much longer its cluster took than predicted. Read at that pace, the other layouts'
/// predictions are what a user who measured one layout should expect of them: in
/// tests/published/, a run priced at the pace its series' other runs measured comes out closer
/// at the median than as predicted (report/ranking.h, validation_ranking). A common factor: the
/// ranking does not change.
struct MeasuredPace {
  double measured_s = 0;   ///< the scenario's step as measured
  double predicted_s = 0;  ///< its layout as simulated (folded, as the search simulates)
  std::string source;      ///< measured.source
  double pace() const { return measured_s / predicted_s; }
};
/// Simulates the scenario as given; nullopt without a `measured:` figure or a model, or with one
/// that does not give a step time (throughput without tokens). Throws what simulate() throws.
std::optional<MeasuredPace> measured_pace(const Scenario& base);
/// `measured: …` — the pace and the fastest fitting layout's step at it (the line `search`
/// prints under its table, and the GUI's search tab); "" without `pace` or a layout that fits.
std::string measured_pace_line(const std::optional<MeasuredPace>& pace,
                               const std::vector<SearchResult>& results);

/// The ranked table (the first `top` that fit; `!` after the rank where paced_by_eager_cpu),
/// then a line each for the layouts out of memory and those that cannot run, with the fastest
/// or first of each.
std::string format_search(const Scenario& base, const std::vector<SearchResult>& results,
                          std::size_t top, const SearchOptions& options = {});
/// `{"scenario", "gpus", "memory_limit_bytes", "usable_limit_bytes", "results": [{"layout",
/// "ran", "error", "out_of_memory", "tight", "ruled_out", "static_memory_bytes",
/// "memory_bound_bytes", "pareto", "peak_memory_bytes", "report"}, ...], "measured_pace":
/// {"measured_step_s", "predicted_step_s", "pace", "source"} or null}`, in rank order.
nlohmann::json search_to_json(const Scenario& base, const std::vector<SearchResult>& results,
                              const SearchOptions& options = {});
/// One CSV row per candidate, in rank order, with a header: the layout, whether it ran, fits,
/// is tight, was ruled out or is on the Pareto front, step time, MFU, tokens/s, bubble, peak memory
/// and the error.
std::string search_to_csv(const Scenario& base, const std::vector<SearchResult>& results);

}  // namespace trainsim
