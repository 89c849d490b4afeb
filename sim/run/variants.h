#pragma once
// One scenario under several schedules, several scenarios, or several edits of one scenario, side
// by side: the calls behind `trainsim compare` (and `--vary`) and the GUI's Compare tab, so both
// show the same rows. One retry rule: a schedule that does not take
// the scenario's chunks per rank (ScheduleEntry::min_chunks..max_chunks) runs at the nearest
// count it takes (vpp 2 from vpp 1 for interleaved and V-shaped schedules; vpp 1 from a chunked
// scenario for one-chunk schedules), on a copy of the scenario that validate() checks again. A
// schedule that still cannot run is a row with its error, never an abort of the others.
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <memory>      // std::shared_ptr
#include <string>      // std::string
#include <vector>      // std::vector

#include "core/error.h"
#include "core/parallel_for.h"

#include "run/simulate.h"
#include "run/timeline.h"
#include "scenario/scenario.h"

namespace trainsim {

struct VariantResult {
  std::string scenario;  ///< simulate_scenarios: the scenario's name ("" for one scenario)
  std::string schedule;  ///< the name asked for
  std::shared_ptr<const Timeline> timeline;  ///< null when it cannot run
  bool retried = false;  ///< ran at another vpp than the scenario's (the timeline's layout says)
  std::string error;     ///< why it cannot run: the error at the scenario's vpp, then the retry's
  bool ran() const { return timeline != nullptr; }
  /// The row's name: the schedule, with "(vpp N)" when it ran retried; after "SCENARIO · "
  /// when the row is one of several scenarios.
  std::string label() const;
};

/// Simulates `base` under each of `schedules` (registered names; unknown names throw
/// ScheduleError before any work). `opt.schedule` is ignored; `opt.fold` and `opt.cancel` apply
/// to every run, and Cancelled propagates.
std::vector<VariantResult> simulate_schedules(const Scenario& base,
                                              const std::vector<std::string>& schedules,
                                              const SimulateOptions& opt = {});

/// Several scenarios side by side (A/B: `trainsim compare a.yaml b.yaml`, the GUI's "Compare
/// with file"): each under its own schedule when `schedules` is empty, else under each of them
/// by simulate_schedules' rule; rows in scenario order, each named by its scenario (a name
/// met again gets " (2)", " (3)", …). Unknown
/// schedule names throw before any work.
std::vector<VariantResult> simulate_scenarios(const std::vector<Scenario>& scenarios,
                                              const std::vector<std::string>& schedules,
                                              const SimulateOptions& opt = {});

/// One variant of a scenario: its label and its edits: "key=value" text as `--set` writes it
/// (`--vary`), and/or code's edit of the value (search's layouts), applied after the text.
struct Variant {
  std::string label;
  std::vector<std::string> edits;
  std::function<void(Scenario&)> edit;
};

/// Variant `v`'s scenario: a copy of `base` with its text edits applied (set_value: each read by
/// its key's rule and named "--vary EDIT" in errors), then its code edit, then validate()d.
/// Throws InputError when an edit or the edited scenario cannot be.
Scenario variant_scenario(const Scenario& base, const Variant& v);

/// The one way variants of a scenario are run (compare --vary, the GUI, search): for each
/// variant, run(i, its scenario) — or refused(i, error) when variant_scenario refuses it — on
/// `jobs` threads (0: all cores; parallel_for), results in variant order and the same for any
/// number of threads. `progress(done, total)` as parallel_for calls it. Exceptions other than the
/// refusal (a cancel, our own bugs) propagate.
template <typename Result, typename Run, typename Refused>
std::vector<Result> map_variants(
    const Scenario& base, const std::vector<Variant>& variants, int jobs, const Run& run,
    const Refused& refused, const std::function<void(std::size_t, std::size_t)>& progress = {}) {
  std::vector<Result> out(variants.size());
  parallel_for(
      variants.size(), jobs,
      [&](std::size_t i) {
        Scenario sc;
        try {
          sc = variant_scenario(base, variants[i]);
        } catch (const InputError& e) {
          out[i] = refused(i, e);
          return;
        }
        out[i] = run(i, sc);
      },
      progress);
  return out;
}

/// The variants of `--vary KEY=V1,V2,…` specs: every combination of their values, the first
/// spec's values varying slowest, each labelled "key=v, key=v". A value list in YAML flow form
/// (`key=["tp,dp,pp", "dp,tp,pp"]`) keeps commas inside values. Throws InputError for a spec
/// with no '=' or no value, a key no edit can set, or a key given twice; with `base`, also for
/// a value its key's rule refuses on `base` (set_value: a misspelt name, a number out of range),
/// so that only edits that read but cannot run become rows with their error.
std::vector<Variant> vary(const std::vector<std::string>& specs, const Scenario* base = nullptr);

/// Each variant of `base` side by side (map_variants, on `jobs` threads): simulated as
/// simulate_scenarios does (its own schedule, or each of `schedules` with the retry rule). An
/// edit or a layout that cannot run is a row with its error, never an abort of the others; rows
/// are named by the variants' labels. Unknown schedule names throw before any work.
std::vector<VariantResult> simulate_variants(const Scenario& base,
                                             const std::vector<Variant>& variants,
                                             const std::vector<std::string>& schedules = {},
                                             const SimulateOptions& opt = {}, int jobs = 1);

}  // namespace trainsim
