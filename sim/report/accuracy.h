#pragma once
// A prediction against what a real run measured (the scenario's `measured:` figure). The error
// is on step time, whatever the metric: (predicted step time − measured step time) / measured,
// so a negative error means trainsim predicts the step too short (too fast). A throughput figure
// X converts to a step time exactly (step ∝ 1/X); TFLOP/s and MFU compare with trainsim's
// model FLOPs (causal attention counted half), so they agree only where the source counts
// FLOPs the same way.
#include <cstddef>   // std::size_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "report/memory_report.h"
#include "report/step_report.h"
#include "scenario/scenario.h"

namespace trainsim {

struct Accuracy {
  std::string metric;          ///< "tokens/s/GPU", …
  double measured = 0;         ///< in the metric's unit (seconds, tokens/s, TFLOP/s, fraction)
  double predicted = 0;        ///< the same metric from the simulated step
  double step_time_error = 0;  ///< (predicted − measured step time) / measured step time
  std::string source;
  std::string series;  ///< `measured.series`: runs measured together share it ("": none)
};

/// The prediction of `r` against `m`; nullopt when `r` lacks what the metric needs (no tokens).
std::optional<Accuracy> accuracy(const StepReport& r, const Measured& m);

/// Summary over cases: mean and largest |error|, the mean signed error, and the 10th and 90th
/// percentiles of the signed error (linear between the sorted errors, numpy.percentile's default
/// method): 8 in 10 of the cases lie between the two.
struct AccuracySummary {
  int cases = 0;
  double mean_abs_error = 0, max_abs_error = 0, mean_error = 0;
  double p10_error = 0, p90_error = 0;
};
AccuracySummary summarize(const std::vector<Accuracy>& cases);
/// The same over any signed relative errors (a memory peak's, MemoryCheck::error).
AccuracySummary summarize_errors(std::vector<double> errors);

/// One case of `trainsim check`: a scenario's prediction against its `measured:` figure.
struct CheckedCase {
  StepReport step;
  Accuracy accuracy;
  std::optional<MemoryCheck> memory;  ///< with measured.peak_memory
  /// The scenario's settings, key by key (scenario/scenario_schema.h, setting_values): what
  /// two runs of a series differ in (report/setting_changes.h). Empty: not known.
  std::vector<std::pair<std::string, std::string>> settings;
};

/// The indices of the cases of each series (`measured.series`) whose settings are known
/// (CheckedCase::settings), by series name: what setting changes and step splits compare.
std::map<std::string, std::vector<std::size_t>> series_with_settings(
    const std::vector<CheckedCase>& cases);

/// Whether two runs' settings are compared at `key`: not the run's name, its labels
/// (`model.name`, `cluster.gpu.name`), its price (`pricing.*`) or its figure (`measured.*`).
bool compared_setting(const std::string& key);

/// A summary for the cases of one GPU preset.
struct GpuAccuracy {
  std::string gpu;
  AccuracySummary summary;
};

}  // namespace trainsim
